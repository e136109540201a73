"""How an append joins its text on is decided from the file's end (`model.tail.read_tail`):
read from the last 8 KiB of a long file where they hold a comment boundary, it is what the
64 KiB read before said, on files of every ending (issue 36, the `comment` row)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discussions.model import tail
from discussions.syntax.render import analyse_tail, join_blocks

_LINES = st.sampled_from(
    [
        b"---",
        b"--- ",
        b"",
        b"  ",
        b"Name: Ann",
        b"\xef\xbb\xbfName: Bo",
        b"\xef\xbb\xbf---",
        b"```",
        b"~~~",
        b"````python",
        b"    indented",
        b"Text.",
        b"caf\xe9 (not UTF-8)",
        b"x" * 9000,
        b"<!-- ROUND: 1 -->",
        b"- item",
    ]
)
_ENDS = st.sampled_from([b"\n", b"\r\n"])
_PART = st.lists(st.tuples(_LINES, _ENDS), max_size=30)


def _bytes(part: list[tuple[bytes, bytes]]) -> bytes:
    return b"".join(line + end for line, end in part)


def _joined(found: tuple[str, bool]) -> tuple[object, str]:
    text, whole = found
    shape = analyse_tail(text, at_file_start=whole)
    return shape, join_blocks(shape, ["Name: Rob\n\nHello.\n"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    filler_lines=st.integers(2_500, 4_000),
    filler_ends=st.lists(_ENDS, min_size=1, max_size=5),
    last=_PART,
)
def test_the_near_end_says_what_the_64_kib_said(
    tmp_path_factory: pytest.TempPathFactory,
    filler_lines: int,
    filler_ends: list[bytes],
    last: list[tuple[bytes, bytes]],
) -> None:
    """Over 64 KiB of comments whose lines end either way, then lines of every kind."""
    filler = b"".join(
        b"Line %d of a long discussion." % i
        + filler_ends[i % len(filler_ends)]
        + (b"---\n\nName: Ann\n\n" if i % 50 == 0 else b"")
        for i in range(filler_lines)
    )
    path = tmp_path_factory.mktemp("tail") / "d.md"
    path.write_bytes(filler + _bytes(last))
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        assert _joined(tail.read_tail(fd, size)) == _joined(tail._tail_chunks(fd, size))
    finally:
        os.close(fd)
