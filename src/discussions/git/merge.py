"""Three-way merge of a discussion file at the level of appended blocks (README, "Working in git").

Pure functions, no I/O: `merge_texts(base, ours, theirs)` says what the merged file is, or that
a line merge is needed (a side edited bytes of the base), or that the sides cannot be merged
safely (a real conflict, written with standard markers).

The unit of work is the *block*: text up to and including a ``---`` separator line. The engine
only ever appends whole blocks, so two sides that appended are two runs of new blocks inserted
into the base. A run is cut into *units*: a comment (a ``Name:`` block and the blocks that
continue it, such as a horizontal rule inside it) or a block the engine wrote (a phase
transition, vote reset or status change, and also a round, stop, escalation, pass, fallback or
motion result; found with the project's parser, so an example inside a code block is not one).
Every engine block is a unit of its own, so no block either side wrote can be mistaken for part
of another and dropped. Where both sides inserted at the same point:

* the sides' phase and status markers must agree (one sequence a prefix of the other), else it
  is a conflict; a shared marker is written once, and if the two blocks say different things
  besides, that is a conflict too;
* per phase segment, units both sides hold are written once, in place, and the units only one
  side has are interleaved as in the merge step of a merge sort: each side's order kept, the
  unit with the smaller key first wherever both have one waiting. The key is (when the unit
  was written, its author, a hash of its text): the time the tool records in a comment's
  metadata line or a pass's marker (``at: 2026-11-23T20:10:00Z``, compared as text, which
  sorts as the times do). A unit that records no time (typed by hand, written before times
  were kept, an engine block such as a round) has the empty time, which sorts before every
  time: one total order on keys, so the step stays symmetric and associative, and the result
  depends neither on which side is "ours" nor, for three or more branches, on the order they
  are merged in. What this means for an untimed unit: the merge step places each unit by the
  largest key of its side up to it, and the empty time never raises that, so an untimed
  comment stays right behind the unit its side had before it (at the head of a run, it goes
  first), unless an untimed unit of the other side waits at the same place (then author and
  hash decide). Timed comments of both sides come in time order where each side's own order
  allows; comments of one second, or both untimed, go by author and hash, as before times;
* a hand-typed comment without its closing ``---`` gets one before the next block, and one an
  earlier merge already closed and moved is recognised as the same comment.

A result with a parse warning that neither side had is a conflict, never a silent guess.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ..syntax.code import open_fence_at_end
from ..syntax.meta import written_at
from ..syntax.parse import parse_document
from ..syntax.text import detect_newline

_SEPARATOR = re.compile(r"^---[ \t]*(?:\r?\n|\Z)", re.M)
_NAME_HEAD = re.compile(r"\A(?:[ \t]*\r?\n)*Name:[ \t]*([^\r\n]*)")
_BLANK_START = re.compile(r"\A[ \t]*\r?\n")

CLEAN = "clean"
LINE_MERGE = "line-merge"
CONFLICT = "conflict"


@dataclass(slots=True)
class MergeResult:
    """What `merge_texts` decided."""

    status: str
    """``clean`` (`text` is the merged file), ``line-merge`` (a side edited the base: run a
    normal three-way line merge), or ``conflict`` (`text` holds standard conflict markers)."""
    text: str = ""
    """The merged file (clean), or the file with conflict markers (conflict)."""
    reason: str = ""
    """One line: why the merge is not clean."""
    added_ours: int = 0
    """Comments and markers only our side added that are in the result."""
    added_theirs: int = 0
    """Comments and markers only their side added that are in the result."""
    shared: int = 0
    """Comments and markers both sides added, written once."""

    @property
    def clean(self) -> bool:
        return self.status == CLEAN


@dataclass(slots=True)
class _Unit:
    """A comment, or a block the engine wrote (a marker block), with the blocks that continue
    it."""

    text: str
    author: str
    """Author of a comment (the ``Name:`` line); empty for an engine block."""
    markers: tuple[tuple[str, str | None, str], ...] = ()
    """(kind, source, target) of each phase, vote-reset or status marker in it, in order."""
    has_name: bool = False
    _key: tuple[str, str, str] | None = None

    @property
    def is_marker(self) -> bool:
        """Whether it changes phase or status (it then ends a phase segment)."""
        return bool(self.markers)

    @property
    def key(self) -> tuple[str, str, str]:
        """Where it goes among other new units: (when it was written, author, hash of what it
        says), the time as `format.written_at` reads it (``""`` when the unit does not say,
        which sorts before every time). It does not depend on the side, the newlines or
        whether the unit was closed by a separator."""
        if self._key is None:
            data = _content(self.text).encode("utf-8", "surrogatepass")
            self._key = (written_at(self.text), self.author, hashlib.sha256(data).hexdigest())
        return self._key


@dataclass(slots=True)
class _Side:
    """One side's changes against the base: runs of new blocks by insertion point."""

    runs: dict[int, list[str]] = field(default_factory=dict)
    """Index of the base block they come before (`END`: after the last one) -> blocks."""


