"""Three-way merge of a discussion file at the level of appended blocks (docs/git.md).

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

from ..syntax.record import Record
from ..syntax.text import detect_newline
from .plain import head_name, in_key_order, interleave
from .units import (
    BLANK_START,
    BOUNDARY,
    END,
    SEPARATOR,
    Diverged,
    Side,
    Unit,
    Unsafe,
    adopt_closings,
    closed_block,
    content_of,
    fence_left_open,
    last_match,
    side_changes,
    split_blocks,
    units_of,
)

TYPE_CHECKING = False  # as typing.TYPE_CHECKING; the parser is imported where a merge parses
if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Callable

CLEAN = "clean"
LINE_MERGE = "line-merge"
CONFLICT = "conflict"


class MergeResult(Record):
    """What `merge_texts` decided."""

    __slots__ = ("status", "text", "reason", "added_ours", "added_theirs", "shared")
    status: str
    """``clean`` (`text` is the merged file), ``line-merge`` (a side edited the base: run a
    normal three-way line merge), or ``conflict`` (`text` holds standard conflict markers)."""
    text: str
    """The merged file (clean), or the file with conflict markers (conflict)."""
    reason: str
    """One line: why the merge is not clean."""
    added_ours: int
    """Comments and markers only our side added that are in the result."""
    added_theirs: int
    """Comments and markers only their side added that are in the result."""
    shared: int
    """Comments and markers both sides added, written once."""

    def __init__(
        self,
        status: str,
        text: str = "",
        reason: str = "",
        added_ours: int = 0,
        added_theirs: int = 0,
        shared: int = 0,
    ) -> None:
        self.status = status
        self.text = text
        self.reason = reason
        self.added_ours = added_ours
        self.added_theirs = added_theirs
        self.shared = shared

    @property
    def clean(self) -> bool:
        return self.status == CLEAN


class _Tally:
    """What a merge counted and decided on the way: units from each side, shared ones, the
    conflict left in the text (its reason) and how to settle diverging phase moves."""

    __slots__ = ("ours", "theirs", "shared", "conflict", "marker_size", "prefer", "before")

    def __init__(self, marker_size: int = 7, prefer: str | None = None) -> None:
        self.ours = 0
        self.theirs = 0
        self.shared = 0
        self.conflict = ""
        self.marker_size = marker_size
        self.prefer = prefer
        self.before = ""  # the text before the new blocks at the end: where the sides part


def _segments(units: list[Unit]) -> tuple[list[list[Unit]], list[Unit]]:
    """Comments between marker blocks, and the marker blocks."""
    segments: list[list[Unit]] = [[]]
    markers: list[Unit] = []
    for u in units:
        if u.is_marker:
            markers.append(u)
            segments.append([])
        else:
            segments[-1].append(u)
    return segments, markers


def _merge_segment(a: list[Unit], b: list[Unit], tally: _Tally) -> list[Unit]:
    """Both sides' units in one phase segment: what both have is written once (in place),
    and where they differ, the two runs are interleaved by key (see `plain.interleave`)."""
    if not a or not b:
        tally.ours += len(a)
        tally.theirs += len(b)
        return interleave(a, b)
    # Compare in an order that does not depend on which side is "ours".
    x, y = in_key_order(a, b)
    swapped = x is b
    said_x, said_y = [content_of(u.text) for u in x], [content_of(u.text) for u in y]
    if set(said_x).isdisjoint(said_y):  # the usual case: nothing written on both sides
        tally.ours += len(a)
        tally.theirs += len(b)
        return interleave(x, y)
    import difflib  # only when needed: it is slow to import

    matcher = difflib.SequenceMatcher(None, said_x, said_y, autojunk=False)
    out: list[Unit] = []
    only_x = only_y = 0
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out += x[i1:i2]
            tally.shared += i2 - i1
            continue
        only_x += i2 - i1
        only_y += j2 - j1
        out += interleave(x[i1:i2], y[j1:j2])
    tally.ours += only_y if swapped else only_x
    tally.theirs += only_x if swapped else only_y
    return out


def _describe(markers: list[Unit]) -> str:
    parts = []
    for u in markers:
        for kind, source, target in u.markers:
            if kind != "vote-reset":
                parts.append(f"{source or '?'} -> {target}")
    return ", ".join(parts) or "none"


def _merge_runs(a: list[Unit], b: list[Unit], tally: _Tally) -> list[Unit]:
    """Both sides' new units at one insertion point, merged by phase segment."""
    seg_a, mark_a = _segments(a)
    seg_b, mark_b = _segments(b)
    common = min(len(mark_a), len(mark_b))
    parting = next((i for i in range(common) if mark_a[i].markers != mark_b[i].markers), None)
    if parting is not None:
        reason = (
            "the sides changed phase or status differently "
            f"(ours: {_describe(mark_a)}; theirs: {_describe(mark_b)})"
        )
        merged = _merge_runs(_before(a, mark_a[parting]), _before(b, mark_b[parting]), tally)
        rest_a, rest_b = a[a.index(mark_a[parting]) :], b[b.index(mark_b[parting]) :]
        raise Diverged(reason, merged, rest_a, rest_b)
    out: list[Unit] = []
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


