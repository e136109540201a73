"""What a turn produces: each participant's outcome, what the council did with a motion, the
turn's result, the events a display follows (streamed text as "latest line" reports:
`stream_reporter`), and the engine blocks that record a pass; shared by the runner, the
council and the interfaces that show them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import NOT_A_CALL
from ...providers.usage import UNKNOWN, Usage
from ...syntax.record import Record
from ...syntax.render import visible_name

if TYPE_CHECKING:
    from . import phases


# The records below are slotted `Record`s, not dataclasses: making a dataclass costs ~0.3 ms of
# every turn's start, before its first call.


class Attempt(Record):
    """A provider that failed for a participant."""

    __slots__ = ("provider", "reason", "detail")
    provider: str
    reason: str
    detail: str

    def __init__(self, provider: str, reason: str, detail: str = "") -> None:
        self.provider = provider
        self.reason = reason
        self.detail = detail

    def to_dict(self) -> dict[str, str]:
        return {"provider": self.provider, "reason": self.reason, "detail": self.detail}


class ParticipantOutcome(Record):
    """What happened to one participant in a turn."""

    __slots__ = (
        "alias", "name", "status", "provider", "attempts", "duration", "vote", "notes",
        "mock_fallback", "usage", "stand_in", "vote_from_follow_up", "truncated", "length_cut",
    )  # fmt: skip
    alias: str
    name: str
    status: str
    """``posted``, ``no_response`` or ``failed``."""
    provider: str | None
    """The provider that answered."""
    attempts: list[Attempt]
    """Providers that failed before (or instead of) an answer."""
    duration: float
    """Seconds from the first provider call to the answer."""
    vote: str | None
    notes: list[str]
    mock_fallback: bool
    """No configured provider was installed, so the mock answered."""
    usage: Usage
    """Tokens and cost the answering provider reported (all None when it did not)."""
    stand_in: bool
    """The mock answered after a provider of the chain that could run failed: its vote is not
    counted (`failures.answered_line`)."""
    vote_from_follow_up: bool
    """The vote (or score) came from the one-line follow-up (`followup`)."""
    truncated: bool
    """The answer was cut to the length limit (`followup.cap_answer`)."""
    length_cut: str
    """The model was stopped at its token limit (`Completion.length_cut`: ``max_tokens
    400``); empty when its answer ended on its own, or the provider does not say."""

    def __init__(
        self,
        alias: str,
        name: str,
        status: str = "failed",
        provider: str | None = None,
        attempts: list[Attempt] | None = None,
        duration: float = 0.0,
        vote: str | None = None,
        notes: list[str] | None = None,
        mock_fallback: bool = False,
        usage: Usage = UNKNOWN,
        stand_in: bool = False,
        vote_from_follow_up: bool = False,
        truncated: bool = False,
        length_cut: str = "",
    ) -> None:
        self.alias = alias
        self.name = name
        self.status = status
        self.provider = provider
        self.attempts = [] if attempts is None else attempts
        self.duration = duration
        self.vote = vote
        self.notes = [] if notes is None else notes
        self.mock_fallback = mock_fallback
        self.usage = usage
        self.stand_in = stand_in
        self.vote_from_follow_up = vote_from_follow_up
        self.truncated = truncated
        self.length_cut = length_cut

    @property
    def error(self) -> str:
        return "; ".join(
            f"{a.provider}: {a.reason}" + (f" ({a.detail})" if a.detail else "")
            for a in self.attempts
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "alias": self.alias,
            "name": self.name,
            "status": self.status,
            "provider": self.provider,
            "vote": self.vote,
            "duration": round(self.duration, 3),
            "attempts": [a.to_dict() for a in self.attempts],
            "notes": list(self.notes),
            "mock_fallback": self.mock_fallback,
            "stand_in": self.stand_in,
            "vote_from_follow_up": self.vote_from_follow_up,
            "truncated": self.truncated,
            "length_cut": self.length_cut,
            "usage": {
                "input_tokens": self.usage.input_tokens,
                "output_tokens": self.usage.output_tokens,
                "cost_usd": self.usage.cost_usd,
            },
        }


class MotionOutcome(Record):
    """What `handle_motion` did."""

    __slots__ = (
        "line", "text", "stage", "seconded_by", "ballots", "counts", "waiting_for",
        "advanced_to", "asked",
    )  # fmt: skip
    line: int
    """The motion's line."""
    text: str
    stage: str
    """``lapsed``, ``passed``, ``failed`` (recorded), or ``waiting`` (ballots still due)."""
    seconded_by: list[str]
    ballots: dict[str, str]
    counts: dict[str, int]
    waiting_for: list[str]
    """Required voters without a ballot (people, or participants whose providers failed)."""
    advanced_to: str | None
    """The phase a passed motion moved the discussion to."""
    asked: list[ParticipantOutcome]
    """The participants asked to second or to ballot, and how it went."""

    def __init__(
        self,
        line: int,
        text: str,
        stage: str,
        seconded_by: list[str] | None = None,
        ballots: dict[str, str] | None = None,
        counts: dict[str, int] | None = None,
        waiting_for: list[str] | None = None,
        advanced_to: str | None = None,
        asked: list[ParticipantOutcome] | None = None,
    ) -> None:
        self.line = line
        self.text = text
        self.stage = stage
        self.seconded_by = [] if seconded_by is None else seconded_by
        self.ballots = {} if ballots is None else ballots
        self.counts = {} if counts is None else counts
        self.waiting_for = [] if waiting_for is None else waiting_for
        self.advanced_to = advanced_to
        self.asked = [] if asked is None else asked

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "text": self.text,
            "stage": self.stage,
            "seconded_by": list(self.seconded_by),
            "ballots": dict(self.ballots),
            "counts": dict(self.counts),
            "waiting_for": list(self.waiting_for),
            "advanced_to": self.advanced_to,
            "asked": [o.to_dict() for o in self.asked],
        }


