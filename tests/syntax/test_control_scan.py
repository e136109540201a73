"""The quick test for control characters that every parse runs (`controls._has_control`, bytes
for a Latin-1 text) agrees with the regex it stands for, on texts of every kind of character:
ASCII, Latin-1, beyond it, and every control and its neighbours."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from discussions.syntax.controls import _CONTROL_CHARACTER, _has_control, control_lines

EDGES = "\x00\x08\t\n\x0b\x0c\r\x1f \x7e\x7f\x80\x9f\xa0\xeb\xff\u0100\u2192\u2028\ufeff\U0001f600"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.one_of(st.sampled_from(EDGES), st.characters()), max_size=60))
def test_the_quick_test_agrees_with_the_regex(text: str) -> None:
    assert _has_control(text) == (_CONTROL_CHARACTER.search(text) is not None)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab\n\x07\x85\xeb\u2192"), max_size=40))
def test_control_lines_are_the_lines_the_regex_finds(text: str) -> None:
    expected = [
        (n, hit.group())
        for n, line in enumerate(text.split("\n"), 1)
        if (hit := _CONTROL_CHARACTER.search(line))
    ]
    assert control_lines(text) == expected
