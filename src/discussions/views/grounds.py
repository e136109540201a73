"""What each vote and concern rests on, as `status` shows it (text and ``--json``): the
evidence blocks before it and its comment's citations with their verdicts (`derive.citations`;
`ops.grounds.resolve` has the verdicts filled in first, when the file cites anything)."""

from __future__ import annotations

from typing import Any

from ..derive.citations import GROUNDED, Basis
from ..model.discussion import Discussion


def grounds_data(d: Discussion) -> dict[str, Any]:
    """``status --json``'s ``grounds``: per vote and per concern what it rests on, whether it
    counts (under ``consensus.grounded_votes``), and every citation's verdict."""
    votes, concerns = d.grounds()
    strict = d.workspace.config.grounded_votes
    return {
        "grounded_votes": strict,
        "votes": {who: _entry(b, strict, b.value != "READY") for who, b in votes.items()},
        "concerns": [_entry(b, strict, True) for b in concerns],
        "citations": [
            {**c.to_dict(), "by": comment.author, "verdict": _verdict(d, c.line, c.text)}
            for comment in d.comments
            for c in comment.citations
        ],
    }


def _entry(b: Basis, strict: bool, must_rest: bool) -> dict[str, Any]:
    return {**b.to_dict(), "counted": not (strict and must_rest and not b.checkable)}


def _verdict(d: Discussion, line: int, text: str) -> dict[str, str] | None:
    found = (d.grounding or {}).get((line, text))
    return found.to_dict() if found else None


def grounds_texts(d: Discussion) -> list[tuple[str, str]]:
    """(text, tone) lines for `status`: what each vote rests on, and each citation that does
    not hold; nothing for a file that cites nothing and does not ground its votes."""
    strict = d.workspace.config.grounded_votes
    cited = any(c.citations for c in d.comments)
    if not (cited or strict):
        return []
    votes, concerns = d.grounds()
    lines = [("Grounds (what each vote rests on):", "")]
    for who, b in votes.items():
        dropped = strict and b.value != "READY" and not b.checkable
        lines.append(
            (
                f"  {who} {b.value}: {_rests(b)}" + (" - not counted" if dropped else ""),
                "alert" if dropped else "",
            )
        )
    for b in concerns:
        if strict and not b.checkable:
            lines.append(
                (
                    f"  CONCERN by {b.who} (line {b.line}) rests on nothing checkable: not counted",
                    "alert",
                )
            )
    lines += _unsound(d)
    return lines


def _rests(b: Basis) -> str:
    """``evidence 1, 2; src/net.py:12 (grounded)`` or ``nothing checkable``."""
    parts = [f"evidence {', '.join(map(str, b.evidence))}"] if b.evidence else []
    parts += [f"{c.text} ({v.status if v else 'not resolved'})" for c, v in b.citations]
    return "; ".join(parts) if parts else "nothing checkable"


def _unsound(d: Discussion) -> list[tuple[str, str]]:
    """A line for each citation that is stale or unresolvable, saying why."""
    out = []
    for comment in d.comments:
        for c in comment.citations:
            v = (d.grounding or {}).get((c.line, c.text))
            if v is not None and v.status != GROUNDED:
                out.append(
                    (f"  line {c.line}: {c.text} is {v.status}: {v.why} ({v.against})", "alert")
                )
    return out
