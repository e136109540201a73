"""`ops.turns`: a turn and a run through the one function each interface calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from discussions.errors import BadInput
from discussions.ops.service import DiscussionTools
from discussions.ops.turns import turn
from discussions.settings.workspace import Workspace

from ..conftest import code, out, result_of, run


def test_a_turn_through_the_op_answers_as_turn_json(isolated: Path) -> None:
    assert code(run("new", "Cache", "--participants", "architect")) == 0
    path = isolated / "discussions" / "cache.md"
    heard: list[list[str]] = []
    done = turn(
        Workspace.discover(), path, provider="mock",
        ready=lambda d, chosen: heard.append([p.alias for p in chosen]),
    )  # fmt: skip
    assert heard == [["architect"]]  # told who is asked before anyone is
    by_cli = result_of(run("turn", str(path), "--provider", "mock", "--json"))
    assert set(done.to_dict()) == set(by_cli)
    assert done.to_dict()["posted"] == by_cli["posted"] == 1


def test_rounds_out_of_range_are_refused_alike_everywhere(isolated: Path) -> None:
    assert code(run("new", "Cache", "--participants", "architect")) == 0
    r = run("run", "cache.md", "--rounds", "101", "--provider", "mock")
    assert code(r) == 2 and "rounds must be between 1 and 100" in out(r)
    with pytest.raises(BadInput, match="rounds must be between 1 and 100"):
        DiscussionTools().start_run("cache.md", rounds=101, provider="mock")
    assert "ROUND" not in (isolated / "discussions" / "cache.md").read_text(encoding="utf-8")
