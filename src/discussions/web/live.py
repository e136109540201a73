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
import bisect
import hashlib
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DiscussionsError
from ..model.discussion import Discussion
from ..settings.workspace import Workspace

FOLLOW_INTERVAL = 0.1
"""Seconds between two looks at a followed file."""
KEEPALIVE = 15.0
"""Seconds of silence after which a comment line keeps the connection open."""
QUEUE_LIMIT = 2000
"""Events waiting for one slow page before it is told to reload instead."""

_CLOSE: tuple[str, dict[str, Any]] = ("", {})


@dataclass(slots=True)
class Snapshot:
    """What a channel last saw of its file: read, not parsed (a page opening starts following
    at the cost of reading the file; a change parses only the new text)."""

    signature: tuple[int, int, int]
    """(size, mtime_ns, inode): a change of any means a new look."""
    discussion: Discussion | None
    """The file as read (None when it could not be)."""
    error: str | None = None

    @property
    def text(self) -> str:
        return self.discussion.text if self.discussion is not None else ""


def file_signature(path: Path) -> tuple[int, int, int]:
    """(size, mtime_ns, inode) of `path`; (-1, 0, 0) when it cannot be read: a change of
    any means the file changed."""
    try:
        st = os.stat(path)
    except OSError:
        return (-1, 0, 0)
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def comment_event(d: Discussion, start: int, end: int | None = None) -> dict[str, Any]:
    """The ``comment`` event for `d`'s comments from index `start` on (to `end`)."""
    from ..ops.grounds import resolve
    from ..views.diagrams import with_pictures
    from ..views.html import comment_html

    comments, grounding = d.comments, resolve(d).grounding
    out = [
        {
            "index": i,
            "line": c.line,
            "author": c.author,
            "vote": c.vote,
            "html": with_pictures(comment_html(c, grounding), d.workspace),
        }
        for i, c in enumerate(comments[max(0, start) : end], max(0, start))
    ]
    return {"comments": out, "count": len(comments)}


def older_comments(d: Discussion, before: int) -> dict[str, Any]:
    """`d`'s comments that start before line `before` (those the first view of a long
    discussion left off), as the ``comment`` event gives them."""
    return comment_event(d, 0, bisect.bisect_left([c.line for c in d.comments], before))


def text_hash(text: str) -> str:
    """A short digest of a discussion's text: a page reconnecting says which text it shows."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def panel_event(d: Discussion) -> dict[str, Any]:
    """The side panel rendered afresh, with the size and digest of the text it was built
    from (a page reconnecting says what it has seen)."""
    from ..ops.grounds import resolve
    from ..views.panel import panel_html

    return {"html": panel_html(resolve(d)), "size": len(d.text), "hash": text_hash(d.text)}


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

    async def look(self) -> Snapshot:
        """The snapshot, taken now if there is none yet."""
        if self.snapshot is None:
            self.snapshot = await asyncio.to_thread(self.load)
        return self.snapshot

    def load(self) -> Snapshot:
        """A fresh look at the file: read, not parsed (in a worker thread)."""
        signature = file_signature(self.path)
        try:
            d = Discussion.load(self.path, self.workspace)
            d.text  # noqa: B018 - read now, while the signature still describes it
        except DiscussionsError as exc:
            return Snapshot(signature, None, str(exc))
        return Snapshot(signature, d)

    def changes(self, old: Snapshot, new: Snapshot) -> list[tuple[str, Any]]:
        """The events taking a page from `old` to `new` (in a worker thread)."""
        d = new.discussion
        if d is None:
            return [("error", {"message": new.error or "the file cannot be read"})]
        if old.discussion is None or not new.text.startswith(old.text):
            return [("reload", {})]
        # Appended: comments that start after the old text are new, and the last one that
        # starts inside it may have grown; all before it are as they were. So one parse (of
        # the new text) is enough.
        old_lines = old.text.count("\n") + 1
        starts = [c.line for c in d.comments]
        first = max(0, bisect.bisect_right(starts, old_lines) - 1)
        events: list[tuple[str, Any]] = []
        if starts:
            events.append(("comment", comment_event(d, first)))
        return [*events, ("phase", phase_event(d)), ("panel", panel_event(d))]

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

    async def stream(
        self, path: Path, count: int, size: int, digest: str | None = None
    ) -> AsyncIterator[str]:
        """Server-sent events for a page showing `count` comments of a `size`-character text
        (`digest`: its `text_hash`). The first events bring the page up to date with the file
        as it is now."""
        path = path.resolve()
        queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
        channel, snap = await self._join(path, queue)
        try:
            yield "retry: 1000\n\n"
            for name, data in await asyncio.to_thread(catch_up, snap, count, size, digest):
                yield _sse(name, data)
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

    async def _join(
        self, path: Path, queue: asyncio.Queue[tuple[str, dict[str, Any]]]
    ) -> tuple[Channel, Snapshot]:
        """Add `queue` to the channel following `path` (made if there is none), once that
        channel has looked at the file as it is now."""
        while True:
            channel = self.channels.get(path)
            if channel is None:
                channel = self.channels[path] = Channel(path, self.workspace)
            async with channel.lock:
                if self.channels.get(path) is not channel:
                    continue  # the last page left while this one waited: that channel is gone
                await channel.look()
                await self._refresh(channel)  # the page may show a newer text than the last look
                snap = await channel.look()
                channel.queues.add(queue)
                if channel.task is None or channel.task.done():
                    channel.task = asyncio.create_task(self._follow(channel))
                return channel, snap

    async def _follow(self, channel: Channel) -> None:
        while channel.queues:
            await asyncio.sleep(self.interval)
            async with channel.lock:
                await self._refresh(channel)

    async def _refresh(self, channel: Channel) -> None:
        """Take a new look if the file changed since the last, and tell the pages following.
        Called under the channel's lock."""
        old = channel.snapshot
        if old is None or file_signature(channel.path) == old.signature:
            return
        new = await asyncio.to_thread(channel.load)
        events = await asyncio.to_thread(channel.changes, old, new)
        channel.snapshot = new
        for name, data in events:
            channel.broadcast(name, data)


def _parsed(snap: Snapshot) -> Discussion:
    assert snap.discussion is not None
    return snap.discussion


def catch_up(
    snap: Snapshot, count: int, size: int, digest: str | None
) -> list[tuple[str, dict[str, Any]]]:
    """What a page showing `count` comments of a `size`-character text (digest `digest`)
    needs to match `snap`: nothing, the comments from its last one on (it may have grown),
    or a reload when its text is not where the file's begins."""
    if snap.error is not None:
        return [("error", {"message": snap.error})]
    text = snap.text
    if len(text) < size or (digest and text_hash(text[:size]) != digest):
        return [("reload", {})]
    if len(text) == size:
        return []
    d = _parsed(snap)
    return [
        ("comment", comment_event(d, count - 1)),
        ("phase", phase_event(d)),
        ("panel", panel_event(d)),
    ]


def _sse(name: str, data: dict[str, Any]) -> str:
    # JSON never holds a raw newline, so `data:` is one line.
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
