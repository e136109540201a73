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

_BOUNDARY = re.compile(
    b"\n" + BOUNDARY.pattern.removeprefix("^").split("Name:")[0].encode() + b"Name:"
)
"""`document.BOUNDARY` after a newline, up to its ``Name:`` (the rest of that line matches
whatever it holds)."""
_NAME = b"\nName:"
_BOM = BOM.encode()


class LastComment(Record):
    """The comments of a file and where its last one starts."""

    __slots__ = ("count", "offset")

    def __init__(self, count: int, offset: int) -> None:
        self.count = count
        """How many comments `parse_document` finds in the file."""
        self.offset = offset
        """The offset of the ``---`` line just above the last comment's ``Name:`` line (its
        line number: one more than the newlines before it, counted when asked)."""


def last_comment(data: bytes) -> LastComment | None:
    """`LastComment` of a discussion file's bytes `data`; None when that takes a parse (a
    bare ``Name:`` line, a carriage return or byte-order mark, no comment at all)."""
    if b"\r" in data or _has_bom(data) or data.startswith((b"---", b"Name:")):
        return None
    count = len(_BOUNDARY.findall(data))
    if not count or count != data.count(_NAME):
        return None
    # Every ``Name:`` line is a boundary's: the last one's, under the last ``---`` above it
    # (only blank lines stand between the two).
    at = data.rfind(b"\n---", 0, data.rfind(_NAME)) + 1
    return LastComment(count, at)


def _has_bom(data: bytes) -> bool:
    """Whether `data` holds a byte-order mark (its first byte looked for first: one byte is
    found several times faster than three, and most files have none)."""
    return b"\xef" in data and _BOM in data