END = -1
"""Insertion point after the base's last terminated block."""


class _Unsafe(Exception):
    """The sides cannot be merged at block level without guessing."""


# --------------------------------------------------------------------------- blocks


def split_blocks(text: str) -> tuple[list[str], str]:
    """`text` as blocks, each ending with a ``---`` line, and the unterminated rest."""
    blocks: list[str] = []
    pos = 0
    for m in _SEPARATOR.finditer(text):
        end = m.end()
        if end == pos:
            continue
        blocks.append(text[pos:end])
        pos = end
    return blocks, text[pos:]


_BOUNDARY = re.compile(r"^---[ \t]*\r?\n(?:[ \t]*\r?\n)*Name:", re.M)
_ENGINE_WORDS = re.compile(
    r"PHASE-TRANSITION|VOTE-RESET|STATUS-CHANGE|ROUND|RUN-STOP|ESCALATION|FALLBACK|PASS"
    r"|MOTION-RESULT"
)
_STATE_KINDS = ("phase-transition", "vote-reset", "status-change")


def _last_match(pattern: re.Pattern[str], text: str, end: int) -> re.Match[str] | None:
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


def _side_changes(
    base_text: str, base_blocks: Callable[[], list[str]], prefix_len: int, side: str
) -> _Side | None:
    """Insertions `side` made into the base's terminated blocks (END: after the last one);
    None when it edited or deleted some."""
    if side.startswith(base_text[:prefix_len]):  # appended only: the usual case
        new_blocks, rest = split_blocks(side[prefix_len:])
        run = new_blocks + ([rest] if rest else [])
        return _Side({END: run} if run else {})
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
    return _Side(runs)


def _units(blocks: list[str]) -> list[_Unit]:
    """Cut a run of new blocks into comments and marker blocks (markers found by the parser)."""
    groups: list[list[str]] = []
    for block in blocks:
        if not groups or _NAME_HEAD.match(block):
            groups.append([block])
        else:
            groups[-1].append(block)
    units: list[_Unit] = []
    for group in groups:
        units.extend(_split_markers(group))
    return units


def _split_markers(group: list[str]) -> list[_Unit]:
    """One parser segment (a comment, or blocks before the first comment of a run), cut where
    a block holding an engine marker starts: every block the engine wrote is a unit of its
    own, so no merge can take one side's engine block for part of another unit."""
    text = "".join(group)
    marks: dict[int, list[tuple[str, str | None, str]]] = {}
    if _ENGINE_WORDS.search(text):
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
    units: list[_Unit] = []
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


def _unit(blocks: list[str], markers: tuple[tuple[str, str | None, str], ...]) -> _Unit:
    head = _NAME_HEAD.match(blocks[0])
    author = head.group(1).strip() if head else ""
    return _Unit("".join(blocks), author, markers, head is not None)


# --------------------------------------------------------------------------- merging runs


@dataclass(slots=True)
class _Tally:
    ours: int = 0
    theirs: int = 0
    shared: int = 0


