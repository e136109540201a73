"""A discussion cut for merging: blocks, units (a comment, a hand-typed piece, an engine
block) and the phase segments they fall in."""

from __future__ import annotations

import re

from ..syntax.fences import open_fence_at_end
from ..syntax.kinds import STATE, engine_kinds
from ..syntax.meta import written_at
from ..syntax.record import Record
from .plain import SEPARATOR_PATTERN, has_engine_word, head_name, order_key, said

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (see __main__)
if TYPE_CHECKING:
    from collections.abc import Callable

    from .plain import Digest

# The parser is imported where a run of blocks needs it (an engine block's name in the text):
# git starts the driver once per merged file, and most merges of appended comments need none.

SEPARATOR = re.compile(SEPARATOR_PATTERN, re.M)


BLANK_START = re.compile(r"\A[ \t]*\r?\n")


class Unit(Record):
    """A comment, or a block the engine wrote (a marker block), with the blocks that continue
    it."""

    __slots__ = ("text", "author", "markers", "has_name", "_key")
    text: str
    author: str
    """Author of a comment (the ``Name:`` line); empty for an engine block."""
    markers: tuple[tuple[str, str | None, str], ...]
    """(kind, source, target) of each phase, vote-reset or status marker in it, in order."""
    has_name: bool

    def __init__(
        self,
        text: str,
        author: str,
        markers: tuple[tuple[str, str | None, str], ...] = (),
        has_name: bool = False,
    ) -> None:
        self.text = text
        self.author = author
        self.markers = markers
        self.has_name = has_name
        self._key: tuple[str, str, Digest] | None = None

    @property
    def is_marker(self) -> bool:
        """Whether it changes phase or status (it then ends a phase segment)."""
        return bool(self.markers)

    @property
    def key(self) -> tuple[str, str, Digest]:
        """Where it goes among other new units: (when it was written, author, hash of what it
        says), the time as `format.written_at` reads it (``""`` when the unit does not say,
        which sorts before every time). It does not depend on the side, the newlines or
        whether the unit was closed by a separator."""
        if self._key is None:
            closed = closed_block(self.text.replace("\r\n", "\n"), "\n")
            self._key = order_key(written_at(self.text), self.author, closed)
        return self._key


class Side(Record):
    """One side's changes against the base: runs of new blocks by insertion point."""

    __slots__ = ("runs",)
    runs: dict[int, list[str]]
    """Index of the base block they come before (`END`: after the last one) -> blocks."""

    def __init__(self, runs: dict[int, list[str]] | None = None) -> None:
        self.runs = {} if runs is None else runs


END = -1
"""Insertion point after the base's last terminated block."""


class Unsafe(Exception):
    """The sides cannot be merged at block level without guessing."""


class Diverged(Unsafe):
    """The sides moved phase or status differently at one insertion point. What merged on its
    own before that (`merged`) is known; each side's units from its first differing marker
    on (`ours`, `theirs`) are what conflicts."""

    def __init__(self, reason: str, merged: list[Unit], ours: list[Unit], theirs: list[Unit]):
        super().__init__(reason)
        self.merged = merged
        self.ours = ours
        self.theirs = theirs


def split_blocks(text: str) -> tuple[list[str], str]:
    """`text` as blocks, each ending with a ``---`` line, and the unterminated rest."""
    blocks: list[str] = []
    pos = 0
    for m in SEPARATOR.finditer(text):
        end = m.end()
        if end == pos:
            continue
        blocks.append(text[pos:end])
        pos = end
    return blocks, text[pos:]


BOUNDARY = re.compile(r"^---[ \t]*\r?\n(?:[ \t]*\r?\n)*Name:", re.M)


_STATE_KINDS = engine_kinds(merges=STATE)
"""The kinds that change phase or status (`kinds.STATE`)."""


def last_match(pattern: re.Pattern[str], text: str, end: int) -> re.Match[str] | None:
    """The last match of `pattern` (a line-anchored pattern) in ``text[:end]``, looking at
    the end first, so a large file is not scanned whole."""
    window = 1 << 15
    while True:
        start = max(0, end - window)
        if start:
            start = text.find("\n", start, end) + 1 or start  # from a line start
        found = None
        for m in pattern.finditer(text, start, end):
            found = m
        if found is not None or start == 0:
            return found
        window *= 4


def side_changes(
    base_text: str, base_blocks: Callable[[], list[str]], prefix_len: int, side: str
) -> Side | None:
    """Insertions `side` made into the base's terminated blocks (END: after the last one);
    None when it edited or deleted some."""
    if side.startswith(base_text[:prefix_len]):  # appended only: the usual case
        new_blocks, rest = split_blocks(side[prefix_len:])
        run = new_blocks + ([rest] if rest else [])
        return Side({END: run} if run else {})
    blocks = base_blocks()
    n = len(blocks)
    side_blocks, rest = split_blocks(side)
    if rest:
        side_blocks.append(rest)
    # Trim the common prefix, then diff what is left.
    k = 0
    limit = min(n, len(side_blocks))
    while k < limit and blocks[k] == side_blocks[k]:
        k += 1
    import difflib  # only when needed: it is slow to import

    matcher = difflib.SequenceMatcher(None, blocks[k:], side_blocks[k:], autojunk=False)
    runs: dict[int, list[str]] = {}
    for op, i1, _i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        if op != "insert":
            return None
        at = k + i1
        runs.setdefault(END if at == n else at, []).extend(side_blocks[k + j1 : k + j2])
    return Side(runs)


