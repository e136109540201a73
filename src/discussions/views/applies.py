"""Applies as the views show them: one line for an ``APPLY`` block and one for each review of
it (`status`, the terminal app, the web view), and the summary of a block folded in a comment
(`evidence.fold_evidence` folds the content of apply blocks as it folds evidence)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..syntax.apply import (
    ApplyFormatError,
    ApplyRecord,
    ApplyReviewRecord,
    parse_apply,
    parse_apply_review,
)

if TYPE_CHECKING:
    from ..model.discussion import Discussion


def apply_text(a: ApplyRecord) -> str:
    """``Apply 1: AI-Architect (claude-write): committed 2 files on B (9c1d2e3), tests passed``."""
    files = f"{len(a.files)} file{'' if len(a.files) == 1 else 's'}"
    said = {
        "committed": f"committed {files} on {a.branch} ({(a.commit or '')[:7]})",
        "unchanged": f"changed nothing on {a.branch}",
        "refused-outside": f"wrote outside its worktree, nothing committed on {a.branch}",
        "timeout": f"timed out on {a.branch}",
    }
    what = said.get(a.result, f"failed on {a.branch}")
    text = f"Apply {a.number}: {a.lead} ({a.provider}): {what}"
    notes = [f"tests {a.tests}"] if a.tests != "not run" else []
    notes += [a.reason] if a.reason else []
    notes += [f"forced: {a.forced}"] if a.forced else []
    notes += [f"worktree kept at {a.worktree}"] if a.worktree else []
    return text + "".join(f", {n}" for n in notes)


def review_text(r: ApplyReviewRecord) -> str:
    """``review 1: changes requested; blocker: ...`` (numbered from 1 as people count)."""
    said = {"implemented": "implemented", "changes": "changes requested"}
    text = f"review {r.revision + 1}: {said.get(r.result, 'unresolved')}"
    if r.blockers:
        text += "; blocker" + ("s" if len(r.blockers) > 1 else "") + ": " + "; ".join(r.blockers)
    return text


def block_summary(kind: str, args: str, content: str | None) -> str:
    """What a folded ``APPLY`` / ``APPLY-REVIEW`` block says in one line."""
    try:
        if kind == "APPLY":
            return apply_text(parse_apply(args, content))
        r = parse_apply_review(args, content)
    except ApplyFormatError as exc:
        return f"{kind}: {exc}"
    return f"Apply {r.apply}, {review_text(r)}"


def applies_lines(d: Discussion) -> list[str]:
    """Each apply of `d` with its line, then its reviews, indented (for `status` and the
    terminal app)."""
    out: list[str] = []
    for a in d.applies:
        out.append(f"apply {a.number}, line {a.line}: {apply_text(a).split(': ', 1)[1]}")
        out += [f"  {review_text(r)}" for r in a.reviews]
    return out