def _segments(units: list[_Unit]) -> tuple[list[list[_Unit]], list[_Unit]]:
    """Comments between marker blocks, and the marker blocks."""
    segments: list[list[_Unit]] = [[]]
    markers: list[_Unit] = []
    for u in units:
        if u.is_marker:
            markers.append(u)
            segments.append([])
        else:
            segments[-1].append(u)
    return segments, markers


def _content(text: str) -> str:
    """What a unit says, whatever separators and blank lines surround it: a comment closed in
    one version and left open at the end of the file in another is the same comment."""
    return _close(text.replace("\r\n", "\n"), "\n").strip()


def _interleave(x: list[_Unit], y: list[_Unit]) -> list[_Unit]:
    """Two runs of new units as one, each run's order kept, the smaller key first wherever
    both have one waiting (the merge step of a merge sort). Keys are totally ordered (see
    `_Unit.key`), so it is associative and symmetric: any number of branches merged in any
    order give the same sequence."""
    out: list[_Unit] = []
    i = j = 0
    while i < len(x) and j < len(y):
        if y[j].key < x[i].key:
            out.append(y[j])
            j += 1
        else:
            out.append(x[i])
            i += 1
    return out + x[i:] + y[j:]


def _merge_segment(a: list[_Unit], b: list[_Unit], tally: _Tally) -> list[_Unit]:
    """Both sides' units in one phase segment: what both have is written once (in place),
    and where they differ, the two runs are interleaved by key (see `_interleave`)."""
    if not a or not b:
        tally.ours += len(a)
        tally.theirs += len(b)
        return _interleave(a, b)
    # Compare in an order that does not depend on which side is "ours".
    swapped = [u.key for u in b] < [u.key for u in a]
    x, y = (b, a) if swapped else (a, b)
    said_x, said_y = [_content(u.text) for u in x], [_content(u.text) for u in y]
    if set(said_x).isdisjoint(said_y):  # the usual case: nothing written on both sides
        tally.ours += len(a)
        tally.theirs += len(b)
        return _interleave(x, y)
    import difflib  # only when needed: it is slow to import

    matcher = difflib.SequenceMatcher(None, said_x, said_y, autojunk=False)
    out: list[_Unit] = []
    only_x = only_y = 0
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out += x[i1:i2]
            tally.shared += i2 - i1
            continue
        only_x += i2 - i1
        only_y += j2 - j1
        out += _interleave(x[i1:i2], y[j1:j2])
    tally.ours += only_y if swapped else only_x
    tally.theirs += only_x if swapped else only_y
    return out


def _describe(markers: list[_Unit]) -> str:
    parts = []
    for u in markers:
        for kind, source, target in u.markers:
            if kind != "vote-reset":
                parts.append(f"{source or '?'} -> {target}")
    return ", ".join(parts) or "none"


def _merge_runs(a: list[_Unit], b: list[_Unit], tally: _Tally) -> list[_Unit]:
    """Both sides' new units at one insertion point, merged by phase segment."""
    seg_a, mark_a = _segments(a)
    seg_b, mark_b = _segments(b)
    common = min(len(mark_a), len(mark_b))
    if [u.markers for u in mark_a[:common]] != [u.markers for u in mark_b[:common]]:
        raise _Unsafe(
            "the sides changed phase or status differently "
            f"(ours: {_describe(mark_a)}; theirs: {_describe(mark_b)})"
        )
    out: list[_Unit] = []
    for i in range(max(len(seg_a), len(seg_b))):
        out += _merge_segment(
            seg_a[i] if i < len(seg_a) else [], seg_b[i] if i < len(seg_b) else [], tally
        )
        if i < common:
            out.append(_shared_marker(mark_a[i], mark_b[i]))
            tally.shared += 1
        elif i < len(mark_a):
            out.append(mark_a[i])
            tally.ours += 1
        elif i < len(mark_b):
            out.append(mark_b[i])
            tally.theirs += 1
    return out


