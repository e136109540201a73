"""The usual merge without regular expressions: both sides only appended whole comments.

Git starts the merge driver once per merged file, and at 10 KB a Python start is most of the
merge: ``import re`` alone costs half of a bare ``python -c pass``. So the registered command
(`setup.driver_command`) runs ``python -I -S`` on `mergefile` (the package's own file, no
``site``), which tries `merge_plain_file` first: it answers only where both sides appended
comments that need no parse (no engine block's name, no code block left open, nothing both
sides wrote), and there it writes what the block merge (`merge.merge_texts` on the tails,
`tails.tail_merge`) writes, byte for byte (tests/git/test_plain_merge.py checks that on
random appends). Anything else is declined, nothing written, and the full driver runs.

The rules both paths need are here, read with string methods, and the block merge reads them
from here too, so each is written once: a separator line (`is_separator`, with the pattern
`units.SEPARATOR` compiles for whole texts beside it), a comment's ``Name:`` head
(`head_name`), what a comment says (`said`), its place among new comments (`order_key`,
`in_key_order`, `interleave`), an engine block's name (`has_engine_word`), reading what a side
appended (`read_added`) and writing the merged end (`write_from`).
"""

from __future__ import annotations

from ..syntax.digest import sha256_hex
from ..syntax.fenceend import open_fence_at_end
from ..syntax.kinds import ENGINE_KINDS
from ..syntax.stamps import comment_stamp, unit_lines

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (see __main__)
if TYPE_CHECKING:
    import os
    from collections.abc import Sequence
    from typing import Protocol, TypeVar

    StrPath = str | os.PathLike[str]

    class _Keyed(Protocol):
        @property
        def key(self) -> tuple[str, str, Digest]: ...

    K = TypeVar("K", bound=_Keyed)

SEPARATOR_PATTERN = r"^---[ \t]*(?:\r?\n|\Z)"
"""A separator line (with ``re.M``): three dashes, optional spaces or tabs, the line's end.
`is_separator` reads one line by the same rule."""

ENGINE_NAMES = tuple(k.name for k in ENGINE_KINDS)
"""Every engine block's name: a text holding none needs no parse to be cut into units."""

PIECE = 1 << 16
"""Bytes checked (or read and compared) at a time: a megabyte's copy would cost more to make
(and page in) than to check."""


def is_separator(line: str) -> bool:
    """Whether `line` (with its newline, or a text's last line without one) is a separator
    line (`SEPARATOR_PATTERN`)."""
    if line.endswith("\n"):
        line = line[:-2] if line.endswith("\r\n") else line[:-1]
    return line.startswith("---") and not line[3:].strip(" \t")


def head_name(block: str) -> str | None:
    """What follows ``Name:`` (and its blanks) when `block` opens with optional blank lines
    then a ``Name:`` line, up to the line's end; None when it does not (no comment head)."""
    pos = 0
    while not block.startswith("Name:", pos):
        end = block.find("\n", pos)
        if end < 0 or block[pos:end].removesuffix("\r").strip(" \t"):
            return None
        pos = end + 1
    rest = block[pos + 5 :].lstrip(" \t")
    ends = [i for i in (rest.find("\r"), rest.find("\n")) if i >= 0]
    return rest[: min(ends)] if ends else rest


def has_engine_word(text: str) -> bool:
    """Whether an engine block's name stands anywhere in `text` (then the parser must say
    which lines are engine blocks)."""
    return any(name in text for name in ENGINE_NAMES)


def said(closed: str) -> str:
    """What a closed unit says whatever blank lines surround it and its closing ``---``: one
    closed right below its last line and one closed after a blank line say the same."""
    text = closed.strip()
    if text.endswith("\n---"):
        return text[:-4].rstrip() + "\n---"
    return text