def _before(units: list[Unit], marker: Unit) -> list[Unit]:
    return units[: units.index(marker)]


def _settled(exc: Diverged, tally: _Tally, nl: str) -> list[str]:
    """Diverging phase or status moves settled for the side `tally.prefer` names: what merged
    on its own, the other side's units (each in the phase its author saw), a move back to
    where the sides parted, then the preferred side's units, so its phase and status are the
    discussion's. Every block of both sides is kept."""
    from ..syntax.render import render_phase_transition, render_status_change  # resolve only

    loser, winner = (exc.theirs, exc.ours) if tally.prefer == "ours" else (exc.ours, exc.theirs)
    tally.ours += len(exc.ours)
    tally.theirs += len(exc.theirs)
    moves = [m for u in loser for m in u.markers]
    parted = _state_at(tally.before, exc.merged)
    back: list[str] = []
    for kind, render in (
        ("phase-transition", render_phase_transition),
        ("status-change", render_status_change),
    ):
        mine = [(source, target) for k, source, target in moves if k == kind]
        home = parted[kind] or (mine[0][0] if mine else None)
        if mine and home and mine[-1][1] != home:
            back.append(render(mine[-1][1], home).replace("\n", nl))
    return [u.text for u in (*exc.merged, *loser)] + back + [u.text for u in winner]


def _state_at(before: str, merged: list[Unit]) -> dict[str, str | None]:
    """The phase and status where the sides parted: each marker before them (then of what
    merged on its own) moves them to its target, whatever source it names, as the derivation
    does (`derive.rules.rule_engine_markers`); a side's first move may name another source."""
    from ..syntax.parse import parse_document

    doc = parse_document(before)
    head = doc.header
    state = {"phase-transition": head.get("phase"), "status-change": head.get("status") or "OPEN"}
    moves = [(m.kind, m.target) for m in doc.engine_markers]
    moves += [(kind, target) for u in merged for kind, _, target in u.markers]
    state.update((kind, target) for kind, target in moves if kind in state)
    return state


def _conflict_region(exc: Diverged, tally: _Tally, nl: str) -> str:
    """Each side's units from where they parted, between standard conflict markers."""
    size = tally.marker_size
    sides = []
    for units in (exc.ours, exc.theirs):
        text = _join_units([u.text for u in units], nl, first_after_separator=True, last=True)
        sides.append(text if text.endswith("\n") else text + nl)
    tally.conflict = str(exc)
    return f"{'<' * size} ours{nl}{sides[0]}{'=' * size}{nl}{sides[1]}{'>' * size} theirs{nl}"


def _shared_marker(a: Unit, b: Unit) -> Unit:
    """The phase or status change both sides made, written once; when the two blocks say
    different things besides, keeping one would drop the other's words: a conflict."""
    if a.text == b.text:
        return a
    if content_of(a.text) != content_of(b.text):
        raise Unsafe(
            f"both sides wrote {_describe([a])} in blocks that differ; "
            "cannot tell whether they are one change"
        )
    return min(a, b, key=lambda u: u.text)  # the same block, closed or not


def _open(text: str, nl: str) -> str:
    """`text` starting with a blank line, as every block after a separator should."""
    if not text or BLANK_START.match(text):
        return text
    return nl + text


def _join_units(texts: list[str], nl: str, *, first_after_separator: bool, last: bool) -> str:
    """New units placed one after another: each closed by a separator (but the very last of
    the file may stay open) and opened by a blank line."""
    out: list[str] = []
    kept = [t for t in texts if t]
    for i, text in enumerate(kept):
        if not (last and i == len(kept) - 1):
            text = closed_block(text, nl)
        if i > 0 or first_after_separator:
            text = _open(text, nl)
        out.append(text)
    return "".join(out)


def _is_terminator(text: str) -> bool:
    return text.strip() == "---"


def _trivial(base: str, ours: str, theirs: str, marker_size: int) -> MergeResult | None:
    """The merge when a side is the other or the base, or there is no base."""
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
    return None