def _shared_marker(a: _Unit, b: _Unit) -> _Unit:
    """The phase or status change both sides made, written once; when the two blocks say
    different things besides, keeping one would drop the other's words: a conflict."""
    if a.text == b.text:
        return a
    if _content(a.text) != _content(b.text):
        raise _Unsafe(
            f"both sides wrote {_describe([a])} in blocks that differ; "
            "cannot tell whether they are one change"
        )
    return min(a, b, key=lambda u: u.text)  # the same block, closed or not


# --------------------------------------------------------------------------- joining


def _is_terminated(text: str) -> bool:
    return not split_blocks(text)[1]


def _close(text: str, nl: str) -> str:
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


def _open(text: str, nl: str) -> str:
    """`text` starting with a blank line, as every block after a separator should."""
    if not text or _BLANK_START.match(text):
        return text
    return nl + text


def _join_units(texts: list[str], nl: str, *, first_after_separator: bool, last: bool) -> str:
    """New units placed one after another: each closed by a separator (but the very last of
    the file may stay open) and opened by a blank line."""
    out: list[str] = []
    kept = [t for t in texts if t]
    for i, text in enumerate(kept):
        if not (last and i == len(kept) - 1):
            text = _close(text, nl)
        if i > 0 or first_after_separator:
            text = _open(text, nl)
        out.append(text)
    return "".join(out)


def _is_terminator(text: str) -> bool:
    return text.strip() == "---"


# --------------------------------------------------------------------------- entry points


def merge_texts(base: str, ours: str, theirs: str, *, marker_size: int = 7) -> MergeResult:
    """Merge two versions of a discussion file that both started from `base`."""
    if ours == theirs:
        return MergeResult(CLEAN, ours)
    if base == ours:
        return MergeResult(CLEAN, theirs)
    if base == theirs:
        return MergeResult(CLEAN, ours)
    if not base:
        return conflict(
            ours, theirs, "both sides created this file, differently", marker_size=marker_size
        )
    nl = detect_newline(base)
    last = _last_match(_SEPARATOR, base, len(base))
    prefix_len = last.end() if last else 0
    tail = base[prefix_len:]
    cache: list[list[str]] = []

    def base_blocks() -> list[str]:  # split only when a side inserted inside the base
        if not cache:
            cache.append(split_blocks(base[:prefix_len])[0])
        return cache[0]

    side_o = _side_changes(base, base_blocks, prefix_len, ours)
    side_t = _side_changes(base, base_blocks, prefix_len, theirs)
    if side_o is None or side_t is None:
        return MergeResult(LINE_MERGE, reason="a side changed text that was already in the file")
    if tail and _tail_moved(tail, side_o, side_t):
        # A merge already placed the base's unfinished comment among other new ones (closed):
        # it is a unit both sides hold, and the base ends at its last separator.
        base, tail = base[:prefix_len], ""
        cont: list[str | None] = [None, None]
    else:
        found = _peel_tail(tail, side_o, side_t)
        if found is None:
            return MergeResult(LINE_MERGE, reason="a side changed the end of the file")
        cont = found
    tally = _Tally()
    try:
        middle = [i for i in sorted({*side_o.runs, *side_t.runs}) if i != END]
        # Insertions inside the base (a rebase replaying onto merged history), then the end.
        if middle:
            head = _assemble_middle(base_blocks, middle, side_o, side_t, tally, nl)
        else:
            head = base[:prefix_len]
        text = head + tail + _assemble_end(side_o, side_t, cont, tail, nl, tally)
    except _Unsafe as exc:
        return conflict(ours, theirs, str(exc), marker_size=marker_size)
    problem = None
    if middle or _fence_left_open(side_o, side_t, cont, tail):
        start = _region_start(base, prefix_len, base_blocks if middle else None, middle)
        problem = _new_warning(base, ours, theirs, text, start)
    if problem:
        return conflict(
            ours,
            theirs,
            f"the merged file would have a problem neither side had: {problem}",
            marker_size=marker_size,
        )
    return MergeResult(CLEAN, text, "", tally.ours, tally.theirs, tally.shared)