def units_of(blocks: list[str]) -> list[Unit]:
    """Cut a run of new blocks into comments and marker blocks (markers found by the parser)."""
    groups: list[list[str]] = []
    for block in blocks:
        if not groups or head_name(block) is not None:
            groups.append([block])
        else:
            groups[-1].append(block)
    units: list[Unit] = []
    for group in groups:
        units.extend(_split_markers(group))
    return units


def _split_markers(group: list[str]) -> list[Unit]:
    """One parser segment (a comment, or blocks before the first comment of a run), cut where
    a block holding an engine marker starts: every block the engine wrote is a unit of its
    own, so no merge can take one side's engine block for part of another unit."""
    text = "".join(group)
    marks: dict[int, list[tuple[str, str | None, str]]] = {}
    if has_engine_word(text):  # any engine block's name: else no parse
        from ..syntax.parse import parse_document

        doc = parse_document("---\n" + text)
        if doc.engine_markers:
            starts: list[int] = []  # 1-based line where each block starts, in the parsed text
            line = 2
            for block in group:
                starts.append(line)
                line += block.count("\n")
            for m in doc.engine_markers:
                index = max(i for i, s in enumerate(starts) if s <= m.line)
                state = marks.setdefault(index, [])
                if m.kind in _STATE_KINDS:
                    state.append((m.kind, m.source, m.target))
    if not marks:
        return [_unit(group, ())]
    units: list[Unit] = []
    current: list[str] = []
    found: list[tuple[str, str | None, str]] = []
    for i, block in enumerate(group):
        if i in marks and current:
            units.append(_unit(current, tuple(found)))
            current, found = [], []
        current.append(block)
        found.extend(marks.get(i, ()))
    units.append(_unit(current, tuple(found)))
    return units


def _unit(blocks: list[str], markers: tuple[tuple[str, str | None, str], ...]) -> Unit:
    head = head_name(blocks[0])
    author = head.strip() if head is not None else ""
    return Unit("".join(blocks), author, markers, head is not None)


def content_of(text: str) -> str:
    """What a unit says, whatever separators and blank lines surround it: a comment closed in
    one version and left open at the end of the file in another is the same comment, and so
    is one a hand typed ``---`` closed right below its last line (an earlier merge closed it
    after a blank line)."""
    return said(closed_block(text.replace("\r\n", "\n"), "\n"))


def closed_block(text: str, nl: str) -> str:
    """`text` ending with a ``---`` separator line (blank trailing lines dropped instead)."""
    _, rest = split_blocks(text)
    if not rest:
        return text
    if not rest.strip():
        return text[: len(text) - len(rest)]
    body = text if text.endswith("\n") else text + nl
    fence = open_fence_at_end(body.replace("\r\n", "\n"))
    if fence:  # as the engine does before appending: close the code block first
        body += fence + nl
    last = body.rstrip("\n").rsplit("\n", 1)[-1]  # lines end at "\n" only, as in the format
    if last.strip(" \t\r"):
        body += nl
    return body + "---" + nl


def adopt_closings(base: str, ours: str, theirs: str) -> tuple[str, str, str]:
    """Where one side holds a block of the base closed differently (a blank line before its
    ``---`` or not: an earlier merge closed a hand-typed comment its own way, and a rebase
    then replays commits made on the other closing), the base and the other side take that
    side's closing, so it is not taken for an edit of the text."""
    for k in (0, 1):
        side = (ours, theirs)[k]
        if side.startswith(base):
            continue
        held = split_blocks(side)[0]
        kept = set(held)
        by_said = {content_of(b): b for b in held}
        blocks, rest = split_blocks(base)
        swap = {
            b: by_said[content_of(b)]
            for b in blocks
            if b not in kept and by_said.get(content_of(b), b) != b
        }
        if not swap:
            continue
        base = "".join(swap.get(b, b) for b in blocks) + rest
        other_blocks, other_rest = split_blocks((theirs, ours)[k])
        other = "".join(swap.get(b, b) for b in other_blocks) + other_rest
        ours, theirs = (side, other) if k == 0 else (other, side)
    return base, ours, theirs


def fence_left_open(side_o: Side, side_t: Side, cont: list[str | None], tail: str) -> bool:
    """Whether a code block is left open at the end of a new comment (or of the base's
    unfinished one): only then can comments placed side by side parse differently from how
    each side parsed them, and the merged file must be parsed again to be sure. Otherwise
    each comment is a parser segment of its own, unchanged, and parsing is skipped (it is
    most of a merge's cost)."""
    for c in cont:
        if c is not None and _ends_in_code(tail + c):
            return True
    return any(
        _ends_in_code(u.text) for side in (side_o, side_t) for u in units_of(side.runs.get(END, []))
    )


def _ends_in_code(text: str) -> bool:
    """Whether `text` ends inside a fenced code block (one needs a run of backticks or tildes:
    without one, no line is looked at)."""
    if "```" not in text and "~~~" not in text:
        return False
    return bool(open_fence_at_end(text.replace("\r\n", "\n")))
