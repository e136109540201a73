"""Merge-conflict lines (`syntax.conflicts`): found outside fenced code, in any line ending,
and never a heading underline."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discussions.syntax.conflicts import conflict_lines, may_have_conflicts

CONFLICT = """\
<!-- DISCUSSION -->
<!-- Title: T -->

---

Name: Rob

<<<<<<< ours
I agree.
||||||| base
I think so.
=======
I disagree.
>>>>>>> theirs

---
"""


def test_the_lines_of_a_conflict_in_order() -> None:
    assert conflict_lines(CONFLICT) == [8, 10, 12, 14]
    assert may_have_conflicts(CONFLICT.encode())


def test_windows_line_endings_and_a_bom_count_the_same_lines() -> None:
    crlf = "\ufeff" + CONFLICT.replace("\n", "\r\n")
    assert conflict_lines(crlf) == [8, 10, 12, 14]
    assert may_have_conflicts(crlf.encode("utf-8"))


def test_a_conflict_shown_in_fenced_code_is_an_example() -> None:
    fenced = CONFLICT.replace("<<<<<<< ours", "```text\n<<<<<<< ours").replace(
        ">>>>>>> theirs", ">>>>>>> theirs\n```"
    )
    assert conflict_lines(fenced) == []


@pytest.mark.parametrize(
    "text",
    [
        "Heading\n=======\n\nText.\n",  # a setext heading underline alone
        "<<<<<<<< eight is not git's marker\n=======\n",
        "x <<<<<<< not at the start of the line\n",
        "",
    ],
)
def test_what_is_not_a_conflict(text: str) -> None:
    assert conflict_lines(text) == []


def test_the_byte_test_is_false_only_when_there_is_certainly_none() -> None:
    assert not may_have_conflicts(b"No markers here.\n")
    assert not may_have_conflicts(b"a ======= b\n")  # a run, but not a line of its own
    assert may_have_conflicts(b"=======\n")  # a candidate: the text test decides


# --------------------------------------------------------------------------- issue 36

# The line patterns alone, tried at every line (the oracle).
_OLD_CANDIDATE = re.compile(r"^(?:<{7}|>{7}|\|{7})(?: [^\n]*)?$|^={7}[ \t]*$", re.M)
_OLD_CANDIDATE_BYTES = re.compile(rb"^(?:<{7}|>{7}|\|{7})(?: [^\n]*)?\r?$|^={7}[ \t]*\r?$", re.M)
_PIECES = [
    "<<<<<<< ours",
    "<<<<<<<",
    ">>>>>>> theirs",
    "||||||| base",
    "=======",
    "======= ",
    "=======x",
    "<<<<<<",
    " =======",
    "text",
    "```",
    "",
    "\r",
    "\ufeff<<<<<<< a",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=16), st.sampled_from(["\n", "\r\n", " "]))
def test_the_quick_tests_agree_with_the_line_pattern(pieces: list[str], sep: str) -> None:
    """The scans for a line that starts with a run (the first step of both tests) never hide
    a line the candidate pattern finds."""
    text = sep.join(pieces)
    data = text.encode("utf-8")
    assert may_have_conflicts(data) == (_OLD_CANDIDATE_BYTES.search(data) is not None)
    norm = text.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")
    hits = [norm.count("\n", 0, m.start()) + 1 for m in _OLD_CANDIDATE.finditer(norm)]
    sides = any(norm[m.start()] in "<>" for m in _OLD_CANDIDATE.finditer(norm))
    if "```" not in norm:
        assert conflict_lines(text) == (hits if sides else [])


def test_markers_of_a_larger_conflict_marker_size_are_conflicts_and_neutralised() -> None:
    """A repository's attributes may set `conflict-marker-size` (git writes that many, never
    fewer than seven): such a file is conflicted too, and a provider's answer that quotes one
    is written so that it is not."""
    from discussions.syntax.conflicts import conflict_lines, may_have_conflicts
    from discussions.syntax.render import neutralise

    marked = "Name: A\n\n<<<<<<<<< ours\nmine\n=========\ntheirs\n>>>>>>>>> theirs\n"
    assert conflict_lines(marked) == [3, 5, 7]
    assert may_have_conflicts(marked.encode())
    assert conflict_lines(neutralise(marked)) == []
    # A longer run alone (a rule, an underline) or without its other sides is none.
    assert conflict_lines("Name: A\n\nTitle\n=========\n") == []
    assert conflict_lines("Name: A\n\n<<<<<<<<< ours\nmine\n=========\n") == []