def _peel_tail(tail: str, side_o: _Side, side_t: _Side) -> list[str | None] | None:
    """Take the base's unterminated end off each side's run; returns what each side added to
    it (None: nothing), or None when a side's run does not start with it."""
    cont: list[str | None] = []
    for side in (side_o, side_t):
        run = side.runs.get(END, [])
        c: str | None = None
        if tail:
            if not run or not run[0].startswith(tail):
                return None
            rest = run[0][len(tail) :]
            run = run[1:]
            if tail.strip():
                c = rest or None
            elif rest:
                run = [rest, *run]
        side.runs[END] = run
        cont.append(c)
    return cont


def _tail_moved(tail: str, side_o: _Side, side_t: _Side) -> bool:
    """Whether a side moved the base's unfinished last comment (a merge closed it and placed
    other comments before it) and both sides still hold it, unchanged, exactly once."""
    if not tail.strip():
        return False
    runs = [side.runs.get(END, []) for side in (side_o, side_t)]
    if all(run and run[0].startswith(tail) for run in runs):
        return False
    said = _content(tail)
    return all(sum(_content(u.text) == said for u in _units(run)) == 1 for run in runs)


def _merged_run(run_o: list[str], run_t: list[str], tally: _Tally) -> list[str] | None:
    """Both sides' new blocks at one insertion point as unit texts, or None when only one side
    inserted there (its blocks are then taken as they are)."""
    if run_o and run_t:
        return [u.text for u in _merge_runs(_units(run_o), _units(run_t), tally)]
    tally.ours += len(_units(run_o)) if run_o else 0
    tally.theirs += len(_units(run_t)) if run_t else 0
    return None


def _assemble_middle(
    base_blocks: Callable[[], list[str]],
    middle: list[int],
    side_o: _Side,
    side_t: _Side,
    tally: _Tally,
    nl: str,
) -> str:
    """The base's terminated blocks with what the sides inserted between them."""
    blocks = base_blocks()
    out: list[str] = []
    pos = 0
    for i in middle:
        out.extend(blocks[pos:i])
        pos = i
        run_o = side_o.runs.get(i, [])
        run_t = side_t.runs.get(i, [])
        texts = _merged_run(run_o, run_t, tally)
        if texts is None:
            out.extend(run_o or run_t)
        else:
            out.append(_join_units(texts, nl, first_after_separator=True, last=False))
    out.extend(blocks[pos:])
    return "".join(out)


def _assemble_end(
    side_o: _Side, side_t: _Side, cont: list[str | None], tail: str, nl: str, tally: _Tally
) -> str:
    """What goes after the base's text: the continuation of its unfinished last comment (if
    a side wrote one), then both sides' new blocks."""
    c_o, c_t = cont
    if c_o is not None and c_t is not None and c_o != c_t:
        if _is_terminator(c_t):
            c_t = None
        elif _is_terminator(c_o):
            c_o = None
        else:
            raise _Unsafe("both sides continued the last, unfinished comment differently")
    continuation = c_o if c_o is not None else c_t
    run_o = side_o.runs.get(END, [])
    run_t = side_t.runs.get(END, [])
    texts = _merged_run(run_o, run_t, tally)
    if texts is None:
        texts = run_o or run_t
        if continuation is None:
            return "".join(texts)  # one side's blocks, byte for byte
    if continuation is not None:
        if not texts:
            return continuation
        return _close(continuation, nl) + _join_units(
            texts, nl, first_after_separator=True, last=True
        )
    after_blank_tail = bool(tail) and not tail.strip()
    return _join_units(texts, nl, first_after_separator=not after_blank_tail, last=True)


