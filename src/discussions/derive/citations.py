"""Grounded votes: each comment's citations (`syntax.citations`), and what
a vote or a ``CONCERN:`` rests on.

`rule_citations` attaches the citations to their comment (pure, like every rule). Whether a
citation holds is the repository's answer (`git.grounding` resolves it, with git); here,
given those verdicts, `_rests_on` says what each vote rests on (the ``EVIDENCE`` blocks the
discussion holds before it, and its comment's grounded citations), and `counted_votes` which
votes count when ``consensus.grounded_votes`` is on: a READY always, a CHANGES or REJECT only
when it rests on something checkable. Without verdicts (nobody resolved the citations) a cited
vote is kept: a vote is never dropped for want of a look."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..settings.config import VotingConfig
from ..syntax.citations import Citation, find_citations, might_cite
from ..syntax.record import Record
from .voting import ConsensusResult, calculate_consensus

if TYPE_CHECKING:
    from .state import Comment, State

GROUNDED, STALE, UNRESOLVABLE = "grounded", "stale", "unresolvable"
"""A citation's verdicts: the cited text is there; it was there when the comment was written
but the file has moved on since; it never was (an invented path or line, a quote that does
not match)."""

_BLOCKING = ("CHANGES", "REJECT")


def rule_citations(s: State) -> None:
    """Each comment's citations, on `Comment.citations` (its body starts the line after its
    ``Name:`` line); the comments taken from a previous derivation (`State.resumed`) have
    theirs already."""
    marker_lines = [m.line for m in s.doc.engine_markers]
    for c in s.comments[s.resumed :]:
        if "." in c.body and might_cite(c.body):  # most cannot: none of their lines either
            own = _own_lines(c, marker_lines)
            c.citations = [Citation(*found[:5], found[5] + c.line) for found in _cited(own)]


def _own_lines(c: Comment, marker_lines: list[int]) -> str:
    """`c`'s body up to the first engine block the parser keeps in it (an evidence block
    and its visible line, appended after the comment, cite what the engine read)."""
    i = bisect_right(marker_lines, c.line)
    if i == len(marker_lines) or marker_lines[i] > c.end_line:
        return c.body
    return "\n".join(c.body.split("\n")[: marker_lines[i] - c.line - 1])


@lru_cache(maxsize=8192)
def _cited(body: str) -> tuple[tuple[str, int, int, str, str, int], ...]:
    """The citations of `body` as if it started on line 1, remembered: a long-lived process
    (an editor's language server) derives the same comments again on every version."""
    return tuple(
        (c.path, c.start, c.end, c.symbol, c.snippet, c.line) for c in find_citations(body)
    )


def citation_key(c: Citation) -> tuple[int, str]:
    """What a verdict is filed under: the line and the citation as written."""
    return (c.line, c.text)


class Verdict(Record):
    """What the repository says of one citation."""

    __slots__ = ("status", "why", "against")
    status: str
    """`GROUNDED`, `STALE` or `UNRESOLVABLE`."""
    why: str
    """One line saying why (the missing line, the changed text)."""
    against: str
    """What it was resolved against: ``commit 1a2b3c4`` or ``the working tree``."""

    def __init__(
        self,
        status: str,
        why: str = "",
        against: str = "",
    ) -> None:
        self.status = status
        self.why = why
        self.against = against

    def to_dict(self) -> dict[str, str]:
        return {"status": self.status, "why": self.why, "against": self.against}


Verdicts = Mapping[tuple[int, str], Verdict]


class Basis(Record):
    """What one vote (or concern) rests on."""

    __slots__ = ("who", "value", "line", "evidence", "citations")
    who: str
    value: str
    """The vote (``CHANGES``) or the concern's text."""
    line: int
    evidence: list[int]
    """Numbers of the evidence blocks the discussion holds before it."""
    citations: list[tuple[Citation, Verdict | None]]
    """Its comment's citations, each with its verdict (None: not resolved)."""

    def __init__(
        self,
        who: str,
        value: str,
        line: int,
        evidence: list[int] | None = None,
        citations: list[tuple[Citation, Verdict | None]] | None = None,
    ) -> None:
        self.who = who
        self.value = value
        self.line = line
        self.evidence = [] if evidence is None else evidence
        self.citations = [] if citations is None else citations

    @property
    def grounded(self) -> list[Citation]:
        """The citations that hold (or were not resolved: given the benefit of the doubt)."""
        return [c for c, v in self.citations if v is None or v.status == GROUNDED]

    @property
    def checkable(self) -> bool:
        """Whether it rests on something a reader can check."""
        return bool(self.evidence or self.grounded)

    def to_dict(self) -> dict[str, Any]:
        return {
            "by": self.who,
            "value": self.value,
            "line": self.line,
            "evidence": list(self.evidence),
            "citations": [
                {**c.to_dict(), "verdict": v.to_dict() if v else None} for c, v in self.citations
            ],
            "grounded": [c.text for c, v in self.citations if v and v.status == GROUNDED],
            "checkable": self.checkable,
        }


def _basis(s: State, comment: Comment, value: str, line: int, verdicts: Verdicts) -> Basis:
    """What `value`, written on `line` of `comment`, rests on."""
    blocks = [e.number for e in s.evidence if e.status != "pending" and e.number and e.line < line]
    cited = [(c, verdicts.get(citation_key(c))) for c in comment.citations]
    return Basis(comment.author, value, line, list(dict.fromkeys(blocks)), cited)


def _rests_on(s: State, verdicts: Verdicts) -> dict[str, Basis]:
    """What each counted vote rests on, by voter (its latest vote since the reset), voters in
    the order they first cast it."""
    first, latest = _votes_cast(s, backwards=False), _votes_cast(s, backwards=True)
    return {who: _basis(s, *latest[who], verdicts) for who in first}


def _votes_cast(s: State, *, backwards: bool) -> dict[str, tuple[Comment, str, int]]:
    """Each voter's first vote since the reset that is the one it holds (its comment, the
    value and the line), in file order; `backwards`, its latest. A long discussion holds
    thousands of votes of a handful of voters: the scan stops once every voter is found."""
    votes, reset = s.votes, s.reset_line
    found: dict[str, tuple[Comment, str, int]] = {}
    for c in reversed(s.comments) if backwards else s.comments:
        value = votes.get(c.author)
        if value is None or c.author in found:
            continue
        for m in reversed(c.markers) if backwards else c.markers:
            if m.kind == "VOTE" and m.line > reset and m.text == value:
                found[c.author] = (c, m.text, m.line)
                break
        if len(found) == len(votes):
            break
    return found


def _concerns_rest_on(s: State, verdicts: Verdicts) -> list[Basis]:
    """What each ``CONCERN:`` rests on, in file order."""
    by_line = {i.line for i in s.items["CONCERN"]}
    if not by_line:  # no comment's markers to read
        return []
    return [
        _basis(s, c, m.text, m.line, verdicts)
        for c in s.comments
        for m in c.markers
        if m.kind == "CONCERN" and m.line in by_line
    ]


def grounds_of(s: State, verdicts: Verdicts | None) -> tuple[dict[str, Basis], list[Basis]]:
    """What each counted vote rests on, by voter, and each ``CONCERN:``."""
    return _rests_on(s, verdicts or {}), _concerns_rest_on(s, verdicts or {})


def grounded_consensus(
    s: State,
    verdicts: Verdicts | None,
    config: VotingConfig,
    expected: list[str],
    *,
    failed: Collection[str] = (),
    ready_sources: int | None = None,
) -> ConsensusResult:
    """`voting.calculate_consensus` of `s`'s votes (the caller holds it while the contrarian
    does, `contrarian.hold`); under ``consensus.grounded_votes``, a
    CHANGES or REJECT resting on nothing checkable is left out of the tally (and its voter
    is not waited for either), and the reason says whose. `failed` and `ready_sources` as
    `calculate_consensus` takes them (the quorum's failed seats and independent sources)."""
    votes, dropped = dict(s.votes), []
    if s.workspace.config.grounded_votes:
        bases = _rests_on(s, verdicts or {})
        dropped = [w for w, v in votes.items() if v in _BLOCKING and not bases[w].checkable]
        votes = {w: v for w, v in votes.items() if w not in dropped}
        expected = [e for e in expected if e not in dropped]
    result = calculate_consensus(
        votes,
        config,
        humans=s.humans,
        expected=expected,
        failed=failed,
        ready_sources=ready_sources,
    )
    if dropped:
        result.reason += f"; not counted (resting on nothing checkable): {', '.join(dropped)}"
    return result
