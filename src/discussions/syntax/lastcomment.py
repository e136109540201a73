"""How many comments a discussion file's bytes hold and where the last one starts, found
without parsing the file: what a person's `comment` reports of the 20,000-comment file it
has just appended to (`ops.comments`), for the cost of two scans of the bytes.

`parse_document` finds a comment at each `document.BOUNDARY` (a ``---`` line, blank lines,
a ``Name:`` line: by lines alone, in code or not) and at each bare ``Name:`` line the
markdown around it leaves in view. The first are counted here with the same pattern over the
bytes (its characters are ASCII, which a decoding with replacement never moves); where some
``Name:`` line is not such a boundary, or the parser would change the text before reading it
(a carriage return, a byte-order mark), the answer is None and the caller parses. The last
boundary's ``---`` line is a place to parse again from (`reparse`): what the parser finds in
the last comment depends only on the lines from there."""

from __future__ import annotations

import re

from .document import BOUNDARY
from .record import Record
from .text import BOM

__all__ = ["LastComment", "last_comment"]

_BOUNDARY = re.compile(b"\n" + BOUNDARY.pattern.removeprefix("^").encode(), re.M)
_NAME = b"\nName:"


class LastComment(Record):
    """The comments of a file and where its last one starts."""

    __slots__ = ("count", "offset", "line")

    def __init__(self, count: int, offset: int, line: int) -> None:
        self.count = count
        """How many comments `parse_document` finds in the file."""
        self.offset = offset
        """The offset of the ``---`` line just above the last comment's ``Name:`` line."""
        self.line = line
        """That line's number."""


def last_comment(data: bytes) -> LastComment | None:
    """`LastComment` of a discussion file's bytes `data`; None when that takes a parse (a
    bare ``Name:`` line, a carriage return or byte-order mark, no comment at all)."""
    if b"\r" in data or BOM.encode() in data or data.startswith((b"---", b"Name:")):
        return None
    count = at = 0
    for m in _BOUNDARY.finditer(data):
        count += 1
        at = m.start() + 1
    if not count or count != data.count(_NAME):
        return None
    return LastComment(count, at, data.count(b"\n", 0, at) + 1)