class TurnResult(Record):
    """The result of `Runner.run_turn`."""

    __slots__ = (
        "file", "outcomes", "changes", "phase", "status", "votes", "consensus", "warnings",
        "motion", "budget_stop", "evidence", "follow_ups",
    )  # fmt: skip
    file: str
    outcomes: list[ParticipantOutcome]
    changes: list[phases.AutoAdvance]
    """Phase or status changes applied after the turn."""
    phase: str
    status: str
    votes: dict[str, str]
    consensus: dict[str, Any]
    warnings: list[str]
    """Problems after the answers were written (a summary that could not be rebuilt)."""
    motion: MotionOutcome | None
    """What the council did with an open motion after the answers (`MotionOutcome`)."""
    budget_stop: str | None
    """Why the turn stopped before a call: the budget would be exceeded (see `usage`)."""
    evidence: list[dict[str, Any]]
    """The evidence blocks the turn appended (`evidence.Fulfilled.to_dict`)."""
    follow_ups: list[str]
    """Aliases asked once more because a request of theirs was fulfilled during the turn."""

    def __init__(
        self,
        file: str,
        outcomes: list[ParticipantOutcome] | None = None,
        changes: list[phases.AutoAdvance] | None = None,
        phase: str = "",
        status: str = "",
        votes: dict[str, str] | None = None,
        consensus: dict[str, Any] | None = None,
        warnings: list[str] | None = None,
        motion: MotionOutcome | None = None,
        budget_stop: str | None = None,
        evidence: list[dict[str, Any]] | None = None,
        follow_ups: list[str] | None = None,
    ) -> None:
        self.file = file
        self.outcomes = [] if outcomes is None else outcomes
        self.changes = [] if changes is None else changes
        self.phase = phase
        self.status = status
        self.votes = {} if votes is None else votes
        self.consensus = {} if consensus is None else consensus
        self.warnings = [] if warnings is None else warnings
        self.motion = motion
        self.budget_stop = budget_stop
        self.evidence = [] if evidence is None else evidence
        self.follow_ups = [] if follow_ups is None else follow_ups

    @property
    def no_answer(self) -> bool:
        """Every participant of the turn was asked and none got an answer."""
        return bool(self.outcomes) and all(o.status == "failed" for o in self.outcomes)

    @property
    def posted(self) -> list[ParticipantOutcome]:
        return [o for o in self.outcomes if o.status == "posted"]

    @property
    def failed(self) -> list[ParticipantOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "participants": [o.to_dict() for o in self.outcomes],
            "posted": len(self.posted),
            "failed": len(self.failed),
            "changes": [
                {"kind": c.kind, "target": c.target, "reason": c.reason} for c in self.changes
            ],
            "phase": self.phase,
            "status": self.status,
            "votes": dict(self.votes),
            "consensus": dict(self.consensus),
            "warnings": list(self.warnings),
            "motion": self.motion.to_dict() if self.motion is not None else None,
            "budget_stop": self.budget_stop,
            "evidence": list(self.evidence),
            "follow_ups": list(self.follow_ups),
        }


