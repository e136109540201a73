"""A real web server for tests: uvicorn on a free loopback port, in a thread, and a small
HTTP client (http.client) that can also read server-sent events."""

from __future__ import annotations

import http.client
import json
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import uvicorn  # noqa: E402

from discussions.settings.workspace import Workspace  # noqa: E402
from discussions.web import bind  # noqa: E402
from discussions.web.app import Settings, create_app  # noqa: E402

from .waiting import poll_until, wait_for  # noqa: E402

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

TOKEN = "test-token-0123456789"


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


class LiveServer:
    """`create_app` served by uvicorn in a thread until `stop`."""

    def __init__(self, workspace: Workspace, *, public: bool = False, interval: float = 0.05):
        self.settings = Settings(TOKEN, public=public, author="Tester")
        self.app = create_app(workspace, self.settings, interval=interval)
        self.sock = bind("127.0.0.1", 0)
        self.port = self.settings.port = self.sock.getsockname()[1]
        config = uvicorn.Config(
            self.app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        up = poll_until(lambda: self.server.started or not self.thread.is_alive(), 10)
        if not (up and self.server.started):
            raise RuntimeError("the test server did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = TOKEN,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
    ) -> Reply:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = dict(headers or {})
        if token is not None:
            sent.setdefault("Authorization", f"Bearer {token}")
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        if data is not None:
            sent.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        reply = Reply(
            response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        )
        conn.close()
        return reply

    def get(self, path: str, **kwargs: Any) -> Reply:
        kwargs.setdefault("token", None)
        return self.request("GET", path, **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> Reply:
        return self.request("POST", path, body if body is not None else {}, **kwargs)

    def events(self, path: str, **kwargs: Any) -> EventStream:
        return EventStream(self.port, path, **kwargs)


class EventStream:
    """Server-sent events read in a thread; `next(name)` waits for the next of that name."""

    def __init__(self, port: int, path: str, headers: dict[str, str] | None = None) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.conn.request("GET", path, headers=headers or {})
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.received: queue.Queue[tuple[str, Any, float]] = queue.Queue()
        self.seen: list[tuple[str, Any, float]] = []
        self.joined = threading.Event()
        """Set at the stream's first line (``retry:``), which the server sends once this page
        has joined the file's channel: an event sent before then reaches no one, so a test
        that starts a turn waits for it (the response's headers come earlier)."""
        if self.status == 200:
            threading.Thread(target=self._read, daemon=True).start()
            self.joined.wait(15.0)

    def _read(self) -> None:
        name, data = "message", ""
        try:
            for raw in self._lines():
                line = raw.rstrip("\n")
                if line.startswith("retry:"):
                    self.joined.set()
                if not line:
                    if data:
                        self.received.put((name, json.loads(data), time.monotonic()))
                    name, data = "message", ""
                elif line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data += line[6:]
        except Exception:  # closed by `close` (http.client fails in several ways then)
            pass

    def _lines(self) -> Iterator[str]:
        while True:
            line = self.response.readline()
            if not line:
                return
            yield line.decode("utf-8")

    def next(self, name: str, timeout: float = 15.0) -> Any:
        """The data of the next event called `name` (others are kept in `seen`)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"no {name!r} event in {timeout} s; saw {[s[0] for s in self.seen]}"
                )
            try:
                event = self.received.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(event)
            if event[0] == name:
                return event[1]

    def get(self, name: str, timeout: float = 15.0) -> Any:
        """The data of an event called `name`, already seen or the next one."""
        for seen_name, data, _ in self.seen:
            if seen_name == name:
                return data
        return self.next(name, timeout)

    def close(self) -> None:
        try:
            self.conn.sock.shutdown(2) if self.conn.sock else None
        except OSError:
            pass
        self.conn.close()


def discussions_folder(project: Path) -> Path:
    return project / "discussions"


def open_page(browser: WebDriver, server: LiveServer, path: str, *, token: bool = True) -> None:
    """Open `path` as the user would: with the token in the address (it becomes a cookie and
    the address loses it), or without it and without the cookie (read-only)."""
    if token:
        browser.get(f"{server.url}{path}?token={TOKEN}")
        assert browser.current_url == f"{server.url}{path}"  # the redirect dropped the token
    else:
        browser.get(f"{server.url}/static/app.js")  # any page of the origin, to clear its cookies
        browser.delete_all_cookies()
        browser.get(f"{server.url}{path}")
    wait_for(lambda: browser.execute_script("return document.readyState") == "complete")
