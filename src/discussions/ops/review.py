"""The act of opening a code review: a ``code-review`` discussion made from a git diff (the
working tree, the staged changes or a revision range), its changed files attached as evidence
when asked, and, with participants named, their first turn. `discussions review` is its
adapter; any interface that offers a review calls `review` and renders `_Reviewed`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import DiscussionExists, DiscussionsError
from ..model.discussion import Discussion
from ..settings.config import default_author
from ..settings.workspace import Workspace, display_path
from ..syntax.text import slugify

if TYPE_CHECKING:
    from ..engine.turn.outcomes import TurnResult
    from ..git.review import Changes

DEFAULT_BUDGET = 60_000
"""Characters of diff a review's discussion holds by default; files beyond are listed."""


@dataclass(slots=True)
class _Reviewed:
    """What `review` made: the discussion, what it compared, what was left out or refused,
    the files attached, and the turn of the participants named (None when none were)."""

    discussion: Discussion
    changed: int
    """How many files changed."""
    omitted: list[str] = field(default_factory=list)
    """Files whose diff did not fit the budget (listed, not shown)."""
    refused: list[tuple[str, str]] = field(default_factory=list)
    """(path, reason) for changed files the evidence rule keeps out."""
    attached: list[str] = field(default_factory=list)
    turn: TurnResult | None = None

    def to_dict(self) -> dict[str, Any]:
        """The discussion's state with its `file`, ``omitted_files``, ``refused_files`` and,
        after a turn, ``turn`` (`TurnResult.to_dict`)."""
        data = self.discussion.to_dict()
        data["file"] = display_path(self.discussion.path)
        data["omitted_files"] = self.omitted
        data["refused_files"] = [{"path": p, "reason": why} for p, why in self.refused]
        if self.turn is not None:
            data["turn"] = self.turn.to_dict()
        return data


def review(
    ws: Workspace,
    *,
    rev_range: str | None = None,
    staged: bool = False,
    title: str | None = None,
    budget: int = DEFAULT_BUDGET,
    with_files: bool = False,
    participants: list[str] | None = None,
) -> _Reviewed:
    """Open a code-review discussion of the changes in the repository of the current folder
    (`rev_range`, else the index with `staged`, else the working tree, against HEAD): never
    over an existing file (``<slug>-2.md``... instead). With `participants`, ask them now."""
    from ..git.review import render_review_context

    changes = _changes(ws, rev_range, staged)
    context, omitted = render_review_context(changes, budget)
    shown = title or f"{changes.branch}: {changes.description}"
    d = _unused(ws, shown, context)
    d.save()
    attached = _attach_changed(d, [f.path for f in changes.files]) if with_files else []
    done = _Reviewed(d, len(changes.files), omitted, list(changes.refused), attached)
    if participants:
        from .turns import turn

        done.turn = turn(ws, d.path, participants)
        done.discussion = Discussion.load(d.path, ws)
    return done


def _changes(ws: Workspace, rev_range: str | None, staged: bool) -> Changes:
    """What `review` shows, its paths sifted by the evidence rule (``evidence.exclude``
    included); a clear error when nothing changed."""
    from ..git.review import collect_changes
    from ..settings.evidence import evidence_settings

    exclude = evidence_settings(ws.config).exclude
    changes = collect_changes(Path.cwd(), rev_range, staged=staged, exclude=exclude)
    if not changes.files and not changes.refused:
        raise DiscussionsError(f"nothing to review: no changes ({changes.description})")
    return changes


def _attach_changed(d: Discussion, paths: list[str]) -> list[str]:
    """Attach the current text of the changed files that still exist, as evidence."""
    from ..engine.evidence.fulfil import attach
    from ..git.run import repo_root

    root = repo_root(Path.cwd())
    present = [p for p in paths if (root / p).is_file()]
    return attach(d, default_author(), present).lines() if present else []


def _unused(ws: Workspace, title: str, context: str) -> Discussion:
    """A new code-review discussion, at ``<slug>.md``, else ``<slug>-2.md``, ``-3``... (the
    first file name not taken)."""
    d = Discussion.create(title, template="code-review", context=context, workspace=ws)
    if not d.path.exists():
        return d
    for n in range(2, 1000):
        path = d.path.with_name(f"{slugify(title)}-{n}.md")
        if not path.exists():
            return Discussion.create(
                title, template="code-review", context=context, path=path, workspace=ws
            )
    raise DiscussionExists(f"{display_path(d.path)} and 998 numbered copies already exist")
