"""Record what a provider is sent and what it answers, byte for byte, for `real_model.py`.

Two recorders, both transparent to what they wrap:

* ``python real_model_record.py cli DIR -- COMMAND...``: runs COMMAND with this process's
  standard input and output; writes ``NN.prompt.txt`` (stdin) and ``NN.answer.txt`` (stdout) and
  ``NN.json`` (exit status, seconds, stderr's last lines) into DIR. Used as a provider command.
* `RecordingProxy`: a loopback HTTP proxy in front of a chat-completions server; for each
  ``POST .../chat/completions`` it writes the prompt (the last user message), the answer (the
  streamed deltas joined, or the message's content) and ``NN.json`` (status, usage, seconds).
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

_lock = threading.Lock()


def next_number(folder: Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    taken = [int(p.name[:2]) for p in folder.glob("[0-9][0-9].prompt.txt")]
    return max(taken, default=0) + 1


def save(folder: Path, prompt: bytes, answer: bytes, meta: dict[str, Any]) -> int:
    with _lock:
        n = next_number(folder)
        (folder / f"{n:02d}.prompt.txt").write_bytes(prompt)
        (folder / f"{n:02d}.answer.txt").write_bytes(answer)
        (folder / f"{n:02d}.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return n


def record_cli(folder: Path, command: list[str]) -> int:
    prompt = sys.stdin.buffer.read()
    started = time.monotonic()
    done = subprocess.run(command, input=prompt, capture_output=True, check=False)
    seconds = time.monotonic() - started
    err = done.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
    meta = {"exit": done.returncode, "seconds": round(seconds, 2), "stderr": err}
    save(folder, prompt, done.stdout, meta)
    sys.stdout.buffer.write(done.stdout)
    sys.stderr.buffer.write(done.stderr)
    return done.returncode


def _answer_of(kind: str, raw: bytes) -> tuple[str, dict[str, Any] | None]:
    """The answer text and usage in a response body (events or one object)."""
    text, usage = [], None
    if kind == "text/event-stream":
        for line in raw.decode("utf-8", "replace").splitlines():
            data = line[5:].strip() if line.startswith("data:") else ""
            if not data or data == "[DONE]":
                continue
            event = json.loads(data)
            usage = event.get("usage") or usage
            for choice in event.get("choices") or []:
                text.append((choice.get("delta") or {}).get("content") or "")
        return "".join(text), usage
    data = json.loads(raw or b"{}")
    choices = data.get("choices") or [{}]
    return (choices[0].get("message") or {}).get("content") or "", data.get("usage")


class RecordingProxy:
    """A proxy on 127.0.0.1 that forwards to `target` (a base URL's host) and records calls."""

    def __init__(self, target: str, folder: Path) -> None:
        parts = urlsplit(target)
        self.host, self.port, self.folder = parts.hostname or "", parts.port, folder
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> RecordingProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                conn = http.client.HTTPConnection(proxy.host, proxy.port, timeout=900)
                started = time.monotonic()
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                conn.request(self.command, self.path, body, headers)
                response = conn.getresponse()
                raw = response.read()
                seconds = time.monotonic() - started
                self.send_response(response.status, response.reason)
                for key, value in response.getheaders():
                    if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
                if self.command == "POST" and self.path.endswith("chat/completions") and body:
                    proxy.note(body, response, raw, seconds)

            do_GET = _forward  # noqa: N815
            do_POST = _forward  # noqa: N815

        return Handler

    def note(
        self, body: bytes, response: http.client.HTTPResponse, raw: bytes, seconds: float
    ) -> None:
        request = json.loads(body)
        prompt = request["messages"][-1]["content"].encode("utf-8")
        kind = (response.getheader("Content-Type") or "").split(";")[0].strip()
        if response.status >= 400:
            answer, usage = "", None
            meta: dict[str, Any] = {"error": raw.decode("utf-8", "replace")[:400]}
        else:
            answer, usage = _answer_of(kind, raw)
            meta = {}
        meta.update({"status": response.status, "usage": usage, "seconds": round(seconds, 2)})
        save(self.folder, prompt, answer.encode("utf-8"), meta)


if __name__ == "__main__":
    if len(sys.argv) < 5 or sys.argv[1] != "cli" or sys.argv[3] != "--":
        sys.exit("usage: real_model_record.py cli DIR -- COMMAND...")
    sys.exit(record_cli(Path(sys.argv[2]), sys.argv[4:]))
