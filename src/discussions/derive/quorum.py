"""Where each current vote comes from, and which seats fell silent: the record behind a
diverse quorum.

Copies of one model agreeing are one voice, not several (Huang et al. 2024: copies of one
model debating do no better than majority voting at equal compute; ReConcile: diversity is
what helps). So each vote keeps the provider that produced it (the engine's metadata line on
an AI comment), the model when the CLI reported one (``model:``; never guessed), and the
``CONFIDENCE: 0-10`` its comment gave. Votes are grouped into independent sources: one
provider is one source, and two providers that recorded the same model are one too; a
person is a source of their own; the built-in mock is none (its votes never count toward a
real decision).

A seat whose call failed (a ``FAILED`` block after the votes restarted, with no comment of
theirs since, and no current vote) is a failed seat: `voting.calculate_consensus` counts it
as an abstention or leaves it out (``consensus.failed_seats``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..syntax.meta import engine_fields
from ..syntax.record import FrozenRecord
from .diagnosis import parse_confidence

if TYPE_CHECKING:
    from .state import Comment, State

MOCK = "mock"


class VoteSource(FrozenRecord):
    """Who produced one current vote: `provider` ("" for a person's), `model` ("" when the
    CLI did not report it), and the comment's `confidence` (None: not given)."""

    __slots__ = ("voter", "vote", "line", "provider", "model", "confidence")
    voter: str
    vote: str
    line: int
    """The line of the comment that holds the vote."""
    provider: str
    model: str
    confidence: int | None

    def __init__(
        self,
        voter: str,
        vote: str,
        line: int,
        provider: str = "",
        model: str = "",
        confidence: int | None = None,
    ) -> None:
        self._init(voter, vote, line, provider, model, confidence)

    def to_dict(self) -> dict[str, Any]:
        return {
            "vote": self.vote,
            "line": self.line,
            "provider": self.provider or None,
            "model": self.model or None,
            "confidence": self.confidence,
        }

    def label(self) -> str:
        """``claude, model claude-sonnet-4-5, confidence 7`` (what status shows beside it)."""
        parts = [self.provider] if self.provider else []
        if self.model:
            parts.append(f"model {self.model}")
        if self.confidence is not None:
            parts.append(f"confidence {self.confidence}")
        return ", ".join(parts)


def rule_quorum(s: State) -> None:
    """`State.vote_sources` for every current vote, and `State.failed_seats`."""
    latest = _vote_comments(s)
    for voter, vote in s.votes.items():
        c = latest.get(voter)
        if c is not None:
            s.vote_sources[voter] = VoteSource(
                voter,
                vote,
                c.line,
                c.meta.get("provider", ""),
                c.meta.get("model", ""),
                _confidence(c),
            )
    s.failed_seats = _failed_seats(s)


def _vote_comments(s: State) -> dict[str, Comment]:
    """Each voter's latest comment with a vote after the reset (the one `rule_votes` kept),
    looked for from the end: the voters' latest comments are the last few of a long file."""
    found: dict[str, Comment] = {}
    votes, reset = s.votes, s.reset_line
    for c in reversed(s.comments):
        if len(found) == len(votes):
            break
        mine = c.author in votes and c.author not in found
        if mine and any(m.kind == "VOTE" and m.line > reset for m in c.markers):
            found[c.author] = c
    return found


def _confidence(c: Comment) -> int | None:
    """The last valid ``CONFIDENCE:`` of comment `c` (an invalid one is reported by
    `diagnosis.rule_diagnosis`, which reads every comment's)."""
    found = None
    for m in c.markers:
        if m.kind == "CONFIDENCE":
            value = parse_confidence(m.text)
            found = value if value is not None else found
    return found


def _failed_seats(s: State) -> list[str]:
    """The participants whose last word since the reset is a ``FAILED`` block, without a
    current vote; background participants (who do not vote) left out."""
    last_comment = {c.author: c.line for c in s.comments}
    seats: dict[str, None] = {}
    for m in s.doc.engine_markers:
        if m.kind != "failed" or m.line <= s.reset_line:
            continue
        who = engine_fields(m.target).get("", "")
        participant = s.registry.for_author(who)
        if participant is not None and not participant.votes:
            continue
        if who and who not in s.votes and last_comment.get(who, 0) < m.line:
            seats[who] = None
    return list(seats)


def independent_sources(sources: Iterable[VoteSource], vote: str = "READY") -> list[list[str]]:
    """The voters of `vote` grouped into independent sources: one group per provider, groups
    that recorded the same model joined, each person alone; mock votes in none."""
    groups: list[tuple[set[str], list[str]]] = []  # (keys, voters)
    for v in sources:
        if v.vote != vote or v.provider == MOCK:
            continue
        keys = {f"model:{v.model}"} if v.model else set()
        keys.add(f"provider:{v.provider}" if v.provider else f"person:{v.voter}")
        joined = [g for g in groups if g[0] & keys]
        merged: tuple[set[str], list[str]] = (keys, [v.voter])
        for g in joined:
            merged[0].update(g[0])
            merged[1][:0] = g[1]
            groups.remove(g)
        groups.append(merged)
    return [voters for _, voters in groups]
