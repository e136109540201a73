"""Applies as the views show them: one line for an ``APPLY`` block and one for each review of
it (`status`, the terminal app, the web view), and the summary of a block folded in a comment
(`evidence.fold_evidence` folds the content of apply blocks as it folds evidence). The
sentences are the blocks' own (`syntax.apply.apply_sentence`, `review_sentence`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..syntax.apply import (
    ApplyFormatError,
    ApplyReviewRecord,
    apply_sentence,
    parse_apply,
    parse_apply_review,
    review_sentence,
)

if TYPE_CHECKING:
    from ..model.discussion import Discussion


def _review_text(r: ApplyReviewRecord) -> str:
    """`review_sentence` with the blockers it counts: ``Review 1 of apply 1: changes requested
    (yes: AI-A; no: AI-B); 1 blocker: the migration is missing``."""
    return review_sentence(r) + (f": {'; '.join(r.blockers)}" if r.blockers else "")


def block_summary(kind: str, args: str, content: str | None) -> str:
    """What a folded ``APPLY`` / ``APPLY-REVIEW`` block says in one line."""
    try:
        if kind == "APPLY":
            return apply_sentence(parse_apply(args, content))
        return _review_text(parse_apply_review(args, content))
    except ApplyFormatError as exc:
        return f"{kind}: {exc}"


def applies_lines(d: Discussion) -> list[str]:
    """Each apply of `d` with its line, then its reviews, indented (for `status` and the
    terminal app)."""
    out: list[str] = []
    for a in d.applies:
        out.append(f"{apply_sentence(a)} (line {a.line})")
        out += [f"  {_review_text(r)}" for r in a.reviews]
    return out
