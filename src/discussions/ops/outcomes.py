"""The act of judging how a decision turned out: an ``OUTCOME:`` line in a person's comment
(`derive.outcomes`), written through the one door for a person's comment (`comments.comment`),
so the CLI's ``outcome`` command and the MCP tool ``outcome`` check and answer alike."""

from __future__ import annotations

from pathlib import Path

from ..derive.outcomes import VERDICTS
from ..errors import BadInput
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
    out (`author` None: `settings.config.default_author`), as a comment of its own."""
    return comment(ws, path, author, outcome_line(verdict, reason))
