"""How many comments a discussion file's bytes hold and where the last one starts, found
without parsing the file: what a person's `comment` reports of the 20,000-comment file it
has just appended to (`ops.comments`), added up from parts of the bytes (`model.filefacts`
keeps the sum for the part an append leaves as it was, and scans only the rest).

`parse_document` finds a comment at each `document.BOUNDARY` (a ``---`` line, blank lines,
a ``Name:`` line: by lines alone, in code or not) and at each bare ``Name:`` line the
markdown around it leaves in view. The first are counted here with the same pattern over the
bytes (its characters are ASCII, which a decoding with replacement never moves); where some
``Name:`` line is not such a boundary, or the parser would change the text before reading it
(a carriage return, a byte-order mark), the bytes do not tell (`Boundaries.count` is None)
and the caller parses. The last boundary's ``---`` line is a place to parse again from
(`reparse`): what the parser finds in the last comment depends only on the lines from there.

A file is cut into parts just before a ``\\nName:`` (as `filefacts` cuts it): such a line is
in one part, and a boundary crosses a cut only as the ``---`` run ending one part and the
``Name:`` line starting the next, which `Boundaries.run` carries across."""

from __future__ import annotations

import re

from .document import BOUNDARY
from .record import Record
from .text import BOM

__all__ = ["Boundaries", "boundaries"]

_BOUNDARY = re.compile(
    b"\n" + BOUNDARY.pattern.removeprefix("^").split("Name:")[0].encode() + b"Name:"
)
"""`document.BOUNDARY` after a newline, up to its ``Name:`` (the rest of that line matches
whatever it holds)."""
_NAME = b"\nName:"
_BOM = BOM.encode()
_UNKNOWN = -2
"""`Boundaries.run` when the bytes end in more blank space than is looked at."""
_BLANK = b" \t\n"
_MOST_BLANK = 4096


class Boundaries(Record):
    """The comment boundaries of the bytes from a file's start to a cut (or its end)."""

    __slots__ = ("bounds", "names", "newlines", "plain", "run", "last")

    def __init__(
        self,
        bounds: int = 0,
        names: int = 0,
        newlines: int = 0,
        plain: bool = True,
        run: int = -1,
        last: int = -1,
    ) -> None:
        self.bounds = bounds
        """`document.BOUNDARY` matches."""
        self.names = names
        """``\\nName:`` lines."""
        self.newlines = newlines
        self.plain = plain
        """No carriage return, no byte-order mark, no ``---`` or ``Name:`` at the start."""
        self.run = run
        """The offset of the ``---`` line of the separator run the bytes end in (a ``Name:``
        line right after them is a boundary's); -1 when they end in none."""
        self.last = last
        """The offset of the ``---`` line of the last boundary (-1: none)."""

    @property
    def count(self) -> int | None:
        """How many comments `parse_document` finds in the bytes; None when they do not tell."""
        tells = self.plain and self.bounds and self.bounds == self.names
        return self.bounds if tells else None

    def to_json(self) -> list[int | bool]:
        return [getattr(self, s) for s in self.__slots__]

    @classmethod
    def from_json(cls, raw: object) -> Boundaries | None:
        """The `Boundaries` `to_json` wrote, or None for anything else."""
        if not isinstance(raw, list) or len(raw) != len(cls.__slots__):
            return None
        bounds, names, newlines, plain, run, last = raw
        numbers = (bounds, names, newlines, run, last)
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
            return None
        return cls(bounds, names, newlines, plain, run, last) if isinstance(plain, bool) else None


def boundaries(part: bytes, offset: int, before: Boundaries | None) -> Boundaries:
    """The `Boundaries` of the bytes before `part` (`before`; None when `part` starts the
    file) and `part`, which starts at `offset`: at the file's start or at a ``\\nName:``."""
    plain = b"\r" not in part and not (b"\xef" in part and _BOM in part)
    if before is None:
        before = Boundaries(plain=not part.startswith((b"---", b"Name:")))
    bounds, last = before.bounds, before.last
    if part.startswith(_NAME) and before.run != -1:
        plain = plain and before.run != _UNKNOWN
        bounds, last = bounds + 1, before.run
    found = len(_BOUNDARY.findall(part))
    if found:  # the last one's ``Name:`` is the last (else the count is None anyway)
        last = offset + part.rfind(b"\n---", 0, part.rfind(_NAME)) + 1
    return Boundaries(
        bounds + found,
        before.names + part.count(_NAME),
        before.newlines + part.count(b"\n"),
        before.plain and plain,
        _run(part, offset),
        last,
    )


def _run(part: bytes, offset: int) -> int:
    """`Boundaries.run` of bytes ending in `part` (at `offset`): they end in a ``---`` line
    and blank space (spaces, tabs, newlines: a ``Name:`` line after them, its newline first,
    makes `document.BOUNDARY`)."""
    end = len(part)
    while end and part[end - 1] in _BLANK:
        end -= 1
        if len(part) - end > _MOST_BLANK:
            return _UNKNOWN
    if end >= 4 and part.endswith(b"\n---", 0, end):
        return offset + end - 3
    return -1 if end >= 4 else _UNKNOWN
