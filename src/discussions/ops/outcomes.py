"""The act of judging how a decision turned out: an ``OUTCOME:`` line in a person's comment
(`derive.outcomes`), written through the one door for a person's comment (`comments.comment`),
so the CLI's ``outcome`` command and the MCP tool ``outcome`` check and answer alike."""

from __future__ import annotations

from pathlib import Path

from ..derive.outcomes import VERDICTS
from ..errors import BadInput
from ..model.discussion import Discussion
from ..model.handoff import verdict
from ..settings.templates import is_open
from ..settings.workspace import Workspace
from .comments import Commented, comment


def outcome_line(verdict: str, reason: str) -> str:
    """``OUTCOME: wrong - reason`` (the reason on one line); an unknown verdict or an empty
    reason is refused."""
    v = verdict.strip().lower()
    if v not in VERDICTS:
        raise BadInput(f"a verdict is {', '.join(VERDICTS)}, not {verdict!r}", "verdict")
    why = " ".join(reason.split())
    if not why:
        raise BadInput(
            "say why it turned out so: the reason is what a later reader needs", "reason"
        )
    return f"OUTCOME: {v} - {why}"


def outcome(
    ws: Workspace, path: Path, verdict: str, reason: str, author: str | None = None
) -> Commented:
    """Append `author`'s judgement of how the decision of the discussion at `path` turned
    out (`author` None: `settings.config.default_author`), as a comment of its own. A
    discussion still open that decided nothing is judged all the same, with a notice:
    calibration scores its votes as they stand."""
    line = outcome_line(verdict, reason)
    undecided = _undecided(Discussion.load(path, ws))
    posted = comment(ws, path, author, line)
    posted.notices += [undecided] if undecided else []
    return posted


def _undecided(d: Discussion) -> str:
    """Why judging `d` judges no decision (open, no finished status, no motion passed: the
    rule `apply` refuses by, `model.handoff.verdict`), else ``""``."""
    decided, why, _ = verdict(d)
    if decided or not is_open(d.status.strip().upper() or "OPEN", d.template):
        return ""
    return (
        f"{d.path.name} has decided nothing yet ({why}): the outcome is recorded, and "
        "calibration scores the votes as they stand"
    )
