"""What a discussion file holds after an append, asked of its bytes rather than of a derivation
of the whole file: how many comments, and what `check` reports at the lines of the last one.
A person's `comment` on a file of 20,000 comments says both (`ops.comments`) for the cost of
a few scans of the bytes and the derivation of one comment (`syntax.lastcomment`,
`derive.lastwarnings`); a file where that cannot be told exactly is derived whole."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..derive.lastwarnings import last_comment_warnings
from ..syntax.lastcomment import LastComment, last_comment
from ..syntax.parse import header_length
from ..syntax.text import decode
from . import storage

if TYPE_CHECKING:
    from ..settings.workspace import Workspace
    from ..syntax.document import ParseWarning
    from .discussion import Discussion

__all__ = ["last_comment_told"]

_HEAD = 1 << 16
"""Bytes read for the header block; a longer header is read by the whole derivation."""


def last_comment_told(d: Discussion) -> tuple[int, list[ParseWarning]]:
    """(``len(d.comments)``, the warnings of ``d.warnings`` at the lines of its last comment,
    from its ``Name:`` line on) for the file as it is now, without deriving the whole of it
    where its bytes tell (`LastComment`)."""
    data = storage.read_discussion(d.path)
    last = last_comment(data)
    found = _warnings(data, last, d.workspace) if last is not None else None
    if last is not None and found is not None:
        return last.count, found
    start = d.comments[-1].line if d.comments else 0
    return len(d.comments), [w for w in d.warnings if w.line >= start > 0]


def _warnings(data: bytes, last: LastComment, ws: Workspace) -> list[ParseWarning] | None:
    """`last_comment_warnings` of the file's bytes `data`; None where the header runs past
    `_HEAD` or the last comment holds bytes that are not UTF-8 (the whole file says where)."""
    head = data[: data.rfind(b"\n", 0, _HEAD) + 1].decode("utf-8", errors="replace")
    end = header_length(head)
    if end >= len(head):
        return None
    tail, undecodable = decode(data[last.offset :])
    if undecodable:
        return None
    found = last_comment_warnings(head[:end], tail, ws)
    if not found:  # most comments: then the newlines above it need not be counted
        return found
    down = data.count(b"\n", 0, last.offset)
    return [w.moved(down) for w in found]
