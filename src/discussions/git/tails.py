"""The usual merge, two sides that only appended, done on the tails (`merge_tails`).

When ours and theirs both start with the whole base (each side only appended), the three
versions share every byte up to the base's last comment. `merge.merge_texts` looks at nothing
before that comment's opening ``---`` line: it merges what comes after the base's last
separator, and parses (when it must) from that line on (`merge._region_start`). So the driver
cuts all three versions there and merges the tails: the shared part is neither decoded three
times, nor checked as a discussion, nor encoded again, and the result is the same bytes the
whole-file merge (`driver.merge_whole`) gives; tests/git/test_merge_tails.py checks that on
random appends. Where the cut cannot be proven equivalent (a side edited the base, a NUL byte,
no comment boundary near the end, another newline style), None: the whole-file merge runs.
The driver hands over what each side appended (`tail_merge`), read after checking a piece at a
time that its file starts with the base, so the sides' shared megabytes are never held.
"""

from __future__ import annotations

import codecs

from ..syntax.text import detect_newline
from .merge import CLEAN, CONFLICT, MergeResult, merge_texts
from .plain import PIECE
from .units import BOUNDARY, SEPARATOR, last_match

WINDOW = 1 << 14
"""Bytes at the end of the base first searched for its last comment boundary (from a line
start); four times more each time none is found, up to the whole base."""


def shared_cut(base: bytes, ours: bytes, theirs: bytes) -> int:
    """Where the three versions may be cut: the start of the line of the ``---`` that opens
    the base's last terminated comment (what the whole-file merge parses from), when both
    sides start with the whole base; 0 when there is no such place."""
    if not (ours.startswith(base) and theirs.startswith(base)):
        return 0
    return base_cut(base, ours[len(base) :], theirs[len(base) :])


def base_cut(base: bytes, added_o: bytes, added_t: bytes) -> int:
    """`shared_cut` for two sides given by what each appended to `base`."""
    if b"\x00" in base or b"\x00" in added_o or b"\x00" in added_t:
        return 0  # not a discussion: the line merge decides
    window = WINDOW
    while True:
        start = base.rfind(b"\n", 0, max(0, len(base) - window)) + 1  # a line start
        found = _last_boundary(base, start)
        if found is None or found > 0 or start == 0:
            return max(found or 0, 0)
        window *= 4


def _last_boundary(base: bytes, start: int) -> int | None:
    """The byte offset of the base's last comment boundary before its last separator, looking
    from `start` (a line start) on: -1 when there is none after `start`, None when the base
    is not UTF-8 there (the whole-file merge then merges by lines)."""
    try:
        window = base[start:].decode("utf-8")
    except UnicodeDecodeError:
        return None
    # A match in the window is one in the whole text: both patterns start at a line start.
    separator = last_match(SEPARATOR, window, len(window))
    boundary = None if separator is None else last_match(BOUNDARY, window, separator.end())
    if boundary is None:
        return -1
    return start + len(window[: boundary.start()].encode("utf-8"))


def merge_tails(
    base: bytes, ours: bytes, theirs: bytes, marker_size: int = 7
) -> tuple[MergeResult, bytes] | None:
    """The merge of three versions cut at `shared_cut`: the decision (its text the whole
    file) and the bytes to write, as `driver.merge_whole` gives them; None when the cut does
    not apply or the tails need more than a block merge (a line merge, say)."""
    if not (ours.startswith(base) and theirs.startswith(base)):
        return None
    found = tail_merge(base, ours[len(base) :], theirs[len(base) :], marker_size)
    if found is None:
        return None
    cut, result = found
    out = base[:cut] + result.text.encode("utf-8")
    result.text = base[:cut].decode("utf-8") + result.text
    return result, out


def tail_merge(
    base: bytes, added_o: bytes, added_t: bytes, marker_size: int = 7
) -> tuple[int, MergeResult] | None:
    """`merge_tails` of ``base + added_o`` and ``base + added_t`` without the shared part:
    the cut and the decision, whose text is the merged file from the cut on (what the driver
    writes there); None as for `merge_tails`. The shared part is checked to be UTF-8 piece by
    piece, never held as text."""
    cut = base_cut(base, added_o, added_t)
    if not cut or not _is_utf8(base, cut):  # not UTF-8: only a line merge can be trusted
        return None
    rest = base[cut:]
    try:
        tails = [data.decode("utf-8") for data in (rest, rest + added_o, rest + added_t)]
    except UnicodeDecodeError:
        return None
    first_line = base[: base.index(b"\n") + 1].decode("utf-8")  # the cut follows a newline
    if detect_newline(first_line) != detect_newline(tails[0]):
        return None  # the merge writes the base's first newline: the tail's must be it
    try:
        result = merge_texts(*tails, marker_size=marker_size)
    except Exception:  # noqa: BLE001 - the whole-file merge decides (and falls back)
        return None
    if result.status not in (CLEAN, CONFLICT):
        return None
    return cut, result


def _is_utf8(data: bytes, end: int) -> bool:
    """Whether ``data[:end]`` (`end` at a character's start) is UTF-8, decoded a piece at a
    time (at once when ASCII)."""
    if data.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for i in range(0, end, PIECE):
            decoder.decode(view[i : min(end, i + PIECE)])
        decoder.decode(b"", True)
    except UnicodeDecodeError:
        return False
    return True
