"""What `check` reports at the lines of a file's last comment, derived from that comment and
the file's header alone: a person's `comment` tells its author at once (`ops.comments`)
without deriving the 20,000 comments above it.

Most of what the rules report of a comment is found in that comment: its markers' values
(``CONFIDENCE: 11``, ``SCORE: high``, ``OUTCOME: maybe``), a ``GOVERNS:`` without its
``DECISION:``, a translated marker word, a conflict line, the parser's findings in its lines
(which depend only on the lines from its ``---`` line, see `syntax.reparse`); what it needs
besides is the header (the participants, the template). The derivation of the header followed
by the last comment (from its ``---`` line) finds those the same, on lines moved up. What the
comments above decide is another matter: a second or ballot needs the motion before it, an
evidence marker or an engine block the blocks before it. A last comment that holds one of
those gets None: the caller derives the whole file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..syntax.document import ParseWarning
from .rules import derive

if TYPE_CHECKING:
    from ..settings.workspace import Workspace

__all__ = ["last_comment_warnings"]

_CONTEXT = frozenset({"MOTION", "SECOND", "BALLOT", "MOTION-RESULT", "EVIDENCE"})
"""Markers whose rules read the comments above (the motions, the evidence blocks)."""


def last_comment_warnings(
    header: str, tail: str, workspace: Workspace
) -> list[ParseWarning] | None:
    """The warnings a derivation of the whole file gives at the lines of its last comment
    (from its ``Name:`` line on), in their order, on lines counted from the start of `tail`
    (the file from the ``---`` line above the last comment); `header` is the file's header
    block. None when the comments above may change them."""
    s = derive(header + tail, workspace)
    if len(s.comments) != 1 or s.doc.engine_markers:
        return None
    if any(m.kind in _CONTEXT for m in s.comments[0].markers):
        return None
    start, up = s.comments[0].line, header.count("\n")
    return [w.moved(-up) for w in s.warnings if w.line >= start]
