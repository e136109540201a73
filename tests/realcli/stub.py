"""A model server on loopback for the real AI CLIs: the core every wire protocol shares.

One `StubModel` is a standard-library HTTP server in a thread on 127.0.0.1 (a free port). It
does not know any protocol itself: each protocol module of this package (one per API the
CLIs speak) has a ``ROUTES`` list of ``(method, path regex, handler)``; a test starts the
stub with the routes of the protocols it needs::

    with StubModel.running(chat.ROUTES, anthropic.ROUTES) as stub:
        env = {"OPENAI_BASE_URL": stub.url("/v1"), ...}

What the model answers is set per test on the stub:

* `answer` - the canned comment (markers and a vote), sent byte for byte;
* `tool` - a `ToolCall` to answer with first, in the API's own format: a request that offers
  tools and carries no tool result yet gets the call; once a tool result comes back (or for a
  request that offers no tools: a title or memory call) the answer is `answer`;
* `error` - an HTTP status and message to fail every model request with;
* `usage` - the token counts reported with each answer.

Every request is logged in `requests` (method, path, headers, JSON body), so tests can see
what a CLI sent: how many calls, whether a side call resent the discussion, which tools it
offered. Handlers get the stub, the request handler (to write the response with the helpers
below) and the parsed request.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from ..support.servers import serving

CANNED = (
    "The stub model read the proposal.\n"
    "\n"
    "Q: Should the cache expire after an hour?\n"
    "CONCERN: the token is kept in plain text\n"
    "\n"
    "VOTE: READY"
)
"""What the stub answers by default: a comment with markers and a vote."""


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model makes: the tool's name as the CLI offers it and its arguments
    (each protocol module writes it in its API's format)."""

    name: str
    arguments: dict[str, Any]
    call_id: str = "call_stub_1"


@dataclass
class Request:
    """One request the stub got."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    """The JSON body (None without one; the raw text when it is not JSON)."""


Handler = Callable[["StubModel", "Exchange", Request, "re.Match[str]"], None]
Route = tuple[str, str, Handler]
"""(HTTP method, regular expression the whole path must match, handler)."""


@dataclass
class StubModel:
    """The server and what it is to answer (see the module docstring)."""

    routes: Sequence[Route] = ()
    answer: str = CANNED
    tool: ToolCall | None = None
    error: tuple[int, str] | None = None
    usage: dict[str, int] = field(
        default_factory=lambda: {"input_tokens": 1200, "output_tokens": 34}
    )
    requests: list[Request] = field(default_factory=list)
    port: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def url(self, path: str = "") -> str:
        """The server's address with `path` appended (``stub.url("/v1")``)."""
        return f"http://127.0.0.1:{self.port}{path}"

    def log(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def model_requests(self, pattern: str) -> list[Request]:
        """The logged requests whose path matches `pattern` (a regular expression)."""
        with self._lock:
            return [r for r in self.requests if re.search(pattern, r.path)]

    @classmethod
    @contextmanager
    def running(cls, *route_lists: Sequence[Route], **settings: Any) -> Iterator[StubModel]:
        """Serve on a free loopback port until the block ends."""
        stub = cls(routes=[r for routes in route_lists for r in routes], **settings)
        with serving(_handler_class(stub)) as server:
            stub.port = server.server_address[1]
            yield stub


class Exchange(BaseHTTPRequestHandler):
    """The request handler: routes to the protocol handlers and offers them writers."""

    protocol_version = "HTTP/1.1"
    stub: StubModel

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    # -- writing answers (for the protocol handlers) ---------------------------------------

    def send_json(self, status: int, data: Any) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def start_events(self) -> None:
        """Start a server-sent event stream (closed when the handler returns)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def send_event(self, data: Any, event: str | None = None) -> None:
        """One server-sent event: ``event:`` line when named, ``data:`` as JSON (or as is)."""
        text = data if isinstance(data, str) else json.dumps(data)
        head = f"event: {event}\n" if event else ""
        self.wfile.write(f"{head}data: {text}\n\n".encode())
        self.wfile.flush()

    # -- dispatch ---------------------------------------------------------------------------

    def _read(self) -> Request:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        return Request(self.command, self.path, dict(self.headers.items()), body)

    def _dispatch(self) -> None:
        request = self._read()
        self.stub.log(request)
        path = request.path.split("?", 1)[0]
        for method, pattern, handle in self.stub.routes:
            match = re.fullmatch(pattern, path)
            if method == request.method and match:
                handle(self.stub, self, request, match)
                return
        self.send_json(404, {"error": {"message": f"stub: no route for {request.method} {path}"}})

    do_GET = do_POST = do_PUT = do_DELETE = _dispatch  # noqa: N815


def _handler_class(stub: StubModel) -> type[Exchange]:
    return type("BoundExchange", (Exchange,), {"stub": stub})
