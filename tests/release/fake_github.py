"""A local fake of the GitHub REST endpoints the action's script calls (issue comments: list,
create, update), on 127.0.0.1, with the requests it received kept for the tests to read."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

TOKEN = "t0ken-for-tests"
LIST = re.compile(r"^/repos/([^/]+/[^/]+)/issues/(\d+)/comments$")
ONE = re.compile(r"^/repos/([^/]+/[^/]+)/issues/comments/(\d+)$")


@dataclass
class FakeGitHub:
    """The comments of each (repository, issue), and what was asked of it."""

    comments: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    login: str = "github-actions[bot]"
    """Whom the token posts as."""
    refuse: set[str] = field(default_factory=set)
    """Methods answered 403, as GitHub does when the token lacks the permission."""
    url: str = ""
    _next_id: int = 1000

    def add(self, repo: str, number: int, body: str, login: str) -> dict[str, Any]:
        """Put a comment there, as if someone had posted it."""
        self._next_id += 1
        comment = {
            "id": self._next_id,
            "body": body,
            "user": {"login": login},
            "html_url": f"https://github.invalid/{repo}/pull/{number}#issuecomment-{self._next_id}",
        }
        self.comments.setdefault((repo, number), []).append(comment)
        return comment

    def bodies(self, repo: str, number: int) -> list[str]:
        return [c["body"] for c in self.comments.get((repo, number), [])]

    def find(self, comment_id: int) -> dict[str, Any] | None:
        for comments in self.comments.values():
            for c in comments:
                if c["id"] == comment_id:
                    return c
        return None


def _handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _reply(self, status: int, data: Any) -> None:
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _begin(self) -> tuple[str, dict[str, list[str]]] | None:
            parts = urlsplit(self.path)
            fake.requests.append((self.command, self.path))
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                self._reply(401, {"message": "Bad credentials"})
                return None
            if self.command in fake.refuse:
                self._reply(403, {"message": "Resource not accessible by integration"})
                return None
            return parts.path, parse_qs(parts.query)

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            return dict(json.loads(self.rfile.read(length)))

        def do_GET(self) -> None:
            begun = self._begin()
            if begun is None:
                return
            path, query = begun
            m = LIST.match(path)
            if not m:
                return self._reply(404, {"message": "Not Found"})
            per_page = min(int(query.get("per_page", ["30"])[0]), 100)
            page = int(query.get("page", ["1"])[0])
            comments = fake.comments.get((m[1], int(m[2])), [])
            self._reply(200, comments[(page - 1) * per_page : page * per_page])

        def do_POST(self) -> None:
            begun = self._begin()
            if begun is None:
                return
            m = LIST.match(begun[0])
            if not m:
                return self._reply(404, {"message": "Not Found"})
            self._reply(201, fake.add(m[1], int(m[2]), self._body()["body"], fake.login))

        def do_PATCH(self) -> None:
            begun = self._begin()
            if begun is None:
                return
            m = ONE.match(begun[0])
            comment = fake.find(int(m[2])) if m else None
            if comment is None:
                return self._reply(404, {"message": "Not Found"})
            if comment["user"]["login"] != fake.login:
                return self._reply(403, {"message": "not yours"})
            comment["body"] = self._body()["body"]
            self._reply(200, comment)

    return Handler


@contextmanager
def fake_github() -> Iterator[FakeGitHub]:
    """A running fake on a free port of 127.0.0.1; `url` is its base address."""
    fake = FakeGitHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
