"""`Discussion`'s view of its state is one field list (`model.fields`): every attribute read
from the state is a `Field`, and `to_dict` is those fields, in their order."""

from __future__ import annotations

from pathlib import Path

from discussions.model.discussion import Discussion
from discussions.model.fields import Field, JsonEntry, plain
from discussions.model.view import StateView


def test_to_dict_is_the_field_list_in_order(isolated: Path) -> None:
    d = Discussion.create("Fields")
    d.save()
    d.add_comment("Rob", "Q: why?\n\nDECISION: because", vote="READY")
    d.save()
    declared = [
        a.key
        for a in vars(StateView).values()
        if isinstance(a, (Field, JsonEntry)) and a.key is not None
    ]
    data = d.to_dict()
    assert list(data) == declared
    assert data["questions"] == [
        {"text": "why?", "author": "Rob", "line": data["questions"][0]["line"]}
    ]
    for a in vars(StateView).values():
        if isinstance(a, Field) and a.key is not None and a.json is None:
            assert data[a.key] == plain(a.read(d._s)), a.key


def test_a_field_is_a_copy_of_the_state() -> None:
    assert Discussion.votes.__doc__
    assert isinstance(Discussion.decisions, Field)
