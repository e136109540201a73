"""Honest verdicts, read from a discussion's state: the debate delta of a ``consensus_mode:
vote_first`` phase (its sealed first ballot against the votes as they stand) and what a
prompt says of it. The per-file state they read (positions and flips, the first ballot, the
phase rules) is derived by rules (`derive.ballots`).

* ``vote_first``: until every expected voter has voted in the phase (its first ballot), the
  phase is blind: each prompt holds the context and the participant's own comments only, so
  no prompt holds another's ballot. Then the discussion debates the contested items; the
  debate delta compares the first ballot's majority with the votes as they stand.
* ``flip_threshold: N``: once more than N flips of the discussion cite nothing new, the
  phase is anonymous from then on (other authors become "Participant A/B/...").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..derive.ballots import VOTE_FIRST
from ..syntax.record import Record

if TYPE_CHECKING:
    from .discussion import Discussion


def majority(votes: Mapping[str, str]) -> str | None:
    """The vote most voters hold; ``tie`` when two lead; None without votes."""
    ranked = Counter(votes.values()).most_common()
    if not ranked:
        return None
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return "tie"
    return ranked[0][0]


class _DebateDelta(Record):
    """What the debate after a sealed first ballot changed. (A slotted `Record`: a turn loads
    this module before its first call, and making a dataclass costs ~0.3 ms.)"""

    __slots__ = ("first", "final", "complete")
    first: dict[str, str]
    """Each voter's first-ballot vote."""
    final: dict[str, str]
    """The votes as they stand."""
    complete: bool
    """Whether every expected voter has cast its first ballot."""

    def __init__(
        self,
        first: dict[str, str] | None = None,
        final: dict[str, str] | None = None,
        complete: bool = False,
    ) -> None:
        self.first = {} if first is None else first
        self.final = {} if final is None else final
        self.complete = complete

    @property
    def first_majority(self) -> str | None:
        return majority(self.first)

    @property
    def final_majority(self) -> str | None:
        return majority(self.final)

    @property
    def changed(self) -> bool:
        return self.complete and self.first_majority != self.final_majority

    @property
    def moved(self) -> list[str]:
        """``Name: CHANGES -> READY`` for each voter whose vote differs from its ballot."""
        return [
            f"{who}: {vote} -> {self.final[who]}"
            for who, vote in self.first.items()
            if who in self.final and self.final[who] != vote
        ]

    def text(self) -> str:
        """The line `status` shows."""
        if not self.complete:
            return f"Debate delta: first ballot open ({len(self.first)} cast, sealed)"
        verdict = "changed" if self.changed else "did not change"
        line = (
            f"Debate delta: first ballot {self.first_majority} -> now {self.final_majority}: "
            f"debate {verdict} the first-round majority"
        )
        return line + (f" ({'; '.join(self.moved)})" if self.moved else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "first_ballot": dict(self.first),
            "first_majority": self.first_majority,
            "final": dict(self.final),
            "final_majority": self.final_majority,
            "complete": self.complete,
            "changed": self.changed,
            "moved": self.moved,
        }


def debate_delta(d: Discussion) -> _DebateDelta | None:
    """The debate delta of the current phase; None unless it is ``vote_first``."""
    t = d.template
    info = t.phase(d.phase) if t else None
    if info is None or info.consensus_mode != VOTE_FIRST:
        return None
    cast = d.first_ballot
    first = {who: vote for who, (vote, _) in cast.items()}
    complete = bool(first) and all(name in cast for name in d.expected_voters)
    return _DebateDelta(first, d.votes, complete)


def contested(d: Discussion) -> list[str]:
    """What a prompt after the sealed first ballot of a ``vote_first`` phase says: the
    ballot, and that only the contested items are debated. Empty otherwise."""
    delta = debate_delta(d)
    if delta is None or not delta.complete:
        return []
    lines = ["", "## The sealed first ballot"]
    lines.append(", ".join(f"{who}: {vote}" for who, vote in delta.first.items()) + ".")
    lead = delta.first_majority
    dissent = [who for who, vote in delta.first.items() if vote != lead]
    if not dissent:
        lines.append(
            f"The first ballot was unanimous ({lead}): nothing is contested. Keep your vote "
            "unless you cite something new (a comment, an evidence block, a decision)."
        )
        return lines
    lines.append(
        "Debate only the contested items: the reasons of "
        + ", ".join(dissent)
        + f" against the majority ({lead}) and the concerns raised. Change your vote only "
        "for something new you name (a comment, an evidence block, a decision)."
    )
    return lines
