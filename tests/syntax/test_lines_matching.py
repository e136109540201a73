"""The parse finds boundaries and engine blocks by searching from newline to newline
(`parse._lines_matching`, issue 36): it finds the very matches ``finditer`` with ``^`` finds,
at the same lines, from any start."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from discussions.syntax.document import BOUNDARY, ENGINE_LINE
from discussions.syntax.parse import _BOUNDARY_NL, _ENGINE_LINE_NL, _lines_matching

PIECES = [
    "---",
    "--- ",
    "",
    " ",
    "Name: AI-A",
    "Name:",
    "text",
    "<!-- ROUND: 2 -->",
    "   <!-- PASS: x -->  ",
    "    <!-- ROUND: 3 -->",
    "<!-- ROUND: -->",
    "<!-- NOTHING: 1 -->",
    "- Name: b",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14), st.booleans(), st.integers(0, 120))
def test_the_same_matches_as_finditer(lines: list[str], newline: bool, start: int) -> None:
    text = "\n".join(lines) + ("\n" if newline else "")
    start = min(start, len(text))
    for pattern, after_newline in ((BOUNDARY, _BOUNDARY_NL), (ENGINE_LINE, _ENGINE_LINE_NL)):
        expected = [(m.start(), m.end(), m.groups()) for m in pattern.finditer(text, start)]
        found = [
            (at, m.end(), m.groups())
            for at, m in _lines_matching(pattern, after_newline, text, start)
        ]
        assert found == expected, (text, start)
