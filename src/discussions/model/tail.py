"""The end of a discussion file as an append reads it to decide how its new text joins on
(`storage`): from a line start, holding the last comment boundary (`analyse_tail`).

A file of 20,000 comments is read from its last 8 KiB where they hold a boundary, not its
last 64 KiB: `analyse_tail` works line by line over what it is given, and what it answers
(the line ending, how the text ends, whether a fence is open after the last boundary) is the
same for both (`tests/model/test_tail_read.py`)."""

from __future__ import annotations

import os
import re

__all__ = ["BOUNDARY_BYTES", "read_tail"]

_TAIL_CHUNK = 64 * 1024
_NEAR = 8 * 1024
"""Bytes from the end read first for the last comment boundary (`_near_tail`)."""
BOUNDARY_BYTES = re.compile(
    rb"^(?:\xef\xbb\xbf)*---[ \t]*\r?\n(?:(?:\xef\xbb\xbf)*[ \t]*\r?\n)*(?:\xef\xbb\xbf)*Name:",
    re.M,
)
"""A comment boundary (``---``, blank lines, ``Name:``) in a file's bytes: BOMs at line
starts and carriage returns allowed, as the parser allows them."""


def read_tail(fd: int, size: int) -> tuple[str, bool]:
    """The end of the file, from a line start, holding the last comment boundary if any.
    Returns (text, whether it starts at the beginning of the file)."""
    near = _near_tail(fd, size)
    return (near, False) if near is not None else _tail_chunks(fd, size)


def _near_tail(fd: int, size: int) -> str | None:
    """What `analyse_tail` makes the same of as of `_tail_chunks`'s 64 KiB of a long file,
    read from its last 8 KiB when they hold a comment boundary (the last one is then there,
    and what follows it): the first line of those 64 KiB, which tells the file's newline
    (`detect_newline`), then those lines. None where that cannot be told so."""
    if size <= _TAIL_CHUNK:
        return None
    near = os.pread(fd, _NEAR, size - _NEAR)
    near = near[near.find(b"\n") + 1 :] if b"\n" in near else b""
    if BOUNDARY_BYTES.search(near) is None:
        return None
    first = os.pread(fd, _NEAR, size - _TAIL_CHUNK)
    cut = first.find(b"\n")
    end = first.find(b"\n", cut + 1) if cut >= 0 else -1
    if end < 0:
        return None
    return (first[cut + 1 : end + 1] + near).decode("utf-8", errors="replace")


def _tail_chunks(fd: int, size: int) -> tuple[str, bool]:
    """`read_tail`: 64 KiB from the end, four times as much until a boundary is in it."""
    chunk = _TAIL_CHUNK
    while True:
        start = max(0, size - chunk)
        data = os.pread(fd, size - start, start)
        if start > 0:
            nl = data.find(b"\n")
            data = data[nl + 1 :] if nl >= 0 else b""
        if start == 0:
            return data.decode("utf-8", errors="replace").removeprefix("\ufeff"), True
        # A real boundary (`---`, blank lines, `Name:`), not any `Name:` line: the fence state
        # that decides how to join depends on where the last comment starts.
        if BOUNDARY_BYTES.search(data) is not None:
            return data.decode("utf-8", errors="replace"), False
        chunk *= 4
