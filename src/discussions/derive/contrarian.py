"""The contrarian: agreement that came too fast, and the challenge it calls for
(docs/council.md, "A contrarian when agreement comes too fast").

A template may name a persona (``contrarian: advocate``). In a voting phase of such a
template, agreement came too fast when every expected voter's first vote in the phase was
READY while nothing in the phase was checked: no ``EVIDENCE`` block or request, no
``CONCERN:``. The engine then asks the contrarian for the strongest case against and records
why in a ``CONTRARIAN`` block (`engine.council.contrarian`); the consensus is held
(`held`) until the challenge is answered: a later comment by another voter, or a person's
comment after the block.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .state import State
    from .voting import ConsensusResult

CONTRARIAN = "contrarian"
"""The kind of the engine block (`syntax.kinds`)."""


@dataclass(slots=True)
class Challenge:
    """A ``CONTRARIAN`` block of the current phase: who was asked (`by`, an alias), where,
    and whether another voter or a person has spoken after it."""

    by: str
    line: int
    answered: bool = False


def rule_contrarian(s: State) -> None:
    """`State.too_fast` and `State.challenge`, for a template that names a contrarian the
    workspace knows (an unknown one is warned about and never waited for)."""
    alias = s.template.contrarian if s.template else None
    if not alias:
        return
    if alias not in s.registry:
        s.warn(s.header_line("template"), f"the template's contrarian @{alias} is unknown")
        return
    s.too_fast = _too_fast(s)
    for m in s.doc.engine_markers:
        if m.kind == CONTRARIAN and m.line > s.phase_line:
            s.challenge = Challenge(m.target.partition("|")[0].strip().lstrip("@"), m.line)
    if s.challenge is not None:
        s.challenge.answered = _answered(s, s.challenge)


def _too_fast(s: State) -> bool:
    """Every expected voter's first vote in this voting phase is READY, and the phase holds
    no evidence (block or request) and no concern."""
    info = s.template.phase(s.phase) if s.template else None
    if info is None or not info.voting_mode or info.consensus_mode == "score":
        return False
    voters = s.expected_voters
    if not voters or any(s.first_ballot.get(n, ("", 0))[0] != "READY" for n in voters):
        return False
    since = s.phase_line
    if any(m.kind == "evidence" and m.line > since for m in s.doc.engine_markers):
        return False
    if any(i.line > since for i in s.items["CONCERN"]):
        return False
    return not any(
        c.line > since and any(mk.kind == "EVIDENCE" for mk in c.markers) for c in s.comments
    )


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


def held(s: State) -> str | None:
    """Why the consensus is held by the contrarian now, or None: a challenge not answered yet,
    or agreement that came too fast before the contrarian was asked."""
    if s.challenge is not None:
        by = s.challenge.by
        return None if s.challenge.answered else f"challenged by @{by}: awaiting an answer"
    if s.too_fast and s.template is not None and s.template.contrarian:
        return f"agreement came too fast: @{s.template.contrarian} is to be asked first"
    return None


def challenge_entry(s: State) -> dict[str, Any] | None:
    """The challenge in `status --json` (``challenge``): who, where, whether answered, and
    why the consensus is held (None: not held); None when no contrarian is called for."""
    why = held(s)
    if s.challenge is None and why is None:
        return None
    by = s.challenge.by if s.challenge else (s.template.contrarian if s.template else None)
    return {
        "by": by,
        "line": s.challenge.line if s.challenge else None,
        "answered": bool(s.challenge and s.challenge.answered),
        "held": why,
    }


def hold(s: State, result: ConsensusResult) -> ConsensusResult:
    """`result`, not reached while the contrarian holds it (`held`), the reason saying so."""
    why = held(s) if result.reached else None
    if why:
        result.reached, result.reason = False, f"{why} ({result.reason})"
    return result