class TurnEvent(Record):
    """Progress reported while a turn runs."""

    __slots__ = ("kind", "alias", "name", "provider", "message", "outcome", "remaining", "text")
    kind: str
    """``start`` (asking a provider; for the mock answering because no AI CLI of the chain is
    installed, `message` is the one-line note saying so), ``chunk`` (streamed text: `message`
    is the latest line, `text` all streamed so far from this provider), ``attempt_failed``, or
    ``done``."""
    alias: str
    name: str
    provider: str | None
    message: str
    outcome: ParticipantOutcome | None
    remaining: int
    """For ``attempt_failed``: how many providers are left to try in the chain."""
    text: str
    """For ``chunk``: everything this provider has streamed so far."""

    def __init__(
        self,
        kind: str,
        alias: str,
        name: str,
        provider: str | None = None,
        message: str = "",
        outcome: ParticipantOutcome | None = None,
        remaining: int = 0,
        text: str = "",
    ) -> None:
        self.kind = kind
        self.alias = alias
        self.name = name
        self.provider = provider
        self.message = message
        self.outcome = outcome
        self.remaining = remaining
        self.text = text


# -- streamed text as progress: a provider streams its answer in pieces of any size (a line may
# arrive in several pieces, a piece may hold several lines); `stream_reporter` keeps what was
# streamed so far and reports the latest non-blank line (a partial one counts: it is what the
# provider is writing now).

_MAX_STREAM_KEEP = 256 * 1024
"""Characters of streamed text kept for display; the answer itself is collected elsewhere."""


def latest_line(text: str) -> str:
    """The last non-blank line of `text`, stripped ("" if there is none)."""
    for line in reversed(text[-4096:].splitlines()):
        if line.strip():
            return line.strip()
    return ""


def stream_reporter(report: Callable[[str, str], None]) -> Callable[[str], None]:
    """An `on_output` callback that reports ``(latest line, text so far)`` for each piece."""
    parts: list[str] = []
    size = [0]

    def on_output(piece: str) -> None:
        if not piece:
            return
        parts.append(piece)
        size[0] += len(piece)
        if size[0] > _MAX_STREAM_KEEP:
            joined = "".join(parts)[-_MAX_STREAM_KEEP:]
            parts[:] = [joined]
            size[0] = len(joined)
        text = "".join(parts) if len(parts) > 1 else parts[0]
        if len(parts) > 1:
            parts[:] = [text]
        report(latest_line(text), text)

    return on_output


def length_cut_note(limit: str) -> str:
    """The visible line under an answer the model was stopped in at its token `limit`."""
    return f"*[Answer cut by the token limit ({limit}): the model had not finished.]*"


def render_pass(name: str, meta: Sequence[str] = ()) -> str:
    """The block recording that `name` passed (had nothing to add): an engine marker the parser
    reads back, with `meta` (``key: value`` parts: the call's provider and usage, and ``at``,
    when it was written: the merge driver orders by it), and a line a reader sees."""
    clean = clean_field(name)
    args = " | ".join([clean, *(clean_meta(part) for part in meta)])
    return f"<!-- PASS: {args} -->\n\n*{visible_name(clean)} passed: nothing to add.*\n"


def usage_meta(outcome: ParticipantOutcome) -> list[str]:
    """``provider: ...`` and, but for the mock, the usage it reported (``tokens``, ``cost``)."""
    parts = [f"provider: {outcome.provider}"]
    if outcome.provider != "mock":
        parts.extend(outcome.usage.meta_parts())
    return parts


def clean_field(text: str) -> str:
    """`text` as a field of an engine marker: one line, no ``|``, no ``-->``."""
    return " ".join(text.replace("-->", "->").replace("|", "/").split())


def clean_meta(text: str) -> str:
    return clean_field(text)[:160]


def outcome_text(o: ParticipantOutcome) -> str:
    """One line about a participant's outcome (plain output and the error summary)."""
    if o.status == "posted":
        vote = f", VOTE: {o.vote}" if o.vote else ""
        failed = _failures(o) if not o.mock_fallback else ""  # the note said why the mock answered
        via = f"{o.provider} after {failed} failed" if failed else f"{o.provider}"
        cut = f", cut at its token limit ({o.length_cut})" if o.length_cut else ""
        return f"posted via {via} in {o.duration:.1f}s{vote}{cut}"
    if o.status == "no_response":
        return f"nothing to add ({o.provider}, {o.duration:.1f}s)"
    return "failed: " + o.error


def _failures(o: ParticipantOutcome) -> str:
    """The providers that were called and failed (one not installed made no call: it is said
    once per command, not in every participant's line)."""
    return ", ".join(a.provider for a in o.attempts if not a.reason.startswith(NOT_A_CALL))
