"""The contrarian: agreement that came too fast, and the challenge it calls for
(docs/council.md, "A contrarian when agreement comes too fast").

A template may name a persona (``contrarian: advocate``). In a voting phase of such a
template, agreement came too fast in one of two ways:

* **at once**: every expected voter's first vote in the phase was READY while nothing in the
  phase was checked: no ``EVIDENCE`` block or request, no ``CONCERN:``;
* **by a jump** (`Jump`): the ballot held a vote against (some expected voter's vote was
  CHANGES or REJECT: a split ballot, or all of them) and became unanimous READY with nothing
  checked in between: from the last vote against (excluded) to the vote that made it
  unanimous (included), no ``EVIDENCE`` block or request, no comment citing the code
  (`derive.citations`; once the citations are resolved, one that held when it was written:
  grounded or stale), and no reply by anyone else to a ``CONCERN:``
  (`minority.Replies.replied`: a mention of its author or a quote of it; its author's own
  READY is not a reply).

The engine then asks the contrarian for the strongest case against and records why in a
``CONTRARIAN`` block (`engine.council.contrarian`), once per phase; the consensus is held
(`held`) until the challenge is answered: a later comment by another voter, or a person's
comment after the block.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..syntax.record import Record
from .citations import GROUNDED, STALE, Verdicts, citation_key
from .minority import Replies

if TYPE_CHECKING:
    from ..settings.templates import Template
    from ..syntax.citations import Citation
    from .state import State
    from .voting import ConsensusResult

CONTRARIAN = "contrarian"
"""The kind of the engine block (`syntax.kinds`)."""


class Challenge(Record):
    """A ``CONTRARIAN`` block of the current phase: who was asked (`by`, an alias), where,
    and whether another voter or a person has spoken after it."""

    __slots__ = ("by", "line", "answered")
    by: str
    line: int
    answered: bool

    def __init__(
        self,
        by: str,
        line: int,
        answered: bool = False,
    ) -> None:
        self.by = by
        self.line = line
        self.answered = answered


_AGAINST = ("CHANGES", "REJECT")


class Jump(Record):
    """Agreement that jumped in the current phase: the ballot held a vote against until the
    one on line `start` (`before`: the ballot then, "a split ballot", "unanimous CHANGES" or
    "CHANGES" when the others had not voted), unanimous READY from the vote on line `end`,
    with no evidence and no answered concern in between; `cited`, the citations of the
    comments in between (a jump is justified when one of them holds, `came_too_fast`)."""

    __slots__ = ("start", "end", "cited", "before")
    start: int
    end: int
    cited: list[Citation]
    before: str

    def __init__(
        self,
        start: int,
        end: int,
        cited: list[Citation] | None = None,
        before: str = "a split ballot",
    ) -> None:
        self.start = start
        self.end = end
        self.cited = [] if cited is None else cited
        self.before = before

    def to_dict(self) -> dict[str, Any]:
        cited = [c.text for c in self.cited]
        return {"from": self.start, "to": self.end, "cited": cited, "before": self.before}


class Agreement(Protocol):
    """What tells whether agreement came too fast: a `State`, or a `Discussion` (which has
    its citations' verdicts besides)."""

    @property
    def too_fast(self) -> bool: ...
    @property
    def jump(self) -> Jump | None: ...
    @property
    def challenge(self) -> Challenge | None: ...
    @property
    def template(self) -> Template | None: ...


def rule_contrarian(s: State) -> None:
    """`State.too_fast` and `State.challenge`, for a template that names a contrarian the
    workspace knows (an unknown one is warned about and never waited for)."""
    alias = s.template.contrarian if s.template else None
    if not alias:
        return
    if alias not in s.registry:
        s.warn(s.header_line("template"), f"the template's contrarian @{alias} is unknown")
        return
    s.jump = _jump(s) if _voting(s) else None
    s.too_fast = _too_fast(s) or (s.jump is not None and not s.jump.cited)
    for m in s.doc.engine_markers:
        if m.kind == CONTRARIAN and m.line > s.phase_line:
            s.challenge = Challenge(m.target.partition("|")[0].strip().lstrip("@"), m.line)
    if s.challenge is not None:
        s.challenge.answered = _answered(s, s.challenge)


def _voting(s: State) -> bool:
    """Whether the current phase decides by votes (not by scores) and has voters."""
    info = s.template.phase(s.phase) if s.template else None
    ok = info is not None and info.voting_mode and info.consensus_mode != "score"
    return bool(ok and s.expected_voters)


def _too_fast(s: State) -> bool:
    """Every expected voter's first vote in this voting phase is READY, and the phase holds
    no evidence (block or request) and no concern."""
    voters = s.expected_voters
    if not _voting(s) or any(s.first_ballot.get(n, ("", 0))[0] != "READY" for n in voters):
        return False
    since = s.phase_line
    if _evidence_between(s, since, float("inf")):
        return False
    return not any(i.line > since for i in s.items["CONCERN"])


def _evidence_between(s: State, after: int, until: float) -> bool:
    """Whether an evidence block, or a comment asking for evidence, lies after line `after`
    and up to `until`."""
    if any(m.kind == "evidence" and after < m.line <= until for m in s.doc.engine_markers):
        return True
    return any(
        after < c.line <= until and any(mk.kind == "EVIDENCE" for mk in c.markers)
        for c in s.comments
    )


def _split_to_unanimous(s: State) -> tuple[int, int, str] | None:
    """(the last vote against, the vote that made the ballot unanimous READY, the ballot
    just after that vote against: `_ballot`) of the latest such change in this phase, when
    the ballot is unanimous READY now; else None."""
    voters, current = set(s.expected_voters), {}
    last_against, before, window = 0, "", None
    for c in s.comments:
        if not c.vote or c.line <= s.reset_line or c.author not in voters:
            continue
        current[c.author] = c.vote
        if c.vote in _AGAINST:
            last_against, before, window = c.line, _ballot(current, voters), None
        elif last_against and window is None and _unanimous(current, voters):
            window = (last_against, c.line, before)
    return window if _unanimous(current, voters) else None


def _ballot(current: dict[str, str], voters: set[str]) -> str:
    """The ballot in words, for saying what agreement jumped from: ``unanimous CHANGES``
    (every voter), ``CHANGES`` (the only vote cast so far), else ``a split ballot``."""
    votes = set(current.values())
    if len(votes) != 1:
        return "a split ballot"
    [vote] = votes
    return f"unanimous {vote}" if len(current) == len(voters) else vote


def _unanimous(current: dict[str, str], voters: set[str]) -> bool:
    """Whether every voter's current vote is READY."""
    return len(current) == len(voters) and all(v == "READY" for v in current.values())


def _jump(s: State) -> Jump | None:
    """The `Jump` of this phase's ballot to unanimity, unless evidence or an answered concern
    came between the last vote against and the vote that made it unanimous."""
    window = _split_to_unanimous(s)
    if window is None:
        return None
    start, end, before = window
    if _evidence_between(s, start, end) or _concern_answered(s, start, end):
        return None
    between = [c for c in s.comments if start < c.line <= end]
    return Jump(start, end, [cited for c in between for cited in c.citations], before)


def _concern_answered(s: State, start: int, end: int) -> bool:
    """Whether someone replied, between lines `start` and `end`, to a concern said before."""
    concerns = [i for i in s.items["CONCERN"] if i.line <= end]
    if not concerns:
        return False
    replies = Replies(s.comments)
    return any(replies.replied(s, i, max(start, i.line), end) for i in concerns)


def came_too_fast(a: Agreement, verdicts: Verdicts | None) -> bool:
    """Whether agreement came too fast (at once, or by a jump: `jumped_too_fast`), given the
    citations' `verdicts` when they were resolved."""
    return a.too_fast or jumped_too_fast(a, verdicts)


def jumped_too_fast(a: Agreement, verdicts: Verdicts | None) -> bool:
    """Whether the phase's `Jump` came on nothing checked: nothing cited in between, or (the
    citations resolved) nothing cited that held when written (grounded or stale). Unresolved,
    a citation is given the benefit of the doubt, as a vote resting on it is
    (`citations.Basis.grounded`)."""
    jump = a.jump
    if jump is None or not jump.cited:
        return jump is not None
    if verdicts is None:
        return False

    def holds(c: Citation) -> bool:
        v = verdicts.get(citation_key(c))
        return v is None or v.status in (GROUNDED, STALE)

    return not any(holds(c) for c in jump.cited)


def _answered(s: State, challenge: Challenge) -> bool:
    """Whether another voter, or a person, commented after the challenge's block."""
    asked = s.registry.get(challenge.by).name if challenge.by in s.registry else challenge.by
    return any(
        c.line > challenge.line
        and not c.forged
        and c.author != asked
        and (c.author in s.expected_voters or c.author in s.humans)
        for c in s.comments
    )


def held(a: Agreement, verdicts: Verdicts | None = None) -> str | None:
    """Why the consensus is held by the contrarian now, or None: a challenge not answered yet,
    or agreement that came too fast (at once, or by a jump) before the contrarian was asked."""
    if a.challenge is not None:
        by = a.challenge.by
        return None if a.challenge.answered else f"challenged by @{by}: awaiting an answer"
    if a.template is None or not a.template.contrarian or not came_too_fast(a, verdicts):
        return None
    asked = f"@{a.template.contrarian} is to be asked first"
    if a.jump is not None and jumped_too_fast(a, verdicts):
        return (
            f"agreement jumped from {a.jump.before} (line {a.jump.start}) to unanimous READY "
            f"(line {a.jump.end}) on nothing checked: {asked}"
        )
    return f"agreement came too fast: {asked}"


def challenge_entry(a: Agreement, verdicts: Verdicts | None = None) -> dict[str, Any] | None:
    """The challenge in `status --json` (``challenge``): who, where, whether answered, and
    why the consensus is held (None: not held); None when no contrarian is called for."""
    why = held(a, verdicts)
    if a.challenge is None and why is None:
        return None
    by = a.challenge.by if a.challenge else (a.template.contrarian if a.template else None)
    return {
        "by": by,
        "line": a.challenge.line if a.challenge else None,
        "answered": bool(a.challenge and a.challenge.answered),
        "held": why,
        "jump": a.jump.to_dict() if a.jump else None,
    }


def hold(s: State, result: ConsensusResult, verdicts: Verdicts | None = None) -> ConsensusResult:
    """`result`, not reached while the contrarian holds it (`held`), the reason saying so."""
    why = held(s, verdicts) if result.reached else None
    if why:
        result.reached, result.reason = False, f"{why}; {result.reason}"
    return result