def order_key(stamp: str, author: str, closed: str) -> tuple[str, str, Digest]:
    """A new unit's place among others (`merge` explains the order): when it says it was
    written, its author, a hash of its closed text (made only if time and author tie)."""
    return stamp, author, Digest(closed)


class Digest:
    """The SHA-256 (hex) of a closed unit's text, stripped, compared as that hex string. Keys
    are compared element by element, so it is made only where two units tie on time and
    author: most merges never hash a comment."""

    __slots__ = ("_closed", "_hex")

    def __init__(self, closed: str) -> None:
        self._closed = closed
        self._hex: str | None = None

    @property
    def hex(self) -> str:
        if self._hex is None:
            self._hex = sha256_hex(self._closed.strip().encode("utf-8", "surrogatepass"))
        return self._hex

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Digest) and self.hex == other.hex

    def __lt__(self, other: Digest) -> bool:
        return self.hex < other.hex

    def __hash__(self) -> int:
        return hash(self.hex)

    def __repr__(self) -> str:
        return f"Digest({self.hex!r})"


def in_key_order(a: list[K], b: list[K]) -> tuple[list[K], list[K]]:
    """Two sides' units in an order that does not depend on which side is "ours"."""
    return (b, a) if [u.key for u in b] < [u.key for u in a] else (a, b)


def interleave(x: list[K], y: list[K]) -> list[K]:
    """Two runs of new units as one, each run's order kept, the smaller key first wherever
    both have one waiting (the merge step of a merge sort). Keys are totally ordered (see
    `units.Unit.key`), so it is associative and symmetric: any number of branches merged in
    any order give the same sequence."""
    out: list[K] = []
    i = j = 0
    while i < len(x) and j < len(y):
        if y[j].key < x[i].key:
            out.append(y[j])
            j += 1
        else:
            out.append(x[i])
            i += 1
    return out + x[i:] + y[j:]


class PlainUnit:
    """A comment as the fast path holds it: its text (closed), key and what it says."""

    __slots__ = ("text", "key", "said")

    def __init__(self, text: str, author: str) -> None:
        self.text = text
        self.key = order_key(comment_stamp(unit_lines(text)) or "", author.strip(), text)
        self.said = said(text)


def plain_units(text: str) -> list[PlainUnit] | None:
    """What a side appended, cut into comments as `units.units_of` cuts it, when every one is
    closed, opens with a blank line and a ``Name:`` line, names no engine block and leaves no
    code block open; None otherwise (the block merge then decides)."""
    blocks = _closed_blocks(text)
    if blocks is None or has_engine_word(text):
        return None
    groups: list[tuple[str, list[str]]] = []  # a comment's name, and its blocks
    for block in blocks:
        name = head_name(block)
        if name is None:
            if not groups:
                return None  # blocks before the first comment: no comment of the fast path
            groups[-1][1].append(block)
        else:
            groups.append((name, [block]))
    units = []
    for name, group in groups:
        unit = "".join(group)
        if not unit.startswith("\n") or open_fence_at_end(unit):
            return None
        units.append(PlainUnit(unit, name))
    return units


def _closed_blocks(text: str) -> list[str] | None:
    """`text` cut after each separator line (`units.split_blocks`); None when it does not
    end with one. Only a line that starts with ``---`` is looked at."""
    blocks: list[str] = []
    pos = start = 0
    while (at := text.find("---", start)) >= 0:
        start = text.find("\n", at) + 1 or len(text)
        if (at == 0 or text[at - 1] == "\n") and is_separator(text[at:start]):
            blocks.append(text[pos:start])
            pos = start
    return blocks if pos == len(text) and blocks else None


