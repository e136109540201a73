"""Re-trials: a decision's first ballot asked again of another provider or model, read back
from the ``RETRIAL`` blocks `discussions retrial` writes (docs/outcomes.md)::

    <!-- RETRIAL: claude | model: opus | phase: ballot | at: 2026-11-28T04:00:00Z
         | AI-Architect: READY -> CHANGES, the cache key ignores the tenant
         | AI-Security: CHANGES -> CHANGES, tokens still leak | AI-Pragmatist: READY -> failed,
         claude: timed out after 60 s -->

(on one line in the file). After the provider come its fields (``model``, ``phase``, ``at``),
then one field per voter: its first-ballot vote, ``->``, what the other model voted
(``READY``, ``CHANGES``, ``REJECT``; ``none`` when it answered without a vote, ``failed``
when the call failed), and after a comma why. A vote flips when the other model voted
otherwise; a failed call is recorded as failed, never counted as a vote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .state import State

RETRIAL = "retrial"
"""The kind of the engine block (`syntax.kinds`)."""

VOTES = ("READY", "CHANGES", "REJECT")
NONE = "none"
"""What a re-trial records for an answer without a vote."""
FAILED = "failed"
"""What a re-trial records for a call that got no answer."""
_FIELDS = ("model", "phase", "at")
_SEAT = re.compile(
    r"^(READY|CHANGES|REJECT)[ \t]*->[ \t]*(READY|CHANGES|REJECT|none|failed)\b(.*)$"
)


@dataclass(slots=True, frozen=True)
class RetrialVote:
    """One voter's first ballot asked again."""

    voter: str
    was: str
    """Its first-ballot vote in the deciding phase."""
    now: str
    """What the other provider voted: a vote, `NONE` or `FAILED`."""
    why: str = ""
    """The answer's reason (its first sentence), or why the call failed."""

    @property
    def flipped(self) -> bool:
        """Whether the other provider voted, and otherwise."""
        return self.now in VOTES and self.now != self.was

    def text(self) -> str:
        """``AI-Architect: READY -> CHANGES (why)``."""
        why = f" ({self.why})" if self.why else ""
        return f"{self.voter}: {self.was} -> {self.now}{why}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "voter": self.voter,
            "was": self.was,
            "now": self.now,
            "why": self.why,
            "flipped": self.flipped,
            "failed": self.now == FAILED,
        }


@dataclass(slots=True)
class Retrial:
    """One ``RETRIAL`` block."""

    provider: str
    line: int
    model: str = ""
    phase: str = ""
    at: str = ""
    votes: list[RetrialVote] = field(default_factory=list)

    @property
    def flips(self) -> list[RetrialVote]:
        return [v for v in self.votes if v.flipped]

    @property
    def failed(self) -> list[RetrialVote]:
        return [v for v in self.votes if v.now == FAILED]

    def on(self) -> str:
        """``claude`` or ``claude (model opus)``."""
        return self.provider + (f" (model {self.model})" if self.model else "")

    def headline(self) -> str:
        """``Re-trial on claude (model opus), line 80: 1 of 3 first-ballot votes would flip
        (AI-Architect READY -> CHANGES); 1 call failed``."""
        return f"Re-trial on {self.on()}, line {self.line}: {tally(self.votes)}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model or None,
            "phase": self.phase,
            "at": self.at or None,
            "line": self.line,
            "votes": [v.to_dict() for v in self.votes],
            "flips": len(self.flips),
            "failed": len(self.failed),
        }


def tally(votes: list[RetrialVote], *, named: bool = True) -> str:
    """What a re-trial found, said the same by `status`, the block's visible line and the
    command: ``1 of 2 first-ballot votes would flip (AI-Architect READY -> CHANGES); 1 call
    failed`` (the flips `named`), or ``no answer; 3 calls failed``. A failed call is no vote:
    it is not counted among those that could flip."""
    flips = [v for v in votes if v.flipped]
    failed = sum(1 for v in votes if v.now == FAILED)
    asked = len(votes) - failed
    noun = "vote" if asked == 1 else "votes"
    text = f"{len(flips)} of {asked} first-ballot {noun} would flip" if asked else "no answer"
    if flips and named:
        text += " (" + "; ".join(f"{v.voter} {v.was} -> {v.now}" for v in flips) + ")"
    if failed:
        text += f"; {failed} call{'s' if failed != 1 else ''} failed"
    return text


def read_retrial(args: str, line: int) -> tuple[Retrial, list[str]]:
    """The re-trial a block's arguments record, and what is wrong with them (empty: nothing).
    Keys keep their case: the voters' fields are named by them."""
    provider, _, rest = args.partition("|")
    found = Retrial(provider.strip(), line)
    problems = [] if found.provider else ["it names no provider"]
    for part in rest.split("|"):
        key, sep, value = part.partition(":")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            problems.append(f"`{part.strip()}` is no field")
        elif key in _FIELDS:
            setattr(found, key, value)
        else:
            seat = _SEAT.match(value)
            if seat is None:
                problems.append(f"{key}'s `{value}` is not VOTE -> VOTE, none or failed")
                continue
            why = seat.group(3).strip().lstrip(",").strip()
            found.votes.append(RetrialVote(key, seat.group(1), seat.group(2), why))
    if not found.votes and not problems:
        problems.append("it records no voter")
    return found, problems


def rule_retrials(s: State) -> None:
    """`State.retrials`: every ``RETRIAL`` block, in file order; a malformed one is reported
    with its line and kept with what could be read."""
    for m in s.doc.engine_markers:
        if m.kind != RETRIAL:
            continue
        found, problems = read_retrial(m.target, m.line)
        for problem in problems:
            s.warn(m.line, f"malformed RETRIAL block: {problem}", "error")
        if found.provider and found.votes:
            s.retrials.append(found)
