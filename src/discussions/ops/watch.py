"""Answer @mentions when a person saves a discussion file (``discussions watch``).

The `Watcher` holds the rules and is driven by file-change notifications (watchdog through
`observe` and `Watcher.serve`, direct calls in tests):

* It remembers the comments it has seen in each file, keyed by author and text (not by line,
  so editing an earlier comment does not make later ones look new).
* A change is acted on only if it brings a new comment by a person (an author who is not a
  registered participant) that @mentions participants who have not answered it. Comments by
  AI participants, ours or another process's, never start a turn by themselves.
* After such a turn, AI answers may mention other participants; the watcher follows those
  mentions for at most ``max_chain`` turns per human comment (the loop guard).
* Bursts of saves are debounced: a file is processed once it has been quiet for ``debounce``
  seconds.
* A person's new comment that asks for evidence (``EVIDENCE:``) has it fulfilled at once.
* It remembers the answers it posted. An editor that saves a stale buffer over the file wipes
  them out; the watcher notices the answer is gone, says so, and asks again if the mention is
  still unanswered (counted against the same loop guard).
"""

from __future__ import annotations

import hashlib
import os
import queue
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.evidence.fulfil import fulfil_pending
from ..engine.runner import Runner
from ..errors import DiscussionNotFound, DiscussionsError
from ..model.discussion import Comment, Discussion
from ..model.storage import is_discussion_file as storage_is_discussion
from ..settings.workspace import Workspace, display_path

if TYPE_CHECKING:
    from logging import LogRecord

    from watchdog.observers.api import BaseObserver

DEFAULT_DEBOUNCE = 1.0
DEFAULT_MAX_CHAIN = 3
POLL = 0.5
"""Longest `Watcher.serve` waits for a change before looking at what is due, in seconds."""
CHANGES = ("modified", "created", "moved", "closed")
"""The watchdog events that may bring a new comment."""


def _key(c: Comment) -> tuple[str, str]:
    return c.author, hashlib.sha1(c.body.strip().encode("utf-8")).hexdigest()


def is_discussion_file(path: Path) -> bool:
    """A ``*.md`` file worth watching: not hidden (an editor's swap file), and a discussion by
    the one rule (`storage.discussion_problem`)."""
    return path.suffix == ".md" and not path.name.startswith(".") and storage_is_discussion(path)


@dataclass(slots=True)
class _FileState:
    seen: Counter[tuple[str, str]] = field(default_factory=Counter)
    problems: tuple[str, ...] = ()
    posted: dict[tuple[str, str], str] = field(default_factory=dict)
    """Answers this watcher appended (comment key -> alias), to notice when they vanish."""
    reasked: int = 0
    """Turns run again because an answer vanished (bounded by the loop guard)."""


