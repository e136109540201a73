"""Servers on loopback speaking Anthropic's Messages API and Google's Gemini API, for the
hosted providers' tests (the standard library's HTTP server in a thread, on a free port).

Each answers as the real API does (the formats cited in `providers.hosted_apis`): streamed as
server-sent events or as one JSON object, or an HTTP error with the API's error body. It
records each request (path, headers, body)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from .servers import serving


@dataclass
class HostedStub:
    api: str = "anthropic"
    """``anthropic`` or ``gemini``."""
    pieces: tuple[str, ...] = ("Hello ", "from the ", "hosted stub.\nVOTE: READY")
    status: int = 200
    """An HTTP error status to answer with (200: answer)."""
    error_message: str = "invalid x-api-key"
    stream_error: bool = False
    """Send an error event in the middle of the stream."""
    cut: bool = False
    """Say the answer stopped at the token limit."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/{'v1' if self.api == 'anthropic' else 'v1beta'}"


def _anthropic_events(stub: HostedStub) -> Iterator[tuple[str, dict[str, Any]]]:
    usage = {"input_tokens": 30, "cache_read_input_tokens": 12, "output_tokens": 1}
    message = {"id": "msg_1", "type": "message", "model": "claude-stub", "usage": usage}
    yield "message_start", {"type": "message_start", "message": message}
    yield "ping", {"type": "ping"}
    for piece in stub.pieces:
        delta = {"type": "text_delta", "text": piece}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
        if stub.stream_error:
            error = {"type": "overloaded_error", "message": "Overloaded"}
            yield "error", {"type": "error", "error": error}
    stop = "max_tokens" if stub.cut else "end_turn"
    yield (
        "message_delta",
        {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 5}},
    )
    yield "message_delta", {"type": "message_delta", "delta": {}, "usage": {"output_tokens": 9}}
    yield "message_stop", {"type": "message_stop"}


def _anthropic_whole(stub: HostedStub) -> dict[str, Any]:
    return {
        "type": "message",
        "model": "claude-stub",
        "content": [{"type": "text", "text": "".join(stub.pieces)}],
        "stop_reason": "max_tokens" if stub.cut else "end_turn",
        "usage": {"input_tokens": 30, "cache_creation_input_tokens": 12, "output_tokens": 9},
    }


def _gemini_chunks(stub: HostedStub) -> Iterator[dict[str, Any]]:
    yield {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "thinking...", "thought": True}]}}
        ]
    }
    for i, piece in enumerate(stub.pieces):
        last = i == len(stub.pieces) - 1
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": piece}]}}
        if last:
            candidate["finishReason"] = "MAX_TOKENS" if stub.cut else "STOP"
        meta = {"promptTokenCount": 40, "candidatesTokenCount": 2 + 3 * i}
        if last:
            meta["thoughtsTokenCount"] = 4
        yield {"candidates": [candidate], "usageMetadata": meta, "modelVersion": "gemini-stub"}
        if stub.stream_error:
            yield {
                "error": {
                    "code": 503,
                    "message": "The model is overloaded.",
                    "status": "UNAVAILABLE",
                }
            }


def _gemini_whole(stub: HostedStub) -> dict[str, Any]:
    chunks = list(_gemini_chunks(stub))
    parts = [{"text": "".join(stub.pieces)}]
    last = chunks[-1]
    return {
        "candidates": [
            {"content": {"parts": parts}, "finishReason": last["candidates"][0]["finishReason"]}
        ],
        "usageMetadata": last["usageMetadata"],
        "modelVersion": "gemini-stub",
    }


def _error_body(stub: HostedStub) -> dict[str, Any]:
    if stub.api == "anthropic":
        kinds = {401: "authentication_error", 429: "rate_limit_error", 500: "api_error"}
        return {
            "type": "error",
            "error": {"type": kinds.get(stub.status, "api_error"), "message": stub.error_message},
        }
    return {
        "error": {"code": stub.status, "message": stub.error_message, "status": "UNAUTHENTICATED"}
    }


def _handler(stub: HostedStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            stub.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            if stub.status != 200:
                return self._json(stub.status, _error_body(stub))
            streamed = body.get("stream") if stub.api == "anthropic" else "alt=sse" in self.path
            if not streamed:
                return self._json(
                    200, _anthropic_whole(stub) if stub.api == "anthropic" else _gemini_whole(stub)
                )
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            if stub.api == "anthropic":
                for name, data in _anthropic_events(stub):
                    self._send(f"event: {name}\ndata: {json.dumps(data)}\n\n")
            else:
                for data in _gemini_chunks(stub):
                    self._send(f"data: {json.dumps(data)}\r\n\r\n")
            self.close_connection = True

        def _send(self, text: str) -> None:
            self.wfile.write(text.encode())
            self.wfile.flush()

        def _json(self, status: int, data: Any) -> None:
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    return Handler


@contextmanager
def serve_hosted(stub: HostedStub) -> Iterator[HostedStub]:
    """Serve `stub` until the block ends."""
    with serving(_handler(stub)) as server:
        stub.port = server.server_address[1]
        yield stub
