"""`discussions run` with a pending @mention: the mention adds the mentioned participant to a
round; it does not replace the council (issue 34, item 1)."""

from __future__ import annotations

from pathlib import Path

from discussions import Discussion

from ..conftest import code, out, result_of, run


def _orders(path: Path) -> list[list[str]]:
    rounds = Discussion.load(path).rounds
    return [[a.strip() for a in r.fields["order"].split(",")] for r in rounds]


def test_a_person_mentioning_one_participant_does_not_silence_the_others(isolated: Path) -> None:
    assert code(run("new", "R")) == 0
    assert code(run("comment", "r.md", "@pragmatist what do you think?")) == 0
    r = run("run", "r.md", "--provider", "mock", "--rounds", "2", "--json")
    assert code(r) == 0, out(r)
    orders = _orders(isolated / "discussions" / "r.md")
    assert orders, out(r)
    for order in orders:
        assert set(order) == {"architect", "security", "pragmatist"}, orders
    assert result_of(r)["rounds"] == len(orders)


def test_a_mentioned_participant_outside_the_council_joins_the_round(isolated: Path) -> None:
    assert code(run("new", "Small", "--participants", "architect")) == 0
    assert code(run("comment", "small.md", "@security is this safe?")) == 0
    r = run("run", "small.md", "--provider", "mock", "--rounds", "1", "--json")
    assert code(r) == 0, out(r)
    orders = _orders(isolated / "discussions" / "small.md")
    assert orders == [["architect", "security"]], orders


def test_turn_without_names_still_answers_only_the_pending_mentions(isolated: Path) -> None:
    assert code(run("new", "T")) == 0
    assert code(run("comment", "t.md", "@pragmatist what do you think?")) == 0
    r = run("turn", "t.md", "--provider", "mock", "--json")
    assert code(r) == 0, out(r)
    d = Discussion.load(isolated / "discussions" / "t.md")
    assert [c.author for c in d.comments if c.author.startswith("AI-")] == ["AI-Pragmatist"]
