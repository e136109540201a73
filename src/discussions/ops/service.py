"""The operations the MCP server and the web server both offer, as plain methods.

`DiscussionTools` wraps the library for a long-running server: each method takes a file name,
loads the discussion afresh (the file is the state), does one thing and returns a JSON-ready
dict, raising `DiscussionsError` with the message the CLI would print. Turns and runs go to a
background thread and are tracked by a ticket (`TurnJob`); observers registered with
`observe` hear every step of them (streamed text included) as it happens.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..derive.signatures import strip_meta
from ..errors import Busy, DiscussionsError, NotDecided, UntrustedProvider
from ..model.discussion import Discussion
from ..settings.workspace import Workspace, display_path, shorten
from ..views.evidence import evidence_for_reader, fold_evidence
from ..views.status import status_of

if TYPE_CHECKING:
    from ..engine.council.deliberation import RoundEvent
    from ..engine.turn.outcomes import TurnEvent

MAX_WAIT = 45.0
"""Longest `turn_result` waits, in seconds."""
_MAX_COMMENTS = 50
"""Most comments `read_discussion` returns."""
_MAX_CHARS = 200_000
"""Most characters of comment text `read_discussion` returns."""
_MAX_FINISHED_JOBS = 200
"""Finished tickets kept for `turn_result`; older ones are forgotten first."""


Observer = Callable[["TurnJob", str, dict[str, Any]], None]
"""Called (from the job's thread) with the job, a step name and its data. Steps:
``turn-start``, ``answer-start``, ``chunk`` (``text`` is what is new since the last chunk),
``attempt-failed``, ``answer``, ``round``, ``turn-end``."""


@dataclass(slots=True)
class TurnJob:
    """One turn or run going on (or over) in the background."""

    ticket: str
    """What `turn_result` is asked with."""
    file: str
    """The discussion file, as shown to the caller."""
    expected: list[str]
    """Aliases of the participants asked."""
    kind: str = "turn"
    """``turn`` or ``run``."""
    path: Path | None = None
    """The discussion file (observers use it to tell discussions apart)."""
    events: list[dict[str, Any]] = field(default_factory=list)
    """Progress so far: one entry per step (streamed chunks are not kept)."""
    result: dict[str, Any] | None = None
    """`TurnResult.to_dict()` (`RunResult.to_dict()` for a run) once it is over."""
    error: str | None = None
    """The message when it raised instead of finishing."""
    done: threading.Event = field(default_factory=threading.Event)
    observers: list[Observer] = field(default_factory=list)
    _streamed: dict[str, int] = field(default_factory=dict)

    def record(self, event: TurnEvent) -> None:
        """A runner event: kept in `events` (chunks excepted) and passed to the observers."""
        entry: dict[str, Any] = {"kind": event.kind, "participant": event.alias}
        if event.provider:
            entry["provider"] = event.provider
        if event.kind == "chunk":
            # Observers get only what is new: the runner reports all text so far each time.
            key = f"{event.alias}:{event.provider}"
            seen = self._streamed.get(key, 0)
            if len(event.text) < seen:  # the provider restarted its answer (a fallback)
                seen = 0
            self._streamed[key] = len(event.text)
            entry.update(name=event.name, text=event.text[seen:], offset=seen)
            self._tell("chunk", entry)
            return
        if event.message:
            entry["message"] = event.message
        self.events.append(entry)
        if event.kind == "start":
            self._streamed.pop(f"{event.alias}:{event.provider}", None)
            self._tell("answer-start", {**entry, "name": event.name})
        elif event.kind == "attempt_failed":
            self._tell("attempt-failed", {**entry, "name": event.name, "left": event.remaining})
        elif event.kind == "done":
            o = event.outcome
            status = o.status if o is not None else "failed"
            error = (o.error or "no answer") if o is not None and status == "failed" else None
            outcome = o.to_dict() if o is not None else {}
            self._tell(
                "answer",
                {**entry, "name": event.name, "status": status, "error": error, "outcome": outcome},
            )

    def record_round(self, event: RoundEvent) -> None:
        """A run's round event: kept and passed on (``round``; the stop is in the result)."""
        if event.kind != "round":
            return
        entry = {"kind": "round", "round": event.round, "phase": event.phase}
        entry["order"] = list(event.order)
        self.events.append(entry)
        self._tell("round", entry)

    def start(self) -> None:
        """Tell the observers the turn (or run) has started."""
        data = {"kind": self.kind, "participants": self.expected, "file": self.file}
        self._tell("turn-start", data)

    def finish(self) -> None:
        self.done.set()
        self._tell("turn-end", self.to_dict())

    def _tell(self, step: str, data: dict[str, Any]) -> None:
        for observer in self.observers:
            try:
                observer(self, step, {"ticket": self.ticket, **data})
            except Exception:  # an observer's failure must not stop the turn
                pass

    @property
    def state(self) -> str:
        if not self.done.is_set():
            return "running"
        return "failed" if self.error else "done"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ticket": self.ticket,
            "kind": self.kind,
            "file": self.file,
            "state": self.state,
            "participants": list(self.expected),
            "progress": list(self.events),
        }
        if self.result is not None:
            out["result"] = self.result
        if self.error is not None:
            out["error"] = self.error
        return out