class Watcher:
    """Decides and runs the turns that saved files call for."""

    def __init__(
        self,
        workspace: Workspace,
        *,
        log: Callable[[str], None],
        runner: Runner | None = None,
        provider: str | None = None,
        max_chain: int = DEFAULT_MAX_CHAIN,
        debounce: float = DEFAULT_DEBOUNCE,
    ) -> None:
        self.workspace = workspace
        self.log = log
        self.runner = runner or Runner(workspace)
        self.provider = provider
        self.max_chain = max(0, max_chain)
        self.debounce = debounce
        self.files: dict[Path, _FileState] = {}
        self._due: dict[Path, float] = {}
        self.turns_run = 0

    @classmethod
    def configured(
        cls,
        workspace: Workspace,
        *,
        log: Callable[[str], None],
        provider: str | None = None,
        debounce: float | None = None,
        max_chain: int | None = None,
    ) -> Watcher:
        """A watcher with `debounce` and `max_chain` as given, else as the ``watch`` section
        of discussions.yaml says, else the defaults."""
        settings = workspace.config.section("watch")
        return cls(
            workspace,
            log=log,
            provider=provider,
            debounce=debounce
            if debounce is not None
            else float(settings.get("debounce", DEFAULT_DEBOUNCE)),
            max_chain=max_chain
            if max_chain is not None
            else int(settings.get("max_chain", DEFAULT_MAX_CHAIN)),
        )

    def watch(self, targets: Sequence[Path]) -> WatchTargets:
        """Start watching `targets`: each folder's discussion files (and the new ones later),
        each file named. Raises `DiscussionNotFound` for a target that is neither."""
        folders: set[Path] = set()
        for target in targets:
            if target.is_dir():
                folders.add(target.resolve())
                for f in sorted(target.glob("*.md")):
                    if is_discussion_file(f):
                        self.add(f)
            elif target.is_file():
                _ = Discussion.load(target, self.workspace).text  # a binary file fails here
                folders.add(target.resolve().parent)
                self.add(target)
            else:
                raise DiscussionNotFound(
                    f"nothing to watch at {display_path(target)}: no such file or folder"
                )
        return WatchTargets(
            folders,
            files={t.resolve() for t in targets if t.is_file()},
            dirs={t.resolve() for t in targets if t.is_dir()},
        )

    def serve(self, changes: queue.Queue[Path]) -> None:
        """Take the changed paths from `changes` (`observe` puts them there) and process each
        file once it is quiet, until interrupted (KeyboardInterrupt)."""
        while True:
            due = self.next_due()
            wait = POLL if due is None else max(0.0, min(POLL, due - time.monotonic()))
            try:
                path = changes.get(timeout=wait)
            except queue.Empty:
                self.run_due()
                continue
            self.notify(path)

    # -- bookkeeping ------------------------------------------------------------------

    def add(self, path: Path, *, baseline: bool = True) -> None:
        """Start watching `path`. With `baseline`, comments already there are not new."""
        path = path.resolve()
        state = _FileState()
        if baseline and path.exists():
            try:
                state.seen = Counter(
                    _key(c) for c in Discussion.load(path, self.workspace).comments
                )
            except DiscussionsError as exc:
                self.log(f"{path.name}: cannot read ({exc})")
        self.files[path] = state

    def notify(self, path: Path, now: float | None = None) -> None:
        """A change was seen on `path`; process it once it has been quiet for `debounce`."""
        path = path.resolve()
        if not is_discussion_file(path):
            return
        if path not in self.files:
            self.log(f"{path.name}: new file, watching it")
            self.add(path, baseline=False)
        self._due[path] = (now if now is not None else time.monotonic()) + self.debounce

    def next_due(self) -> float | None:
        return min(self._due.values()) if self._due else None

    def run_due(self, now: float | None = None) -> None:
        """Process every file whose quiet period is over."""
        now = now if now is not None else time.monotonic()
        for path in [p for p, t in self._due.items() if t <= now]:
            del self._due[path]
            self.process(path)

    # -- the rules --------------------------------------------------------------------

    def process(self, path: Path) -> None:
        """React to the current content of `path`."""
        path = path.resolve()
        state = self.files.setdefault(path, _FileState())
        try:
            d = Discussion.load(path, self.workspace)
            comments = d.comments
            warnings = d.warnings
        except DiscussionsError as exc:
            self.log(f"{path.name}: skipped: {exc}")
            return
        problems = tuple(f"line {w.line}: {w.message}" for w in warnings)
        if problems and problems != state.problems:
            self.log(
                f"{path.name}: {len(problems)} problem(s): "
                + "; ".join(problems[:3])
                + (" ..." if len(problems) > 3 else "")
            )
        state.problems = problems

        self._check_posted(path, d, state)
        fresh = _new_comments(comments, state.seen)
        registry = self.workspace.participants
        humans = [c for c in fresh if registry.for_author(c.author) is None]
        for c in fresh:
            if registry.for_author(c.author) is not None:
                state.seen[_key(c)] += 1  # AI comments never start a turn by themselves
        if humans and any(e.status == "pending" for e in d.evidence):
            self._fulfil(path, d)
        for human in humans:
            state.seen[_key(human)] += 1
            self._answer(path, human)

    def _fulfil(self, path: Path, d: Discussion) -> None:
        """Fulfil the evidence requests a person saved (`evidence.fulfil_pending`)."""
        try:
            done = fulfil_pending(d)
        except DiscussionsError as exc:
            self.log(f"{path.name}: evidence not fulfilled: {exc}")
            return
        for line in done.lines():
            self.log(f"{path.name}: {line}")

    def _check_posted(self, path: Path, d: Discussion, state: _FileState) -> None:
        """Say so when an answer we posted is no longer in the file, and ask again."""
        if not state.posted:
            return
        present = Counter(_key(c) for c in d.comments)
        lost = [(k, alias) for k, alias in state.posted.items() if present[k] == 0]
        if not lost:
            return
        again: list[str] = []
        for key, alias in lost:
            del state.posted[key]
            if state.seen[key] > 0:
                state.seen[key] -= 1
            self.log(
                f"{path.name}: {key[0]}'s answer is gone from the file (an editor probably saved "
                "an older copy over it)"
            )
            if alias in {p.alias for p in d.pending_mentions}:
                again.append(alias)
        if not again:
            return
        if state.reasked >= self.max_chain:
            self.log(
                f"{path.name}: loop guard: not asking "
                + ", ".join("@" + a for a in again)
                + " again; run `discussions turn` by hand"
            )
            return
        state.reasked += 1
        self.log(f"{path.name}: asking " + ", ".join("@" + a for a in again) + " again")
        self._turn(path, d, again)

    def _answer(self, path: Path, human: Comment) -> None:
        registry = self.workspace.participants
        d = Discussion.load(path, self.workspace)
        mentioned = set(human.mentions)
        if "all" in mentioned:
            mentioned |= set(d.participants)
        targets = [
            p.alias for p in d.pending_mentions if p.alias in mentioned and p.alias in registry
        ]
        if not targets:
            if human.mentions:
                self.log(
                    f"{path.name}: {human.author} (line {human.line}) mentions no one "
                    "who still has to answer"
                )
            return
        self.log(
            f"{path.name}: {human.author} mentioned "
            + ", ".join("@" + t for t in targets)
            + f" (line {human.line}); running a turn"
        )
        for chain in range(1, self.max_chain + 1):
            self._turn(path, d, targets)
            d = Discussion.load(path, self.workspace)
            # Follow mentions the AI answers made of participants who have not answered.
            ai_pending = [
                p.alias
                for p in d.pending_mentions
                if p.alias in registry and registry.for_author(p.by) is not None
            ]
            if not ai_pending:
                return
            if chain == self.max_chain:
                self.log(
                    f"{path.name}: loop guard: stopped after {self.max_chain} AI turn(s) "
                    f"for {human.author}'s comment; still waiting: "
                    + ", ".join("@" + a for a in ai_pending)
                )
                return
            self.log(
                f"{path.name}: AI answers mentioned "
                + ", ".join("@" + a for a in ai_pending)
                + "; running a follow-up turn"
            )
            targets = ai_pending

    def _turn(self, path: Path, d: Discussion, aliases: Iterable[str]) -> None:
        state = self.files[path]
        before = Counter(_key(c) for c in d.comments)
        try:
            result = self.runner.run_turn(d, list(aliases), provider=self.provider)
        except DiscussionsError as exc:
            self.log(f"{path.name}: turn failed: {exc}")
            return
        self.turns_run += 1
        for o in result.outcomes:
            if o.status == "posted":
                vote = f", VOTE: {o.vote}" if o.vote else ""
                self.log(f"{path.name}: {o.name} posted via {o.provider} ({o.duration:.1f}s{vote})")
            elif o.status == "no_response":
                self.log(f"{path.name}: {o.name} had nothing to add")
            else:
                self.log(f"{path.name}: {o.name} got no answer: {o.error}")
        for change in result.changes:
            self.log(f"{path.name}: {change.kind} -> {change.target} ({change.reason})")
        # Mark our own appends as seen; a person's comment saved meanwhile stays new.
        after = Discussion.load(path, self.workspace).comments
        ours = {o.name: o.alias for o in result.outcomes if o.status == "posted"}
        for c in _new_comments(after, before):
            if c.author in ours:
                state.seen[_key(c)] += 1
                state.posted[_key(c)] = ours[c.author]


