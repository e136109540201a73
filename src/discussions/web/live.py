"""Following discussions live: one channel per followed file, fanned out to each open page.

A channel exists while at least one page follows its file. It polls the file's size and
modification time (every `FOLLOW_INTERVAL` seconds: an editor's save, another process's append
and a git checkout all show there, and no watcher limit applies), parses the file in a worker
thread when they change, and sends what changed as server-sent events:

* ``comment``: comments new or grown since the last look, rendered (`htmlview.comment_html`);
* ``panel``: the side panel rendered afresh; ``phase`` when phase or status changed;
* ``reload``: the file changed other than by appending (rewritten, truncated): the page
  reloads.

Turns and runs started from the web server add their own steps (``turn-start``, ``chunk``,
``answer``, ``turn-end``, ...) through `publish`, called from their worker threads.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DiscussionsError
from ..model import Discussion
from ..workspace import Workspace

FOLLOW_INTERVAL = 0.1
"""Seconds between two looks at a followed file."""
KEEPALIVE = 15.0
"""Seconds of silence after which a comment line keeps the connection open."""
QUEUE_LIMIT = 2000
"""Events waiting for one slow page before it is told to reload instead."""

_CLOSE: tuple[str, dict[str, Any]] = ("", {})


@dataclass(slots=True)
class Snapshot:
    """What a channel last saw of its file."""

    signature: tuple[int, int, int]
    """(size, mtime_ns, inode): a change of any means a new look."""
    text: str
    spans: list[tuple[int, int]]
    """(line, end_line) of each comment."""
    phase: str
    status: str
    error: str | None = None


def _signature(path: Path) -> tuple[int, int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (-1, 0, 0)
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def comment_event(d: Discussion, start: int) -> dict[str, Any]:
    """The ``comment`` event for `d`'s comments from index `start` on."""
    from ..htmlview import comment_html

    comments = d.comments
    out = []
    for index in range(max(0, start), len(comments)):
        c = comments[index]
        out.append(
            {
                "index": index,
                "line": c.line,
                "author": c.author,
                "vote": c.vote,
                "html": comment_html(c),
            }
        )
    return {"comments": out, "count": len(comments)}


def panel_event(d: Discussion) -> dict[str, Any]:
    """The side panel rendered afresh, with the size of the text it was built from (a page
    reconnecting says how much it has seen)."""
    from ..htmlview import panel_html

    return {"html": panel_html(d), "size": len(d.text)}


def phase_event(d: Discussion) -> dict[str, Any]:
    info = d.phase_info
    return {"phase": d.phase, "status": d.status, "phase_title": info.title if info else None}


@dataclass(eq=False)
class Channel:
    """One followed file and the pages following it."""

    path: Path
    workspace: Workspace
    queues: set[asyncio.Queue[tuple[str, dict[str, Any]]]] = field(default_factory=set)
    snapshot: Snapshot | None = None
    task: asyncio.Task[None] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def load(self) -> tuple[Snapshot, Discussion | None]:
        """A fresh look at the file (in a worker thread)."""
        signature = _signature(self.path)
        try:
            d = Discussion.load(self.path, self.workspace)
        except DiscussionsError as exc:
            return Snapshot(signature, "", [], "", "", str(exc)), None
        spans = [(c.line, c.end_line) for c in d.comments]
        return Snapshot(signature, d.text, spans, d.phase, d.status), d

    def changes(self, old: Snapshot, new: Snapshot, d: Discussion | None) -> list[tuple[str, Any]]:
        """The events taking a page from `old` to `new` (in a worker thread)."""
        if d is None:
            return [("error", {"message": new.error or "the file cannot be read"})]
        if old.error is not None or not new.text.startswith(old.text):
            return [("reload", {})]
        # Appended: the comments from the first that differs (a grown last comment) on.
        first, shared = 0, min(len(old.spans), len(new.spans))
        while first < shared and old.spans[first] == new.spans[first]:
            first += 1
        events: list[tuple[str, Any]] = []
        if first < len(new.spans):
            events.append(("comment", comment_event(d, first)))
        if (old.phase, old.status) != (new.phase, new.status):
            events.append(("phase", phase_event(d)))
        events.append(("panel", panel_event(d)))
        return events

    def broadcast(self, name: str, data: dict[str, Any]) -> None:
        for queue in list(self.queues):
            if queue.qsize() >= QUEUE_LIMIT:
                # This page is not keeping up: it gets one reload instead of the backlog.
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(("reload", {}))
                self.queues.discard(queue)
                queue.put_nowait(_CLOSE)
                continue
            queue.put_nowait((name, data))


class Hub:
    """All channels of one server. Runs on the server's event loop; `publish` may be called
    from any thread."""

    def __init__(self, workspace: Workspace, interval: float = FOLLOW_INTERVAL) -> None:
        self.workspace = workspace
        self.interval = interval
        self.channels: dict[Path, Channel] = {}
        self.loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        self.loop = asyncio.get_running_loop()

    def publish(self, path: Path, name: str, data: dict[str, Any]) -> None:
        """Send event `name` to every page following `path` (thread-safe; dropped when none)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._publish, path.resolve(), name, data)
        except RuntimeError:  # the loop closed in between
            pass

    def _publish(self, path: Path, name: str, data: dict[str, Any]) -> None:
        channel = self.channels.get(path)
        if channel is not None:
            channel.broadcast(name, data)

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        for channel in list(self.channels.values()):
            for queue in list(channel.queues):
                queue.put_nowait(_CLOSE)
            if channel.task is not None:
                channel.task.cancel()
        self.channels.clear()

    async def stream(self, path: Path, count: int, size: int) -> AsyncIterator[str]:
        """Server-sent events for a page showing `count` comments of a `size`-character text.
        The first events bring the page up to date with the file as it is now."""
        path = path.resolve()
        queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
        channel = self.channels.get(path)
        if channel is None:
            channel = self.channels[path] = Channel(path, self.workspace)
        async with channel.lock:
            snap = channel.snapshot or (await asyncio.to_thread(channel.load))[0]
            channel.snapshot = snap
            channel.queues.add(queue)
            if channel.task is None or channel.task.done():
                channel.task = asyncio.create_task(self._follow(channel))
        try:
            yield "retry: 1000\n\n"
            if snap.error is not None:
                yield _sse("error", {"message": snap.error})
            elif len(snap.text) != size or len(snap.spans) != count:
                if len(snap.text) < size:
                    yield _sse("reload", {})
                else:
                    d = await asyncio.to_thread(Discussion.load, path, self.workspace)
                    yield _sse("comment", await asyncio.to_thread(comment_event, d, count - 1))
                    yield _sse("phase", phase_event(d))
                    yield _sse("panel", await asyncio.to_thread(panel_event, d))
            while True:
                try:
                    name, data = await asyncio.wait_for(queue.get(), KEEPALIVE)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                if not name:
                    return
                yield _sse(name, data)
        finally:
            channel.queues.discard(queue)
            if not channel.queues and self.channels.get(path) is channel:
                if channel.task is not None:
                    channel.task.cancel()
                del self.channels[path]

    async def _follow(self, channel: Channel) -> None:
        while channel.queues:
            await asyncio.sleep(self.interval)
            old = channel.snapshot
            if old is None or _signature(channel.path) == old.signature:
                continue
            async with channel.lock:
                new, d = await asyncio.to_thread(channel.load)
                events = await asyncio.to_thread(channel.changes, old, new, d)
                channel.snapshot = new
                for name, data in events:
                    channel.broadcast(name, data)


def _sse(name: str, data: dict[str, Any]) -> str:
    # JSON never holds a raw newline, so `data:` is one line.
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