def _fence_left_open(side_o: _Side, side_t: _Side, cont: list[str | None], tail: str) -> bool:
    """Whether a code block is left open at the end of a new comment (or of the base's
    unfinished one): only then can comments placed side by side parse differently from how
    each side parsed them, and the merged file must be parsed again to be sure. Otherwise
    each comment is a parser segment of its own, unchanged, and parsing is skipped (it is
    most of a merge's cost)."""
    for c in cont:
        if c is not None and open_fence_at_end((tail + c).replace("\r\n", "\n")):
            return True
    for side in (side_o, side_t):
        for u in _units(side.runs.get(END, [])):
            if ("```" in u.text or "~~~" in u.text) and open_fence_at_end(
                u.text.replace("\r\n", "\n")
            ):
                return True
    return False


def _region_start(
    base: str,
    prefix_len: int,
    base_blocks: Callable[[], list[str]] | None,
    middle: list[int],
) -> int:
    """Start of the line of the ``---`` that opens the last comment before the first
    insertion: everything before it is the same in all versions and parses the same."""
    if not middle or base_blocks is None:
        found = _last_match(_BOUNDARY, base, prefix_len)
        return found.start() if found else 0
    blocks = base_blocks()
    for h in range(min(middle[0], len(blocks)) - 1, 0, -1):
        if _NAME_HEAD.match(blocks[h]):
            offset = sum(len(b) for b in blocks[:h])
            return base.rfind("\n", 0, offset - 1) + 1
    return 0


def _warnings(text: str, start: int) -> Counter[str]:
    return Counter(w.message for w in parse_document(text[start:]).warnings)


def _new_warning(base: str, ours: str, theirs: str, merged: str, start: int = 0) -> str | None:
    allowed = _warnings(ours, start) + _warnings(theirs, start)
    allowed.subtract(_warnings(base, start))
    new = _warnings(merged, start)
    new.subtract(allowed)
    for message, count in sorted(new.items()):
        if count > 0:
            return message
    return None


def split_appended(base: str, side: str) -> tuple[str, str] | None:
    """Cut `side` after its version of the base's last terminated block, so the base's edits
    can be merged line by line and what follows block by block. The base's last block may
    itself be edited (a typo fixed in the last comment): the side's blocks that replace the
    base's last ones are paired with them one for one, each like the one it replaces. None
    when the base ends with an unfinished comment the side does not hold exactly once after
    the cut (closed, maybe moved by a merge), or the side deleted or rewrote blocks at its end
    beyond recognition. Returns ``(head, appended)``: the side's version of the base (edits
    and all, ending with a separator line) and the blocks it appended after it."""
    blocks, rest = split_blocks(base)
    if not blocks:
        return None
    side_blocks, side_rest = split_blocks(side)
    if side_rest:
        side_blocks.append(side_rest)
    import difflib  # only when needed: it is slow to import

    n = len(blocks)
    matcher = difflib.SequenceMatcher(None, blocks, side_blocks, autojunk=False)
    cut = None
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if i2 != n or i1 == i2:
            continue
        if op == "equal":
            cut = j2
        elif (
            op == "replace"
            and j2 - j1 >= i2 - i1
            and all(_alike(blocks[i1 + k], side_blocks[j1 + k]) for k in range(i2 - i1))
        ):
            cut = j1 + (i2 - i1)
        else:
            return None
    if cut is None:
        return None
    head = "".join(side_blocks[:cut])
    if rest.strip():
        said = _content(rest)
        if sum(_content(u.text) == said for u in _units(side_blocks[cut:])) != 1:
            return None
    return head, side[len(head) :]


def _alike(old: str, new: str) -> bool:
    """Whether `new` is `old` edited (same first line, most lines kept), not another block."""
    import difflib

    a, b = old.strip().splitlines(), new.strip().splitlines()
    if not a or not b or a[0].strip() != b[0].strip():
        return False
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= 0.5


_ENGINE_START = re.compile(r"\A(?:[ \t]*\r?\n)*[ ]{0,3}<!--[ \t]*[A-Z][A-Z-]*[ \t]*:")


def _starts_unit(block: str) -> bool:
    """Whether a block starts a comment or an engine block (the merge driver only ever
    inserts whole units, so what follows an insertion starts one too)."""
    return bool(_NAME_HEAD.match(block) or _ENGINE_START.match(block))


