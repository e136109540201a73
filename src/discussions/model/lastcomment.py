"""What a discussion file holds after an append, asked of its bytes rather than of a derivation
of the whole file: how many comments, and what `check` reports at the lines of the last one.
A person's `comment` on a file of 20,000 comments says both (`ops.comments`) for the cost of
scanning what was appended since the file was last asked (`filefacts`,
`syntax.lastcomment`) and deriving one comment (`derive.lastwarnings`); a file where that
cannot be told exactly is derived whole."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..derive.lastwarnings import last_comment_warnings
from ..syntax.parse import header_length
from ..syntax.text import decode
from . import storage

if TYPE_CHECKING:
    from ..settings.workspace import Workspace
    from ..syntax.document import ParseWarning
    from ..syntax.lastcomment import Boundaries
    from .discussion import Discussion

__all__ = ["last_comment_told"]

_HEAD = 1 << 16
"""Bytes read for the header block; a longer header is read by the whole derivation."""


def last_comment_told(d: Discussion) -> tuple[int, list[ParseWarning]]:
    """(``len(d.comments)``, the warnings of ``d.warnings`` at the lines of its last comment,
    from its ``Name:`` line on) for the file as it is now, without deriving the whole of it
    where its bytes tell (`Boundaries.count`)."""
    found, head, tail = storage.last_comment_bytes(d.path, _HEAD)
    count = found.count
    said = _warnings(found, head, tail, d.workspace) if count is not None else None
    if count is not None and said is not None:
        return count, said
    start = d.comments[-1].line if d.comments else 0
    return len(d.comments), [w for w in d.warnings if w.line >= start > 0]


def _warnings(
    found: Boundaries, head_bytes: bytes, tail_bytes: bytes, ws: Workspace
) -> list[ParseWarning] | None:
    """`last_comment_warnings` of the file whose first bytes are `head_bytes` and whose last
    comment is `tail_bytes`; None where the header runs past them or the last comment holds
    bytes that are not UTF-8 (the whole file says where)."""
    head = head_bytes[: head_bytes.rfind(b"\n") + 1].decode("utf-8", errors="replace")
    end = header_length(head)
    if end >= len(head):
        return None
    tail, undecodable = decode(tail_bytes)
    if undecodable:
        return None
    said = last_comment_warnings(head[:end], tail, ws)
    if not said:  # most comments: then the newlines above it need not be counted
        return said
    down = found.newlines - tail_bytes.count(b"\n")
    return [w.moved(down) for w in said]
