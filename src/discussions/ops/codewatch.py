"""``discussions watch --code``: the project's source files watched for new comments that
summon a council (`git.summons`); each new one starts (or continues) its discussion at once
(`summon.start`). The comments already there when the watch starts are not new.

`CodeWatcher` answers the same three calls as `watch.Watcher` (`notify`, `next_due`,
`run_due`), so `serve_all` drives both from one queue of changed paths: `observe_code` puts
there each file saved anywhere in the project (watchdog, recursive), `watch.observe` the
discussion files.
"""

from __future__ import annotations

import os
import queue
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..errors import DiscussionsError
from ..git.confine import Confinement
from ..git.summons import find_in
from ..settings.workspace import Workspace, display_path
from .summon import Summoning, start
from .watch import CHANGES, POLL

if TYPE_CHECKING:
    from watchdog.observers.api import BaseObserver


class _Driven(Protocol):
    def notify(self, path: Path, now: float | None = None) -> None: ...
    def next_due(self) -> float | None: ...
    def run_due(self, now: float | None = None) -> None: ...


class CodeWatcher:
    """Starts the discussion of each summoning comment that appears in a saved file."""

    def __init__(self, ws: Workspace, *, log: Callable[[str], None], debounce: float) -> None:
        self.ws, self.log, self.debounce = ws, log, debounce
        s = Summoning.of(ws)
        self.root, self.prefix, self.skip = s.where.root, s.prefix, s.skip
        found = find_in(s.where, skip=self.skip, prefix=self.prefix)
        self.seen = {(f.path, f.question) for f in found}
        self._due: dict[str, float] = {}

    def notify(self, path: Path, now: float | None = None) -> None:
        """A file was saved: look at it once it has been quiet for `debounce`."""
        try:
            rel = path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return
        if rel.startswith((".git/", *self.skip)):
            return
        self._due[rel] = (now if now is not None else time.monotonic()) + self.debounce

    def next_due(self) -> float | None:
        return min(self._due.values()) if self._due else None

    def run_due(self, now: float | None = None) -> None:
        now = now if now is not None else time.monotonic()
        for rel in [r for r, t in self._due.items() if t <= now]:
            del self._due[rel]
            self.process(rel)

    def process(self, rel: str) -> None:
        """Start the discussion of each summons in `rel` not seen before (the evidence rule
        asked afresh: a new file counts once git would show it)."""
        where = Confinement.of(self.root, Summoning.of(self.ws).where.exclude)
        for f in find_in(where, [rel], skip=self.skip, prefix=self.prefix):
            if (f.path, f.question) in self.seen:
                continue
            self.seen.add((f.path, f.question))
            try:
                done = start(self.ws, f)
            except DiscussionsError as exc:
                self.log(f"{f.where}: {exc}")
                continue
            self.log(f"{f.where}: {f.question} -> {done.action} {display_path(done.file)}")


def serve_all(
    routes: Sequence[tuple[_Driven, Callable[[Path], bool]]], changes: queue.Queue[Path]
) -> None:
    """`watch.Watcher.serve` for several watchers: each changed path goes to each watcher
    whose test (its second) wants it, each acts when its files are quiet; until interrupted
    (KeyboardInterrupt)."""
    watchers = [w for w, _ in routes]
    while True:
        dues = [d for d in (w.next_due() for w in watchers) if d is not None]
        wait = POLL if not dues else max(0.0, min(POLL, min(dues) - time.monotonic()))
        try:
            path = changes.get(timeout=wait)
        except queue.Empty:
            for w in watchers:
                w.run_due()
            continue
        for w, wants in routes:
            if wants(path.resolve()):
                w.notify(path)


def observe_code(root: Path, changes: queue.Queue[Path]) -> BaseObserver:
    """A started watchdog observer putting on `changes` each file saved under `root` (its git
    folder left out). Stop it with ``stop()`` and ``join()``."""
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.is_directory or event.event_type not in CHANGES:
                return
            raw = getattr(event, "dest_path", "") or event.src_path
            path = Path(os.fsdecode(raw))
            if ".git" not in path.parts:
                changes.put(path)

    observer = Observer()
    observer.schedule(Handler(), str(root), recursive=True)
    observer.start()
    return observer
