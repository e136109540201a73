"""Budgets stop a run before a call the remaining budget cannot cover, on the file's evidence.

The provider is a real script answering in Claude Code's JSON shape at a fixed price
(`scripts/priced.py`, read through the ``claude-json`` output format)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions import Discussion
from discussions.derive.usage import UsageTotals
from discussions.model.budget import Budget, CallEstimate

from ..conftest import code, out, result_of, run, script_command, write


@pytest.fixture
def priced(isolated: Path, providers_file):  # type: ignore[no-untyped-def]
    """A provider `priced` at $0.40 and 100 + 300 tokens a call; a discussion `spend.md`."""
    providers_file(
        {"priced": script_command("priced.py", "0.40", "300")},
        priced={"output": "claude-json"},
    )
    write(isolated / "discussions.yaml", "providers:\n  detect: false\n")
    assert code(run("new", "Spend")) == 0
    return isolated / "discussions" / "spend.md"


def _costs(path: Path) -> list[float]:
    d = Discussion.load(path)
    return [float(c.meta["cost"][1:]) for c in d.comments if "cost" in c.meta]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("aliases", "sequential", "calls"),
    [
        (["@architect", "@security"], False, 2),  # round 2 would need $0.80 more
        (["@architect", "@security", "@pragmatist"], False, 1),  # 1 call, then 2 more: $1.20
        (["@architect", "@security", "@pragmatist"], True, 2),  # the third would make $1.20
    ],
)
def test_max_cost_is_never_overshot(
    priced: Path, aliases: list[str], sequential: bool, calls: int
) -> None:
    args = ["run", "spend.md", *aliases, "--provider", "priced", "--rounds", "5"]
    r = run(*args, "--max-cost", "1.0", "--json", *(["-s"] if sequential else []))
    assert code(r) == 0, out(r)
    res = result_of(r)
    assert res["stopped"] == "budget"
    costs = _costs(priced)
    assert len(costs) == calls and sum(costs) <= 1.0
    spent = f"${sum(costs):.4f} spent"
    reason = str(res["budget_stop"])
    assert reason.startswith(f"max_cost_usd 1: {spent}; ")
    assert "estimated at $" in reason and "(the largest call cost seen from priced)" in reason
    text = priced.read_text(encoding="utf-8")
    assert text.count("RUN-STOP: budget") == 1
    assert f"the budget is used up (max_cost_usd 1: {spent}; " in text
    status = out(run("status", "spend.md"))
    assert "stopped: budget" in status


@pytest.mark.slow
def test_token_budget_is_never_overshot(priced: Path, isolated: Path) -> None:
    write(
        isolated / "discussions.yaml",
        "providers:\n  detect: false\nbudget:\n  max_tokens: 1000\n",
    )
    r = run("run", "spend.md", "--provider", "priced", "-s", "--rounds", "3", "--json")
    assert code(r) == 0, out(r)
    res = result_of(r)
    assert res["stopped"] == "budget"
    assert Discussion.load(priced).usage.total.tokens == 800  # 2 calls of 400
    assert str(res["budget_stop"]).startswith(
        "max_tokens 1000: 800 tokens used; 1 more call(s) estimated at 400 tokens"
    )


@pytest.mark.slow
def test_the_evidence_is_the_file_so_a_later_run_knows_the_price(priced: Path) -> None:
    assert code(run("turn", "spend.md", "@architect", "--provider", "priced")) == 0
    # $0.40 spent; a parallel round of three would cost $1.20 more: no call at all.
    r = run("run", "spend.md", "--provider", "priced", "--max-cost", "1.0", "--json")
    res = result_of(r)
    assert res["stopped"] == "budget" and res["rounds"] == 0
    assert "3 more call(s) estimated at $1.2000" in str(res["budget_stop"])
    assert len(_costs(priced)) == 1


def test_refusal_sums_the_calls_started_together() -> None:
    spent = UsageTotals()
    for _ in range(4):
        spent.add_meta({"provider": "p", "tokens": "1 in / 1 out", "cost": "$0.200000"})
    one = CallEstimate(0.2, 2, "the largest call cost seen from p", "the largest call seen")
    assert Budget(max_cost_usd=1.0).refusal(spent, 1, [one]) is None  # lands on $1.00
    reason = Budget(max_cost_usd=1.0).refusal(spent, 2, [one, one])
    assert reason is not None and "2 more call(s) estimated at $0.4000" in reason
    assert Budget(max_cost_usd=1.0).refusal(spent, 2) is None  # nothing to estimate from


@pytest.mark.slow
def test_passes_and_council_calls_are_counted_and_checked(
    isolated: Path, providers_file, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """A pass and the council's seconds and ballots cost money too: their usage is recorded,
    and the council asks nobody the budget cannot cover."""
    from ..support.council import council_template

    council_template(isolated)
    plan = {"mover": "architect", "motion": "Ship it", "second": {"security": "yes"}}
    inner = script_command("council.py", json.dumps(plan), str(tmp_path / "memory"))
    providers_file(
        {"priced": script_command("priced.py", "0.10", "300", "--") + " " + inner},
        priced={"output": "claude-json"},
    )
    write(isolated / "discussions.yaml", "providers:\n  default: priced\n  detect: false\n")
    assert code(run("new", "Plan", "--template", "council")) == 0
    path = isolated / "discussions" / "plan.md"
    # Round 1: three calls (the mover's motion, two passes) $0.30; seconding two more, $0.50;
    # the three ballots would make $0.80.
    r = run("run", "plan.md", "--max-cost", "0.6", "--json")
    assert code(r) == 0, out(r)
    res = result_of(r)
    assert res["stopped"] == "budget"
    assert str(res["budget_stop"]).startswith("max_cost_usd 0.6: $0.5000 spent; 3 more call(s)")
    usage = Discussion.load(path).usage.total
    assert usage.calls == 5 and usage.cost_unknown_calls == 0
    assert usage.cost_usd == pytest.approx(0.5)
    assert not list((tmp_path / "memory" / "prompts").glob("*-ballot.txt"))  # nobody was asked
    text = path.read_text(encoding="utf-8")
    assert (
        "| provider: priced | tokens: 100 in / 300 out | cost: $0.100000 | at: " in text
    )  # a pass


def test_estimates_come_from_the_providers_that_may_answer(priced: Path) -> None:
    from discussions.model.budget import estimate_call

    assert code(run("turn", "spend.md", "@architect", "--provider", "priced")) == 0
    assert code(run("turn", "spend.md", "@security", "--provider", "mock")) == 0
    usage = Discussion.load(priced).usage
    mine = estimate_call(usage, ["priced"])
    assert (mine.cost_usd, mine.tokens, mine.seen) == (0.4, 400, True)
    assert mine.cost_basis == "the largest call cost seen from priced"
    assert estimate_call(usage, ["mock"]).cost_usd == 0  # seen: costs nothing
    unseen = estimate_call(usage, ["claude", "codex"])  # never answered here: any provider's
    assert (unseen.cost_usd, unseen.seen) == (0.4, False)
    assert unseen.cost_basis == "the largest call cost seen here"
