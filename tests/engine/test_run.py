"""`discussions run`: rounds to a decision, stop conditions, escalation, scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions import Discussion

from ..conftest import code, out, result_of, run, script_command, signed, write
from ..support.waiting import running_below, wait_for, wait_for_text


@pytest.fixture
def stand_in(isolated: Path, providers_file, tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(mode: str) -> None:
        providers_file({"standin": script_command("deliberate.py", mode, str(tmp_path / "memory"))})
        write(isolated / "discussions.yaml", "providers:\n  default: standin\n  detect: false\n")

    return make


def test_run_reaches_consensus_when_participants_agree_from_round_two(
    stand_in, isolated: Path
) -> None:  # type: ignore[no-untyped-def]
    stand_in("agree2")
    assert code(run("new", "Rollout")) == 0
    r = run("run", "rollout.md", "--json")
    assert code(r) == 0, out(r)
    res = result_of(r)
    assert res["stopped"] == "consensus"
    assert res["status"] == "DECIDED"
    assert res["phase"] == "consensus_vote"
    d = Discussion.load(isolated / "discussions" / "rollout.md")
    assert d.status == "DECIDED"
    assert d.last_stop is not None and d.last_stop.value == "consensus"
    assert len(d.rounds) == res["rounds"]
    status = run("status", "rollout.md", "--json")
    data = json.loads(out(status))
    assert data["run"]["stopped"] == "consensus"
    assert data["run"]["rounds"] == res["rounds"]
    assert data["escalation"] is None


def test_run_stops_at_the_limit_and_escalates(stand_in, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    stand_in("never")
    assert code(run("new", "Forever", "--template", "deliberation")) == 0
    r = run("run", "forever.md", "--rounds", "3", "--json")
    assert code(r) == 0, out(r)
    res = result_of(r)
    assert res["stopped"] == "max_rounds" and res["rounds"] == 3
    assert res["status"] == "OPEN"
    assert any(
        "AI-Architect: vote CHANGES, score 5/10, pending: no rollback plan" in line
        for line in res["escalation"]
    )  # type: ignore[union-attr]
    path = isolated / "discussions" / "forever.md"
    text = path.read_text()
    assert "<!-- ESCALATION: max_rounds -->" in text
    assert "**Escalation:" in text  # visible to a reader
    shown = out(run("status", "forever.md"))
    assert "Escalation" in shown
    # A human vote answers the escalation.
    assert code(run("comment", "forever.md", "--vote", "READY", "--author", "Rob")) == 0
    assert Discussion.load(path).escalation is None
    assert Discussion.load(path).warnings == []


def test_score_consensus_needs_every_expected_participant(stand_in, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    stand_in("crash:security")
    assert code(run("new", "Partial", "--template", "deliberation")) == 0
    r = run("run", "partial.md", "--rounds", "2", "--json")
    res = result_of(r)
    assert res["stopped"] == "max_rounds"
    d = Discussion.load(isolated / "discussions" / "partial.md")
    assert d.scores == {"AI-Architect": 10, "AI-Pragmatist": 10}
    assert not d.has_consensus()
    assert "AI-Security" in d.consensus_result.waiting_for


def test_score_consensus_is_reached_from_round_two(stand_in, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    stand_in("agree2")
    assert code(run("new", "Scored", "--template", "deliberation")) == 0
    res = result_of(run("run", "scored.md", "--json"))
    assert res["stopped"] == "consensus" and res["rounds"] == 2
    d = Discussion.load(isolated / "discussions" / "scored.md")
    assert d.scores == {"AI-Architect": 10, "AI-Security": 10, "AI-Pragmatist": 10}
    assert d.pending_issues == []
    assert d.status == "DECIDED"


@pytest.mark.slow
def test_all_passed_and_rejected(stand_in, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    stand_in("pass")
    assert code(run("new", "Quiet")) == 0
    assert result_of(run("run", "quiet.md", "--json"))["stopped"] == "all_passed"
    stand_in("reject")
    assert code(run("new", "Bad idea", "--template", "deliberation")) == 0
    assert result_of(run("run", "bad-idea.md", "--json"))["stopped"] == "rejected"


def test_human_required_escalates(stand_in, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    stand_in("agree2")
    write(
        isolated / "discussions.yaml",
        "providers:\n  default: standin\n  detect: false\nconsensus:\n  human_required: true\n",
    )
    assert code(run("new", "Needs human", "--template", "deliberation")) == 0
    res = result_of(run("run", "needs-human.md", "--json"))
    assert res["stopped"] == "escalated"
    assert Discussion.load(isolated / "discussions" / "needs-human.md").escalation is not None


@pytest.mark.slow
def test_sequential_runs_shuffle_the_order_from_round_two_seeded_and_recorded(
    stand_in, isolated: Path
) -> None:  # type: ignore[no-untyped-def]
    stand_in("never")
    assert code(run("new", "Order", "--template", "deliberation")) == 0
    res = result_of(
        run("run", "order.md", "--sequential", "--seed", "7", "--rounds", "4", "--json")
    )
    assert res["seed"] == 7
    d = Discussion.load(isolated / "discussions" / "order.md")
    orders = [r.fields["order"] for r in d.rounds]
    assert orders[0] == "architect, security, pragmatist"
    assert all(r.fields["seed"] == "7" for r in d.rounds)
    # Same seed, same orders.
    assert code(run("new", "Order two", "--template", "deliberation")) == 0
    run("run", "order-two.md", "--sequential", "--seed", "7", "--rounds", "4")
    again = [
        r.fields["order"] for r in Discussion.load(isolated / "discussions" / "order-two.md").rounds
    ]
    assert again == orders
    assert len(set(orders)) > 1


def test_hand_written_scores_count(isolated: Path) -> None:
    assert (
        code(run("new", "By hand", "--template", "deliberation", "--participants", "architect"))
        == 0
    )
    path = isolated / "discussions" / "by-hand.md"
    d = Discussion.load(path)
    # The architect's comment as the engine writes it (a person cannot sign as a participant).
    d.add_block(signed("AI-Architect", "Looks right.\n\nSCORE: 9\nPENDING: n/a"))
    d.save()
    assert code(run("comment", "by-hand.md", "SCORE: 12\nPENDING: -", "--author", "Rob")) == 0
    d = Discussion.load(path)
    assert d.scores == {"AI-Architect": 9, "Rob": 10}
    assert d.pending_issues == []
    assert d.has_consensus()
    data = json.loads(out(run("status", "by-hand.md", "--json")))
    assert data["scores"] == {"AI-Architect": 9, "Rob": 10}
    assert data["pending_issues"] == []


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_is_recorded(isolated: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    import os
    import signal
    import subprocess
    import sys

    providers_file(
        {"slow": script_command("answer.py", '{"comment": "thinking", "vote": null}', "30")}
    )
    write(isolated / "discussions.yaml", "providers:\n  default: slow\n  detect: false\n")
    assert code(run("new", "Stop me", "--template", "deliberation")) == 0
    path = isolated / "discussions" / "stop-me.md"
    proc = subprocess.Popen(
        [sys.executable, "-m", "discussions", "run", "stop-me.md", "--json"],
        cwd=isolated,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    wait_for_text(path, "<!-- ROUND: 1")
    wait_for(lambda: running_below(proc.pid, "answer.py"), 30, message="the providers")
    proc.send_signal(signal.SIGINT)
    stdout, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert json.loads(stdout[stdout.index("{") :])["stopped"] == "interrupted"
    d = Discussion.load(path)
    assert d.last_stop is not None and d.last_stop.value == "interrupted"
    assert d.warnings == []
