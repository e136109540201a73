"""The record kinds are declared once (`syntax.kinds`): the parser, the marker reader and the
merge's kind classes follow the tables, whatever kinds they hold."""

from __future__ import annotations

import pytest

from discussions.git.units import units_of
from discussions.syntax.document import ENGINE_LINE
from discussions.syntax.kinds import (
    ENGINE_KINDS,
    ITEM,
    MARKER_KINDS_TABLE,
    STATE,
    VALUE,
    alternation,
    engine_kinds,
)
from discussions.syntax.markers import extract
from discussions.syntax.parse import parse_document


def _args(form: str) -> str:
    return "3 | by: x" if form == VALUE else "a -> b"


@pytest.mark.parametrize("kind", ENGINE_KINDS, ids=lambda k: k.name)
def test_every_engine_kind_is_read_as_its_form_declares(kind: object) -> None:
    from discussions.syntax.kinds import EngineKind

    assert isinstance(kind, EngineKind)
    line = f"<!-- {kind.name}: {_args(kind.form)} -->"
    assert ENGINE_LINE.match(line) is not None
    doc = parse_document(f"<!-- DISCUSSION -->\n# T\n{line}\n")
    assert [(m.kind, m.line) for m in doc.engine_markers] == [(kind.kind, 3)]
    marker = doc.engine_markers[0]
    if kind.form == VALUE:
        assert (marker.source, marker.target) == (None, "3 | by: x")
    else:
        assert (marker.source, marker.target) == ("a", "b")


def test_a_move_without_an_arrow_is_malformed_unless_its_form_allows_a_value() -> None:
    doc = parse_document("# T\n<!-- PHASE-TRANSITION: b -->\n<!-- STATUS-CHANGE: CLOSED -->\n")
    assert [m.kind for m in doc.engine_markers] == ["status-change"]
    assert "malformed PHASE-TRANSITION" in doc.warnings[0].message


def test_the_merge_ends_a_phase_segment_at_exactly_the_state_kinds() -> None:
    for kind in ENGINE_KINDS:
        block = f"<!-- {kind.name}: {_args(kind.form)} -->\n\n---\n"
        (unit,) = units_of([block])
        assert unit.is_marker == (kind.merges == STATE), kind.name
    assert engine_kinds(merges=STATE) == ("phase-transition", "vote-reset", "status-change")


def test_a_longer_name_is_never_taken_for_a_shorter_one() -> None:
    assert alternation(["APPLY", "Q", "APPLY-REVIEW"]) == "Q|APPLY-REVIEW|APPLY"
    doc = parse_document("# T\n<!-- APPLY-REVIEW: 1 | result: implemented -->\n")
    assert [m.kind for m in doc.engine_markers] == ["apply-review"]


@pytest.mark.parametrize("kind", MARKER_KINDS_TABLE, ids=lambda k: k.name)
def test_every_marker_kind_is_found_in_a_comment(kind: object) -> None:
    from discussions.syntax.kinds import MarkerKind

    assert isinstance(kind, MarkerKind)
    value = "READY" if kind.name == "VOTE" else "something"
    found = extract(f"Some words.\n\n- **{kind.name}:** {value}\n", 10)
    assert [(m.kind, m.text, m.line) for m in found.markers] == [(kind.name, value, 12)]


def test_the_state_collects_the_item_kinds() -> None:
    from discussions.derive.state import State

    items = [k.name for k in MARKER_KINDS_TABLE if k.role == ITEM]
    fresh = State(None, None)  # type: ignore[arg-type]  # only its empty items are read
    assert list(fresh.items) == items


def test_each_engine_kind_names_a_rule_of_the_list_as_its_reader() -> None:
    from discussions.derive.rules import RULES

    names = {name for name, _ in RULES}
    assert {k.reader for k in ENGINE_KINDS} - {""} <= names


def test_the_item_sections_show_exactly_the_item_kinds() -> None:
    """`model.sections` gives each item kind its heading and place in the views: one section
    per kind the table says is an item."""
    from discussions.model.sections import SECTIONS
    from discussions.syntax.kinds import ITEM_KINDS

    assert sorted(s.marker for s in SECTIONS) == sorted(ITEM_KINDS)