@dataclass(slots=True)
class WatchTargets:
    """What `Watcher.watch` watches: the folders to observe and the changes that matter."""

    folders: set[Path]
    """Every folder to observe (a file's folder, for a file named)."""
    files: set[Path]
    """The files named."""
    dirs: set[Path]
    """The folders named: each change of a file right in them matters."""

    def wants(self, path: Path) -> bool:
        """Whether a change of `path` (resolved) matters."""
        return path in self.files or path.parent in self.dirs


def observe(targets: WatchTargets, changes: queue.Queue[Path]) -> BaseObserver:
    """A started watchdog observer that puts on `changes` each file of `targets` created,
    modified, moved there or closed. Imports watchdog. Stop it with ``stop()`` and
    ``join()``."""
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.is_directory or event.event_type not in CHANGES:
                return
            raw = getattr(event, "dest_path", "") or event.src_path
            path = Path(os.fsdecode(raw)).resolve()
            if targets.wants(path):
                changes.put(path)

    import logging

    logging.getLogger("watchdog.observers.inotify").addFilter(_shutdown_race)
    observer = Observer()
    handler = Handler()
    for folder in sorted(targets.folders):
        observer.schedule(handler, str(folder), recursive=False)
    observer.start()
    return observer


def _shutdown_race(record: LogRecord) -> bool:
    """False for watchdog's "queue_events() called when the thread is inactive": logged when
    a stop races an event being read (harmless; the observer is stopping), which would
    otherwise reach the terminal after ``stopped``."""
    return "called when the thread is inactive" not in str(record.msg)


def _new_comments(comments: list[Comment], seen: Counter[tuple[str, str]]) -> list[Comment]:
    budget = Counter(seen)
    fresh = []
    for c in comments:
        k = _key(c)
        if budget[k] > 0:
            budget[k] -= 1
        else:
            fresh.append(c)
    return fresh