class DiscussionTools:
    """The operations as plain methods. `workspace` is discovered from the current folder
    unless given."""

    def __init__(self, workspace: Workspace | None = None) -> None:
        self._workspace = workspace
        self._jobs: dict[str, TurnJob] = {}
        self._tickets = itertools.count(1)
        self._lock = threading.Lock()
        self._observers: list[Observer] = []

    @property
    def workspace(self) -> Workspace:
        if self._workspace is None:
            self._workspace = Workspace.discover()
        return self._workspace

    def observe(self, observer: Observer) -> None:
        """Hear every step of the turns and runs started from now on."""
        self._observers.append(observer)

    def served(self, file: str) -> Path:
        """The discussion file `file` names: only one in the discussions folder, never a path
        elsewhere nor a link out of the project (`catalog.served_path`). What a server's
        client names goes through this before any operation is given it."""
        from ..model.catalog import served_path

        return served_path(file, self.workspace)

    def _load(self, file: str) -> Discussion:
        return Discussion.load(self.served(file), self.workspace)

    def discussion_files(self) -> list[Path]:
        """The discussion files in the discussions folder that `_load` opens."""
        from ..model.catalog import discussion_paths

        return discussion_paths(self.workspace)

    def check_provider(self, name: str | None) -> str | None:
        """A provider a server's client names (an agent over MCP, a page over HTTP): one
        configured and trusted, else `UnknownProvider` / `UntrustedProvider`. A replay
        (``replay:PATH``) reads the file it names, so it is for the command line only. The
        one rule for every server; None and "" mean the participants' own providers."""
        from ..providers.registry import ProviderRegistry
        from ..providers.replay import PREFIX as REPLAY_PREFIX

        if not name:
            return None
        registry = ProviderRegistry.load(self.workspace.config.base_dir)
        if name.startswith(REPLAY_PREFIX) and name not in registry.specs:
            raise UntrustedProvider(
                shorten(name),
                "a replay reads the file it names, so it is for the command line only, "
                "not for the MCP server or the web API",
                "name a configured provider (see `discussions providers list`)",
            )
        registry.get(name)
        return name

    def list_discussions(self, status: str | None = None) -> list[dict[str, Any]]:
        from ..model.catalog import list_discussions

        return list_discussions(self.workspace, status=status)[0]

    def discussion_status(self, file: str) -> dict[str, Any]:
        from .grounds import resolve

        return status_of(resolve(self._load(file)))

    def handoff(self, file: str) -> dict[str, Any]:
        """The hand-off of a decided discussion: the lead's instruction text and the JSON
        artifact, approval ``pending``. Starts nothing: an apply needs a person's consent,
        which only the command line asks for. `NotDecided` for an undecided discussion."""
        from ..model.handoff import build_handoff, handoff_refusal

        d = self._load(file)
        h = build_handoff(d)
        if not h.decided:  # nothing here can override it
            raise NotDecided(handoff_refusal(d))
        data = h.to_dict()
        data["file"] = display_path(d.path)
        return {"text": h.to_prompt(), "handoff": data}

    def read_discussion(
        self, file: str, comments: int = 10, max_chars: int = 20_000
    ) -> dict[str, Any]:
        d = self._load(file)
        count = max(0, min(comments, _MAX_COMMENTS))
        budget = max(0, min(max_chars, _MAX_CHARS))
        all_comments = d.comments
        newest = all_comments[-count:] if count else []
        shown: list[dict[str, Any]] = []
        truncated = False
        # Newest first: an older comment that does not fit is left out whole; only the newest
        # one is ever cut short.
        for c in reversed(newest):
            body = fold_evidence(strip_meta(c.body)).strip("\n")  # `at` says when
            if len(body) > budget:
                truncated = True
                if shown:
                    break
                body = body[:budget]
            budget -= len(body)
            at = c.to_dict()["at"]
            shown.append(
                {"author": c.author, "line": c.line, "vote": c.vote, "at": at, "text": body}
            )
        shown.reverse()
        return {
            "file": display_path(d.path),
            "title": d.title,
            "phase": d.phase,
            "status": d.status,
            "participants": list(d.participants),
            "votes": dict(d.votes),
            "total_comments": len(all_comments),
            "comments": shown,
            "truncated": truncated,
            "evidence": evidence_for_reader(d, budget),
        }

    def start_turn(
        self,
        file: str,
        participants: list[str] | None = None,
        callout: str | None = None,
        provider: str | None = None,
        sequential: bool = False,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Ask AI participants in the background (`ops.turns.turn`); returns the ticket's
        state at once."""
        from .turns import turn

        provider = self.check_provider(provider)
        path = self.served(file)
        aliases = list(participants or [])
        act = functools.partial(
            turn, self.workspace, path, aliases, callout=callout, provider=provider,
            sequential=sequential, timeout=timeout,
        )  # fmt: skip

        def work(job: TurnJob) -> dict[str, Any]:
            return act(on_event=job.record).to_dict()

        return self._start(path, aliases, "turn", work)

    def start_run(
        self,
        file: str,
        participants: list[str] | None = None,
        rounds: int | None = None,
        callout: str | None = None,
        provider: str | None = None,
        sequential: bool = False,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Run rounds until a stop condition (`ops.turns.run`, as `discussions run`) in the
        background."""
        from .turns import check_rounds, run

        check_rounds(rounds)
        provider = self.check_provider(provider)
        path = self.served(file)
        aliases = list(participants or [])
        act = functools.partial(
            run, self.workspace, path, aliases, rounds=rounds, callout=callout,
            provider=provider, sequential=sequential, timeout=timeout,
        )  # fmt: skip

        def work(job: TurnJob) -> dict[str, Any]:
            return act(on_event=job.record, on_round=job.record_round).to_dict()

        return self._start(path, aliases, "run", work)

    def _start(
        self,
        path: Path,
        aliases: Sequence[str],
        kind: str,
        work: Callable[[TurnJob], dict[str, Any]],
    ) -> dict[str, Any]:
        from .turns import asked

        council = kind == "run"  # a run's rounds ask the council and the mentioned
        expected = [p.alias for p in asked(self.workspace, path, aliases, council=council)]
        path = path.resolve()
        with self._lock:
            for other in self._jobs.values():
                if other.path == path and not other.done.is_set():
                    raise Busy(
                        f"{other.kind} {other.ticket} is still going on in {other.file}; "
                        "wait for it to finish"
                    )
            ticket = f"{kind}-{next(self._tickets)}"
            job = TurnJob(ticket, display_path(path), expected, kind, path)
            job.observers = list(self._observers)
            self._jobs[ticket] = job
            self._forget_old()
        job.start()

        def target() -> None:
            try:
                job.result = work(job)
            except DiscussionsError as exc:
                job.error = str(exc)
            except Exception as exc:  # a crash must still end the ticket, not leave it running
                job.error = f"the {kind} failed: {type(exc).__name__}: {exc}"
            finally:
                job.finish()

        started = job.to_dict()  # as it starts: a fast turn may be over before we return
        threading.Thread(target=target, name=f"discussions-{ticket}", daemon=True).start()
        return started

    def _forget_old(self) -> None:
        finished = [t for t, j in self._jobs.items() if j.done.is_set()]
        for ticket in finished[: max(0, len(finished) - _MAX_FINISHED_JOBS)]:
            del self._jobs[ticket]

    def job(self, ticket: str) -> TurnJob:
        job = self._jobs.get(ticket)
        if job is None:
            known = ", ".join(self._jobs) or "none"
            raise DiscussionsError(f"no turn with ticket {ticket!r} (known: {known})")
        return job

    def turn_result(self, ticket: str, wait: float = 20.0) -> dict[str, Any]:
        job = self.job(ticket)
        job.done.wait(max(0.0, min(wait, MAX_WAIT)))
        return job.to_dict()

    def markdown(self, name: str) -> str:
        """The text of discussion `name` (a file name in the discussions folder)."""
        return self._load(name).text
