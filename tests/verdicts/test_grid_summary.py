"""`status` shows each author's latest positions over many rounds, and how many came before
(issue 36: over thousands of rounds the grid was megabytes of text); `--json` keeps them all."""

from __future__ import annotations

from discussions.derive.positions import Positions
from discussions.views.verdicts import GRID_ROUNDS


def _grid(rounds: int) -> Positions:
    values = ["READY", "CHANGES", "REJECT"]
    return Positions(
        rounds=list(range(1, rounds + 1)),
        grid={
            "AI-Architect": {r: values[r % 3] for r in range(1, rounds + 1)},
            "Rob": {r: "READY" for r in range(2, rounds + 1, 2)},
        },
    )


def test_a_short_grid_is_shown_whole() -> None:
    p = _grid(4)
    assert (
        p.grid_lines(last=GRID_ROUNDS)
        == p.grid_lines()
        == [
            "AI-Architect  R1 CHANGES  R2 REJECT  R3 READY  R4 CHANGES",
            "Rob           R2 READY  R4 READY",
        ]
    )


def test_a_long_grid_shows_the_last_rounds_after_how_many_came_before() -> None:
    p = _grid(1000)
    architect, rob = p.grid_lines(last=GRID_ROUNDS)
    assert architect.startswith(f"AI-Architect  ({1000 - GRID_ROUNDS} earlier rounds)  R989 ")
    assert architect.endswith("R1000 CHANGES") and architect.count("  R") == GRID_ROUNDS
    assert rob.startswith(f"Rob           ({500 - GRID_ROUNDS} earlier rounds)  R978 READY")
    whole = p.to_dict()
    assert len(whole["rounds"]) == 1000 and len(whole["grid"]["AI-Architect"]) == 1000
    assert len(p.grid_lines()[0].split("  R")) == 1001
