"""The minority report's records: who stands against where the discussion ended, why, and the
concerns nobody answered. One rule (`minority.rule_dissent`) answers "who dissents and why"
for every view (the ADR, the hand-off, the exports, the decision ledger), so a decision
recorded over dissent says so wherever it is read.

* **Votes.** Each voter whose current vote (`State.votes`: the latest since the last reset) is
  ``CHANGES`` or ``REJECT``; and, for each motion that passed (a decision), each council seat
  whose ballot was ``NO`` or ``ABSTAIN``. The reason is the voter's last comment carrying that
  vote or ballot, its own words without the marker lines, trimmed to two sentences.
* **Concerns.** Each ``CONCERN:`` (restatements folded, `restatements`) never answered. A
  concern is answered when, after it was last said, someone else replies to it: a comment that
  mentions its author (``@alias``) or quotes it (a ``>`` line holding its words); or its author
  votes ``READY`` afterwards (the voice that raised it is satisfied).
* **Reservations.** A ``CONCERN:`` never answered whose author voted ``READY`` in the very
  comment that (last) said it, and still does: the voter's own reservation. It is kept in the
  report, as a reservation, but it is no dissent: a decision recorded with reservations only
  is not "recorded over dissent", and they are not counted among the unanswered concerns.
  Once its author votes against, it is an unanswered concern like any other.
"""

from __future__ import annotations

from typing import Any

from ..syntax.record import Record


class DissentingVote(Record):
    """A voice against the outcome: its vote (or ballot), its last reason, where."""

    __slots__ = ("name", "vote", "reason", "line")
    name: str
    vote: str
    """``CHANGES``, ``REJECT``; or, on a passed motion, ``NO`` or ``ABSTAIN``."""
    reason: str
    """The words of the last comment carrying the vote, two sentences at most ("" if none)."""
    line: int
    """The ``Name:`` line of that comment."""

    def __init__(
        self,
        name: str,
        vote: str,
        reason: str,
        line: int,
    ) -> None:
        self.name = name
        self.vote = vote
        self.reason = reason
        self.line = line

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "vote": self.vote, "reason": self.reason, "line": self.line}


class Concern(Record):
    """A ``CONCERN:``: who raised it, its text, its line (one nobody answered, in the minority
    report; a blocker of a draft or of an applied change, in the documentation loop and the
    conformance review)."""

    __slots__ = ("by", "text", "line")
    by: str
    text: str
    line: int

    def __init__(
        self,
        by: str,
        text: str,
        line: int,
    ) -> None:
        self.by = by
        self.text = text
        self.line = line

    def to_dict(self) -> dict[str, Any]:
        return {"by": self.by, "text": self.text, "line": self.line}


class Dissent(Record):
    """The minority report of a discussion: empty when nobody dissents."""

    __slots__ = ("votes", "concerns", "reservations")
    votes: list[DissentingVote]
    concerns: list[Concern]
    reservations: list[Concern]
    """Concerns raised beside a READY vote and never answered (see the module docstring)."""

    def __init__(
        self,
        votes: list[DissentingVote] | None = None,
        concerns: list[Concern] | None = None,
        reservations: list[Concern] | None = None,
    ) -> None:
        self.votes = [] if votes is None else votes
        self.concerns = [] if concerns is None else concerns
        self.reservations = [] if reservations is None else reservations

    def __bool__(self) -> bool:
        return bool(self.votes or self.concerns or self.reservations)

    @property
    def dissents(self) -> bool:
        """Whether anyone dissents (a vote against, a concern unanswered), reservations aside."""
        return bool(self.votes or self.concerns)

    def headline(self) -> str:
        """One line for where a decision is read: ``Recorded over dissent: REJECT from Bo; 1
        unanswered concern (Cy).``; with concerns alone, ``Recorded with 1 unanswered concern
        (Cy).``; a sentence more for reservations, ``1 reservation from a READY voter (Di).``
        ("" when the report is empty)."""
        parts = [f"{v.vote} from {v.name}" for v in self.votes]
        if self.concerns:
            who = ", ".join(dict.fromkeys(c.by for c in self.concerns))
            n = len(self.concerns)
            parts.append(f"{n} unanswered concern{'s' if n > 1 else ''} ({who})")
        said = []
        if parts:
            lead = "Recorded over dissent: " if self.votes else "Recorded with "
            said.append(lead + "; ".join(parts) + ".")
        if self.reservations:
            said.append(("Recorded with " if not said else "") + self._kept() + ".")
        return " ".join(said)

    def _kept(self) -> str:
        """``2 reservations from READY voters (Di, Ed)``."""
        n = len(self.reservations)
        who = ", ".join(dict.fromkeys(c.by for c in self.reservations))
        kept = (
            "1 reservation from a READY voter" if n == 1 else f"{n} reservations from READY voters"
        )
        return f"{kept} ({who})"

    def lines(self) -> list[str]:
        """The report as markdown list lines, votes, concerns, then reservations."""
        out = []
        for v in self.votes:
            why = f": {v.reason}" if v.reason else ""
            out.append(f"- {v.name} voted {v.vote} (line {v.line}){why}")
        out += [
            f"- Unanswered concern from {c.by} (line {c.line}): {c.text}" for c in self.concerns
        ]
        out += [
            f"- Reservation from {c.by}, voting READY (line {c.line}): {c.text}"
            for c in self.reservations
        ]
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "votes": [v.to_dict() for v in self.votes],
            "concerns": [c.to_dict() for c in self.concerns],
            "reservations": [c.to_dict() for c in self.reservations],
        }
