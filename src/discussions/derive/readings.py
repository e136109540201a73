"""The per-comment part of the derivation, kept apart from the whole-file part, so that a
derivation of a text whose first comments did not change resumes after them.

Most rules look at the file as a whole (the votes since the last reset, the pending
mentions, the positions round by round): they are cheap over comments already read. Reading a
comment is not: its markers and mentions, its metadata line, whether it is forged (its digest)
and, by `rules.rule_citations`, what it cites. What reading comment *i* finds depends on its
block alone (its text and lines), on the workspace, on the engine blocks inside its lines
(`signatures.own_text`) and on one thing the comments above carry: the line of the first
comment `forgery` reported as unsigned (`Claims.first_unsigned`). So each comment's `Reading`
holds what was found in it and that carry after it: a checkpoint at every comment boundary.

`rules.derive_parsed(..., resume=state)` hands the readings of a previous derivation to the
next (an editor's buffer, version after version, `lsp.buffer`): the readings of the leading
comments whose blocks are the same (the very blocks `syntax.reparse` kept above an edit, or
equal ones) are taken as they are, `State.resumed` says how many, and the rest are read again;
the whole-file rules then run over every comment as in any derivation. Why the result is a
full derive's: a comment whose block and every block above it are unchanged has the same
lines, the same engine blocks inside them (the parser's findings in a comment depend only on
the lines of its segment and above, see `syntax.reparse`), and the same carry; an edit above
the last comment reads again from where it is (the whole file, for one in the first).
``tests/derive/test_readings.py`` compares the two on random edits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..syntax.document import CommentBlock, ParseWarning
    from .state import Comment


class Reading:
    """What reading one comment found, and what it carries to the comments below."""

    __slots__ = ("block", "comment", "warnings", "first_unsigned")

    def __init__(
        self,
        block: CommentBlock,
        comment: Comment,
        warnings: list[ParseWarning],
        first_unsigned: int,
    ) -> None:
        self.block = block
        """The block read (a later derivation reuses this reading for the same block)."""
        self.comment = comment
        """The comment, never changed once its per-comment rules have run: its items are
        made afresh from its markers by each derivation (the whole-file rules attach
        restatements and details to them)."""
        self.warnings = warnings
        """What reading it reported, in order (never changed)."""
        self.first_unsigned = first_unsigned
        """`Claims.first_unsigned` after it: the carry."""


def resumable(blocks: list[CommentBlock], resume: list[Reading]) -> int:
    """How many leading `blocks` are the blocks `resume` read, in order (the same objects,
    or equal): the readings a derivation of `blocks` may take as they are."""
    n = min(len(blocks), len(resume))
    for i in range(n):
        old = resume[i].block
        if old is not blocks[i] and old != blocks[i]:
            return i
    return n