@dataclass(slots=True)
class NotAppended:
    """Where and how a newer version of a file changed what an older one said."""

    offset: int
    """Offset in the newer text of the first difference."""
    kind: str
    """``changed`` (text rewritten), ``removed`` (text deleted, from the end or the middle)
    or ``inside`` (text inserted into an existing comment)."""


def appended_only(old: str, new: str) -> NotAppended | None:
    """None when `new` is `old` with blocks added only as merges and appends add them: every
    block of `old` in `new`, unchanged and in order, new comments and engine blocks between
    them (a merge orders both sides' comments), and an unfinished last comment of `old`
    closed, moved by a merge or continued. Otherwise where `new` first differs."""
    if new.startswith(old):
        return None
    old_blocks, old_rest = split_blocks(old)
    blocks, rest = split_blocks(new)
    if rest:
        blocks.append(rest)
    offsets = [0]
    for b in blocks:
        offsets.append(offsets[-1] + len(b))
    j = 0
    for block in old_blocks:
        k = j
        while k < len(blocks) and blocks[k] != block:
            k += 1
        if k == len(blocks):
            return _first_difference(block, blocks, j, offsets)
        if k > j and not (_starts_unit(blocks[j]) and _starts_unit(block)):
            return NotAppended(offsets[j], "inside")
        j = k + 1
    if not old_rest.strip():
        return None
    if j < len(blocks) and blocks[j].startswith(old_rest):
        return None  # closed or continued where it was
    said = _content(old_rest)
    if any(_content(u.text) == said for u in _units(blocks[j:])):
        return None  # closed, and a merge placed other comments before it
    return _first_difference(old_rest, blocks, j, offsets)


def _first_difference(old: str, blocks: list[str], j: int, offsets: list[int]) -> NotAppended:
    """Where block `old`, missing from ``blocks[j:]``, went: rewritten (a block there is like
    it, maybe after new comments a merge placed first), or removed (at block `j`)."""
    j = next((k for k in range(j, len(blocks)) if _alike(old, blocks[k])), j)
    if j == len(blocks) or not _alike(old, blocks[j]):
        return NotAppended(offsets[j] if j < len(blocks) else offsets[-1], "removed")
    current = blocks[j]
    limit = min(len(old), len(current))
    p = 0
    while p < limit and old[p] == current[p]:
        p += 1
    return NotAppended(offsets[j] + p, "changed")


def check_line_merge(
    base: str, ours: str, theirs: str, merged: str, *, marker_size: int = 7
) -> MergeResult:
    """Accept a clean line merge (of edits) only when it brings no new parse warning."""
    problem = _new_warning(base, ours, theirs, merged)
    if problem:
        return conflict(
            ours,
            theirs,
            f"the merged file would have a problem neither side had: {problem}",
            marker_size=marker_size,
        )
    return MergeResult(CLEAN, merged)


def conflict(
    ours: str,
    theirs: str,
    reason: str,
    *,
    marker_size: int = 7,
    labels: tuple[str, str] = ("ours", "theirs"),
) -> MergeResult:
    """Both sides with standard conflict markers around everything after the lines they share
    at the start (for appends: the base, then each side's new blocks)."""
    nl = detect_newline(ours or theirs)
    limit = min(len(ours), len(theirs))
    p = 0
    while p < limit and ours[p] == theirs[p]:
        p += 1
    p = ours.rfind("\n", 0, p) + 1
    mid_o, mid_t = ours[p:], theirs[p:]
    if mid_o and not mid_o.endswith("\n"):
        mid_o += nl
    if mid_t and not mid_t.endswith("\n"):
        mid_t += nl
    text = "".join(
        (
            ours[:p],
            f"{'<' * marker_size} {labels[0]}{nl}",
            mid_o,
            f"{'=' * marker_size}{nl}",
            mid_t,
            f"{'>' * marker_size} {labels[1]}{nl}",
        )
    )
    return MergeResult(CONFLICT, text, reason)
