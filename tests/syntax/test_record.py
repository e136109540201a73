"""`Record` and `FrozenRecord` behave as the dataclasses they replace where start-up counts:
equal by fields, a readable repr; a frozen one unchangeable, hashable and picklable."""

from __future__ import annotations

import copy
import pickle

import pytest

from discussions.model.budget import Budget, CallEstimate
from discussions.providers.usage import Usage
from discussions.syntax.record import FrozenRecord, Record


class _Point(Record):
    __slots__ = ("x", "y")

    def __init__(self, x: int, y: int = 0) -> None:
        self.x = x
        self.y = y


def test_a_record_is_equal_by_fields_and_unhashable() -> None:
    assert _Point(1, 2) == _Point(1, 2)
    assert _Point(1, 2) != _Point(1, 3)
    assert repr(_Point(1)) == "_Point(x=1, y=0)"
    with pytest.raises(TypeError):
        hash(_Point(1))


def test_a_frozen_record_is_hashable_unchangeable_and_picklable() -> None:
    u = Usage(10, 20, 0.5)
    assert u == Usage(10, 20, 0.5) and hash(u) == hash(Usage(10, 20, 0.5))
    assert u != Usage(10, 20, None)
    assert repr(u) == "Usage(input_tokens=10, output_tokens=20, cost_usd=0.5, model=None)"
    with pytest.raises(AttributeError):
        u.cost_usd = 1.0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del u.cost_usd  # type: ignore[misc]
    for back in (pickle.loads(pickle.dumps(u)), copy.copy(u), copy.deepcopy(u)):
        assert back == u and type(back) is Usage
    assert {Budget(max_calls=3): "x"}[Budget(None, None, 3)] == "x"
    assert CallEstimate(tokens=5).tokens == 5 and CallEstimate().cost_basis == ""
    assert isinstance(u, FrozenRecord)