def plain_end(base: bytes, added_o: bytes, added_t: bytes) -> bytes | None:
    """What the merge of ``base + added_o`` and ``base + added_t`` holds after `base`, when
    both sides only appended plain comments (`plain_units`) to a base that ends with a closed
    comment; None when that is not so (the full driver then decides)."""
    if not _plain_base(base) or not _plain_bytes(added_o) or not _plain_bytes(added_t):
        return None
    try:
        text_o, text_t = added_o.decode("utf-8"), added_t.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if added_o == added_t or not added_t:
        return added_o
    if not added_o:
        return added_t
    units_o, units_t = plain_units(text_o), plain_units(text_t)
    if units_o is None or units_t is None:
        return None
    x, y = in_key_order(units_o, units_t)
    if not {u.said for u in x}.isdisjoint(u.said for u in y):
        return None  # a comment both sides hold: the block merge writes it once
    return "".join(u.text for u in interleave(x, y)).encode("utf-8")


def _plain_bytes(data: bytes) -> bool:
    """No NUL byte (no discussion: a line merge decides) and no CR (LF newlines only)."""
    return b"\x00" not in data and b"\r" not in data


def _plain_base(base: bytes) -> bool:
    """Whether `base` is UTF-8 with LF newlines, ends with a separator line, and holds a
    comment boundary (a ``---`` line, a blank line, a ``Name:`` line) after its first byte:
    where `tails.tail_merge` cuts the versions, so the merge is the block merge of tails."""
    if not base.endswith(b"\n") or not _plain_bytes(base) or base.rfind(b"\n---\n\nName:") < 0:
        return False
    last = base.rfind(b"\n", 0, len(base) - 1) + 1
    if not is_separator(base[last:].decode("utf-8", "replace")):
        return False
    if base.isascii():
        return True
    try:
        base.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def merge_plain_file(base: StrPath, ours: StrPath, theirs: StrPath) -> bool:
    """The merge driver's fast path: when both sides only appended plain comments to the base
    (`plain_end`), write the merge over `ours` and return True; else False, nothing written
    (nor when a file cannot be read: the full driver says why)."""
    try:
        with open(base, "rb") as f:
            old = f.read()
        added_o, added_t = read_added(ours, old), read_added(theirs, old)
    except OSError:
        return False
    if added_o is None or added_t is None:
        return False
    end = plain_end(old, added_o, added_t)
    if end is None:
        return False
    if end != added_o:
        write_from(ours, end, len(old))
    return True


def read_added(path: StrPath, base: bytes) -> bytes | None:
    """What the file at `path` holds after `base` when it starts with `base` (that side only
    appended), else None; compared a piece at a time, so a large file is not held twice."""
    with open(path, "rb") as f:
        pos = 0
        while pos < len(base):
            piece = f.read(min(PIECE, len(base) - pos))
            if not piece or not base.startswith(piece, pos):
                return None
            pos += len(piece)
        return f.read()


def write_from(path: StrPath, data: bytes, start: int) -> None:
    """Write `data` into the file at `path` from byte `start` on, and end the file there:
    its first `start` bytes already are the merged file's (after two appends, only what
    comes after the part all versions share is written, not the megabytes before it)."""
    if not start:
        with open(path, "wb") as f:
            f.write(data)
        return
    with open(path, "r+b") as f:
        f.seek(start)
        f.write(data)
        f.truncate()


def driver_args(argv: Sequence[str]) -> tuple[int, list[str]] | None:
    """``[--marker-size N] BASE OURS THEIRS [PATH]`` (as git's placeholders fill the registered
    command) -> (marker size, [BASE, OURS, THEIRS, PATH]); None for another shape."""
    args = list(argv)
    marker_size = 7
    if len(args) >= 2 and args[0] == "--marker-size":
        marker_size = int(args[1]) if args[1].isdigit() and int(args[1]) > 0 else 7
        args = args[2:]
    elif args and args[0].startswith("--marker-size="):
        value = args[0].partition("=")[2]
        marker_size = int(value) if value.isdigit() and int(value) > 0 else 7
        args = args[1:]
    if len(args) not in (3, 4) or any(a.startswith("-") for a in args[:3]):
        return None
    return marker_size, args + args[1:2] if len(args) == 3 else args
