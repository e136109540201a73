"""A chat-completions server on loopback for the HTTP provider's tests.

A real HTTP server (the standard library's) in a thread, bound to 127.0.0.1 on a free port.
What it does is set per test (`StubServer.mode`): stream an answer as server-sent events,
answer with one JSON object, fail with an HTTP error, hang, drip, or flood. It records each
request it got (path, headers, body) so tests can check what was sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from .servers import serving

DRIP = "drip"
"""A route's answer that comes a byte at a time (`StubServer.routes`)."""


@dataclass
class StubServer:
    mode: str = "stream"
    answer: str = "Hello from the stub.\nVOTE: READY"
    usage: dict[str, int] | None = field(
        default_factory=lambda: {"prompt_tokens": 42, "completion_tokens": 7}
    )
    reply: Callable[[dict[str, Any]], str] | None = None
    """The answer computed from each chat request's body (model, messages); None: `answer`."""
    props: dict[str, Any] | None = None
    """What ``GET /props`` answers (None: 404)."""
    models: dict[str, Any] | None = None
    """What ``GET /v1/models`` answers (None: 404)."""
    routes: dict[str, Any] = field(default_factory=dict)
    """Other ``GET``/``POST`` paths and their JSON answers."""
    window: int | None = None
    """Refuse (HTTP 400, as llama.cpp does) a prompt over this many tokens (4 bytes a token)."""
    error_message: str = "model crashed"
    """The message of the error event in ``stream-error`` mode."""
    error_body: str | None = None
    """The message of the HTTP 400 answer in ``error`` mode (None: llama.cpp's own, a prompt
    over the context window). A server that echoes the API key sets it to hold the key."""
    finish_reason: str = "stop"
    """Why the answer ended, as the server says it (``length``: cut at ``max_tokens``)."""
    one_at_a_time: float = 0.0
    """Answer one chat request at a time (as llama-cpp-python does), each taking this many
    seconds; the others wait in the server's queue (0: all at once, at once)."""
    in_flight: int = 0
    most_at_once: int = 0
    """The most chat requests the server held at one time, queued ones included."""
    disconnected: threading.Event = field(default_factory=threading.Event)
    outlasted: threading.Event = field(default_factory=threading.Event)
    """Set when a hanging or dripping answer ran its whole course (30 s, 20 s): the client
    waited it out instead of leaving at its deadline."""
    """Set when a client closed its connection while ``generate`` mode worked on its answer."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    port: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    one_slot: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _handler(stub: StubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        answer_text = stub.answer

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def _json(self, status: int, data: Any) -> None:
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _record(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            entry = {
                "method": self.command,
                "path": self.path,
                "headers": dict(self.headers.items()),
                "body": json.loads(body) if body else None,
            }
            stub.requests.append(entry)
            return entry

        def do_GET(self) -> None:  # noqa: N802
            self._record()
            known = {"/props": stub.props, "/v1/models": stub.models, **stub.routes}
            found = known.get(self.path)
            if found is None:
                self._json(404, {"error": {"message": "not found"}})
            elif found == DRIP:
                self._drip_json()
            else:
                self._json(200, found)

        def _drip_json(self) -> None:
            """A JSON answer a byte every 0.2 s, for 20 s at the most."""
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            for _ in range(100):
                if stub.stop.is_set():
                    return
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.2)
            stub.outlasted.set()

        def do_POST(self) -> None:  # noqa: N802
            sent = self._record()
            if self.path in stub.routes:
                self._json(200, stub.routes[self.path])
                return
            if self.path != "/v1/chat/completions":
                self._json(404, {"error": {"message": "not found"}})
                return
            prompt = sent["body"]["messages"][-1]["content"]
            self.answer_text = stub.reply(sent["body"]) if stub.reply else stub.answer
            if stub.window and len(prompt.encode()) / 4 > stub.window:
                self._mode_error()
                return
            with stub.lock:
                stub.in_flight += 1
                stub.most_at_once = max(stub.most_at_once, stub.in_flight)
            try:
                self._answer_in_turn()
            finally:
                with stub.lock:
                    stub.in_flight -= 1

        def _answer_in_turn(self) -> None:
            answer = getattr(self, f"_mode_{stub.mode.replace('-', '_')}")
            if not stub.one_at_a_time:
                answer()
                return
            with stub.one_slot:  # the queue: one generation at a time
                stub.stop.wait(stub.one_at_a_time)
                answer()

        def _mode_generate(self) -> None:
            """Work on the answer for up to 20 s, stopping when the client goes away."""
            import select
            import socket

            for _ in range(400):
                ready, _, _ = select.select([self.connection], [], [], 0.05)
                if ready and not self.connection.recv(1, socket.MSG_PEEK):
                    stub.disconnected.set()
                    return
            self._mode_json()

        def _mode_json(self) -> None:
            data: dict[str, Any] = {
                "object": "chat.completion",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": self.answer_text},
                        "finish_reason": stub.finish_reason,
                    }
                ],
            }
            if stub.usage:
                data["usage"] = stub.usage
            self._json(200, data)

        def _events(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()

        def _send(self, data: Any) -> None:
            text = data if isinstance(data, str) else json.dumps(data)
            self.wfile.write(f"data: {text}\n\n".encode())
            self.wfile.flush()

        def _mode_stream(self) -> None:
            self._events()
            self.wfile.write(b": keep-alive comment\n\n")
            for i in range(0, len(self.answer_text), 5):
                piece = self.answer_text[i : i + 5]
                self._send({"choices": [{"index": 0, "delta": {"content": piece}}]})
            end = {"index": 0, "delta": {}, "finish_reason": stub.finish_reason}
            self._send({"choices": [end]})
            if stub.usage:
                self._send({"choices": [], "usage": stub.usage})
            self._send("[DONE]")

        def _mode_error(self) -> None:
            message = stub.error_body or (
                "the request exceeds the available context size, try increasing it"
            )
            self._json(400, {"error": {"code": 400, "message": message}})

        def _mode_hang(self) -> None:
            if not stub.stop.wait(30):
                stub.outlasted.set()

        def _mode_drip(self) -> None:
            self._events()
            while not stub.stop.is_set():
                self._send({"choices": [{"index": 0, "delta": {"content": "."}}]})
                time.sleep(0.1)

        def _mode_flood(self) -> None:
            self._events()
            piece = {"choices": [{"index": 0, "delta": {"content": "x" * 8000}}]}
            try:
                while not stub.stop.is_set():
                    self._send(piece)
            except OSError:
                pass

        def _mode_silent(self) -> None:
            self._events()

        def _mode_stream_error(self) -> None:
            self._events()
            self._send({"choices": [{"index": 0, "delta": {"content": "Partial"}}]})
            self._send({"error": {"message": stub.error_message}})

    return Handler


@contextmanager
def serve(stub: StubServer | None = None) -> Iterator[StubServer]:
    """Run `stub` on 127.0.0.1 (a free port) for the duration of the block."""
    stub = stub or StubServer()
    with serving(_handler(stub), before_shutdown=stub.stop.set) as server:
        stub.port = server.server_address[1]
        yield stub
