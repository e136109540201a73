"""`code._no_fence_line`, the string search that spares most comments the search for their
top-level fences, says "no fence line" exactly where the fence-line regex finds none (and no
carriage return makes markdown-it's lines differ)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from discussions.syntax.code import _no_fence_line
from discussions.syntax.fences import FENCE_LINE

PIECES = [
    "```",
    "~~~",
    "``",
    "~~",
    "`",
    "~",
    " ",
    "  ",
    "   ",
    "    ",
    "\t",
    "\n",
    "\r",
    "x",
    "- ",
    "> ",
    "1. ",
]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_no_fence_line_is_what_the_regex_finds(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert _no_fence_line(text) == ("\r" not in text and FENCE_LINE.search(text) is None), text
