"""A web server on loopback for the web-evidence tests: each path answers with a status,
headers and a body (`WebStub.routes`); ``hang`` routes answer nothing until the server stops.
It records the Host header and path of each request it got."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from .servers import serving

HANG = "hang"


@dataclass
class WebStub:
    routes: dict[str, Any] = field(default_factory=dict)
    """path (with its query) -> (status, {header: value}, body bytes), or `HANG`."""
    requests: list[tuple[str, str]] = field(default_factory=list)
    """(Host header, path) of each request."""
    release: threading.Event = field(default_factory=threading.Event)
    port: int = 0

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


def _handler(stub: WebStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def do_GET(self) -> None:  # noqa: N802
            stub.requests.append((self.headers.get("Host", ""), self.path))
            route = stub.routes.get(self.path)
            if route == HANG:
                stub.release.wait(30)
                return
            status, headers, body = route or (404, {"Content-Type": "text/plain"}, b"not here")
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value.replace("{port}", str(stub.port)))
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@contextmanager
def serve_web(stub: WebStub) -> Iterator[WebStub]:
    with serving(_handler(stub), before_shutdown=stub.release.set) as server:
        stub.port = server.server_address[1]
        yield stub
