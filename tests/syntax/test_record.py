"""`Record`: the records of a parse compare and print by their fields, as dataclasses do."""

from __future__ import annotations

import pytest

from discussions.syntax.document import CommentBlock, Document, ParseWarning
from discussions.syntax.markers import Marker


def test_records_compare_by_fields_print_them_and_are_not_hashable() -> None:
    assert ParseWarning(3, "x") == ParseWarning(3, "x")
    assert ParseWarning(3, "x") != ParseWarning(4, "x")
    assert ParseWarning(3, "x") != Marker("Q", "x", 3)  # another record, the same values
    assert repr(Marker("Q", "why?", 2)) == "Marker(kind='Q', text='why?', line=2)"
    block = CommentBlock("Rob", 1, 3, "Hi.\n", 4, 4)
    assert block == CommentBlock("Rob", 1, 3, "Hi.\n", 4, 4)
    with pytest.raises(TypeError):
        hash(block)
    with pytest.raises(AttributeError):
        block.other = 1  # type: ignore[attr-defined]  # slots: no stray attributes


def test_a_document_s_lists_are_its_own() -> None:
    a, b = Document(), Document()
    a.warnings.append(ParseWarning(1, "x"))
    assert b.warnings == [] and a != b and Document() == Document()