def merge_texts(
    base: str, ours: str, theirs: str, *, marker_size: int = 7, prefer: str | None = None
) -> MergeResult:
    """Merge two versions of a discussion file that both started from `base`. Where the sides
    moved phase or status differently after the base's end, the conflict markers hold only
    the units from where they parted (what merges on its own stays outside); `prefer`
    (``ours`` or ``theirs``) settles that instead, for that side's phase (`_settled`)."""
    trivial = _trivial(base, ours, theirs, marker_size)
    if trivial is not None:
        return trivial
    if not ours.startswith(base) or not theirs.startswith(base):
        base, ours, theirs = adopt_closings(base, ours, theirs)
    nl = detect_newline(base)
    last = last_match(SEPARATOR, base, len(base))
    prefix_len = last.end() if last else 0
    tail = base[prefix_len:]
    cache: list[list[str]] = []

    def base_blocks() -> list[str]:  # split only when a side inserted inside the base
        if not cache:
            cache.append(split_blocks(base[:prefix_len])[0])
        return cache[0]

    side_o = side_changes(base, base_blocks, prefix_len, ours)
    side_t = side_changes(base, base_blocks, prefix_len, theirs)
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
    tally = _Tally(marker_size, prefer)
    try:
        middle = [i for i in sorted({*side_o.runs, *side_t.runs}) if i != END]
        # Insertions inside the base (a rebase replaying onto merged history), then the end.
        if middle:
            head = _assemble_middle(base_blocks, middle, side_o, side_t, tally, nl)
        else:
            head = base[:prefix_len]
        tally.before = head + tail
        text = head + tail + _assemble_end(side_o, side_t, cont, tail, nl, tally)
    except Unsafe as exc:
        return conflict(ours, theirs, str(exc), marker_size=marker_size)
    if tally.conflict:
        return MergeResult(CONFLICT, text, tally.conflict, tally.ours, tally.theirs, tally.shared)
    problem = None
    if middle or prefer or fence_left_open(side_o, side_t, cont, tail):
        start = _region_start(base, prefix_len, base_blocks if middle else None, middle)
        problem = _new_warning(base, ours, theirs, text, start)
    if problem:
        return _new_problem(ours, theirs, problem, marker_size)
    return MergeResult(CLEAN, text, "", tally.ours, tally.theirs, tally.shared)


def _peel_tail(tail: str, side_o: Side, side_t: Side) -> list[str | None] | None:
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


def _tail_moved(tail: str, side_o: Side, side_t: Side) -> bool:
    """Whether a side moved the base's unfinished last comment (a merge closed it and placed
    other comments before it) and both sides still hold it, unchanged, exactly once."""
    if not tail.strip():
        return False
    runs = [side.runs.get(END, []) for side in (side_o, side_t)]
    if all(run and run[0].startswith(tail) for run in runs):
        return False
    said = content_of(tail)
    return all(sum(content_of(u.text) == said for u in units_of(run)) == 1 for run in runs)


def _merged_run(run_o: list[str], run_t: list[str], tally: _Tally) -> list[str] | None:
    """Both sides' new blocks at one insertion point as unit texts, or None when only one side
    inserted there (its blocks are then taken as they are)."""
    if run_o and run_t:
        return [u.text for u in _merge_runs(units_of(run_o), units_of(run_t), tally)]
    tally.ours += len(units_of(run_o)) if run_o else 0
    tally.theirs += len(units_of(run_t)) if run_t else 0
    return None


def _assemble_middle(
    base_blocks: Callable[[], list[str]],
    middle: list[int],
    side_o: Side,
    side_t: Side,
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
    side_o: Side, side_t: Side, cont: list[str | None], tail: str, nl: str, tally: _Tally
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
            raise Unsafe("both sides continued the last, unfinished comment differently")
    continuation = c_o if c_o is not None else c_t
    run_o = side_o.runs.get(END, [])
    run_t = side_t.runs.get(END, [])
    region = ""
    try:
        texts = _merged_run(run_o, run_t, tally)
    except Diverged as exc:
        if tally.prefer is None:
            texts, region = [u.text for u in exc.merged], _conflict_region(exc, tally, nl)
        else:
            texts = _settled(exc, tally, nl)
    if texts is None:
        texts = run_o or run_t
        if continuation is None:
            return "".join(texts)  # one side's blocks, byte for byte
    last = not region
    if continuation is not None:
        if not texts:
            return (closed_block(continuation, nl) if region else continuation) + region
        return (
            closed_block(continuation, nl)
            + _join_units(texts, nl, first_after_separator=True, last=last)
            + region
        )
    after_blank_tail = bool(tail) and not tail.strip()
    joined = _join_units(texts, nl, first_after_separator=not after_blank_tail, last=last)
    return joined + region


def _region_start(
    base: str,
    prefix_len: int,
    base_blocks: Callable[[], list[str]] | None,
    middle: list[int],
) -> int:
    """Start of the line of the ``---`` that opens the last comment before the first
    insertion: everything before it is the same in all versions and parses the same."""
    if not middle or base_blocks is None:
        found = last_match(BOUNDARY, base, prefix_len)
        return found.start() if found else 0
    blocks = base_blocks()
    for h in range(min(middle[0], len(blocks)) - 1, 0, -1):
        if head_name(blocks[h]) is not None:
            offset = sum(len(b) for b in blocks[:h])
            return base.rfind("\n", 0, offset - 1) + 1
    return 0


def _warnings(text: str, start: int) -> Counter[str]:
    from collections import Counter

    from ..syntax.parse import parse_document

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


def check_line_merge(
    base: str, ours: str, theirs: str, merged: str, *, marker_size: int = 7
) -> MergeResult:
    """Accept a clean line merge (of edits) only when it brings no new parse warning."""
    problem = _new_warning(base, ours, theirs, merged)
    if problem:
        return _new_problem(ours, theirs, problem, marker_size)
    return MergeResult(CLEAN, merged)


def _new_problem(ours: str, theirs: str, problem: str, marker_size: int) -> MergeResult:
    """The conflict for a merge whose result would have a problem neither side had."""
    return conflict(
        ours,
        theirs,
        f"the merged file would have a problem neither side had: {problem}",
        marker_size=marker_size,
    )


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
