"""Usage (tokens, cost) from stand-in `claude` and `codex` executables, budgets, replay."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from discussions import Discussion
from discussions.providers.usage import Usage, claude_json, codex_usage
from discussions.usage import Budget, UsageTotals

from .conftest import SCRIPTS, code, out, run, write
from .conftest import result_of as json_of

STANDINS = SCRIPTS / "standins"


@pytest.fixture
def clis(isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`claude` and `codex` stand-ins first on PATH; their argv logged to the returned file."""
    monkeypatch.setenv("PATH", f"{STANDINS}{os.pathsep}{os.environ.get('PATH', '')}")
    log = tmp_path / "argv.jsonl"
    monkeypatch.setenv("STANDIN_LOG", str(log))
    write(isolated / "discussions.yaml", "providers:\n  detect: false\n")
    assert code(run("new", "Rollout")) == 0
    return log


def test_claude_json_parses_result_usage_and_cost() -> None:
    text = json.dumps(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "result": "hello",
            "total_cost_usd": 0.5,
            "usage": {"input_tokens": 1, "cache_read_input_tokens": 9, "output_tokens": 3},
        }
    )
    assert claude_json("claude", text) == ("hello", Usage(10, 3, 0.5))


def test_codex_usage_sums_turns_and_says_unknown_when_absent() -> None:
    line = '{"type":"turn.completed","usage":{"input_tokens":5,"output_tokens":2}}'
    assert codex_usage(line + "\n" + line) == Usage(10, 4, None)
    assert codex_usage('{"type":"turn.started"}') == Usage()


def test_claude_and_codex_usage_is_recorded_and_totalled(clis: Path, isolated: Path) -> None:
    assert code(run("turn", "rollout.md", "--provider", "claude")) == 0
    assert code(run("turn", "rollout.md", "--provider", "codex")) == 0
    d = Discussion.load(isolated / "discussions" / "rollout.md")
    answers = [c for c in d.comments if "provider" in c.meta]
    assert answers
    claude = [c for c in answers if c.meta["provider"] == "claude"]
    codex = [c for c in answers if c.meta["provider"] == "codex"]
    assert claude and codex and len(claude) == len(codex)
    assert claude[0].meta["tokens"] == "1312 in / 40 out"
    assert claude[0].meta["cost"] == "$0.012500"
    assert codex[0].meta["tokens"] == "2400 in / 90 out"
    assert codex[0].meta["cost"] == "unknown"  # codex reports no cost: never guessed
    n = len(claude)

    data = json_of(run("status", "rollout.md", "--json"))
    usage = data["usage"]
    assert isinstance(usage, dict)
    assert usage["input_tokens"] == n * (1312 + 2400)
    assert usage["output_tokens"] == n * (40 + 90)
    assert usage["cost_usd"] == pytest.approx(n * 0.0125)
    assert usage["unknown_calls"] == 0
    assert usage["cost_unknown_calls"] == n
    per = usage["participants"]
    assert isinstance(per, dict) and len(per) == n
    for totals in per.values():
        assert totals["calls"] == 2 and totals["input_tokens"] == 3712

    text = out(run("status", "rollout.md"))
    assert f"Usage: {2 * n} call(s), {n * 3712} tokens in / {n * 130} out" in text

    calls = [json.loads(line) for line in clis.read_text().splitlines()]
    claude_argv = next(c["argv"] for c in calls if c["cli"] == "claude")
    for flag in ("--strict-mcp-config", "--no-session-persistence", "--setting-sources"):
        assert flag in claude_argv
    assert not any("Rollout" in word for c in calls for word in c["argv"])  # prompt on stdin


def test_unreported_usage_is_unknown_not_zero(isolated: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    from .conftest import script_command

    providers_file({"plain": script_command("answer.py")})
    write(isolated / "discussions.yaml", "providers:\n  detect: false\n")
    assert code(run("new", "Plain")) == 0
    r = run("turn", "plain.md", "--provider", "plain")
    assert code(r) == 0, out(r)
    usage = json_of(run("status", "plain.md", "--json"))["usage"]
    assert isinstance(usage, dict)
    assert usage["unknown_calls"] == usage["calls"] and usage["calls"] > 0
    assert usage["input_tokens"] == 0 and usage["cost_usd"] == 0


def test_max_calls_stops_a_run_before_the_call_and_records_why(clis: Path, isolated: Path) -> None:
    r = run("run", "rollout.md", "--provider", "claude", "--max-calls", "1", "--json")
    assert code(r) == 0, out(r)
    res = json_of(r)
    assert res["stopped"] == "budget"
    assert "max_calls 1" in str(res["budget_stop"])
    d = Discussion.load(isolated / "discussions" / "rollout.md")
    assert d.last_stop is not None and d.last_stop.value.startswith("budget")
    text = d.path.read_text(encoding="utf-8")
    assert "the budget is used up (max_calls 1" in text
    assert not [c for c in d.comments if "provider" in c.meta]  # a parallel round needs 2+
    assert res["rounds"] == 0 and not d.rounds  # no round block for a round never started


def test_max_calls_stops_a_sequential_run_half_way(clis: Path, isolated: Path) -> None:
    r = run("run", "rollout.md", "--provider", "codex", "-s", "--max-calls", "1", "--json")
    assert code(r) == 0, out(r)
    res = json_of(r)
    assert res["stopped"] == "budget" and res["rounds"] == 1
    d = Discussion.load(isolated / "discussions" / "rollout.md")
    assert len([c for c in d.comments if "provider" in c.meta]) == 1
    assert "<!-- RUN-STOP: budget | rounds: 1 | run: 1 | " in d.path.read_text(encoding="utf-8")
    usage = json_of(run("status", "rollout.md", "--json"))["usage"]
    assert isinstance(usage, dict) and usage["calls"] == 1


def test_configured_cost_budget_stops_the_run(clis: Path, isolated: Path) -> None:
    write(
        isolated / "discussions.yaml",
        "providers:\n  detect: false\nbudget:\n  max_cost_usd: 0.01\n",
    )
    r = run("run", "rollout.md", "--provider", "claude", "--rounds", "4", "--json")
    assert code(r) == 0, out(r)
    res = json_of(r)
    assert res["stopped"] == "budget" and res["rounds"] == 1
    assert "max_cost_usd 0.01" in str(res["budget_stop"])
    # a turn on a spent budget makes no call and says so
    r = run("turn", "rollout.md", "--provider", "claude")
    assert "Budget: stopped before the next call" in out(r)
    d = Discussion.load(isolated / "discussions" / "rollout.md")
    assert d.path.read_text(encoding="utf-8").count("RUN-STOP: budget") == 2


def test_budget_refusal_counts_unknown_calls() -> None:
    spent = UsageTotals()
    spent.add_meta({"provider": "x", "tokens": "unknown", "cost": "unknown"})
    assert Budget(max_calls=2).refusal(spent, 1) is None
    reason = Budget(max_calls=1).refusal(spent, 1)
    assert reason is not None and "1 with unknown usage" in reason


def test_replay_reproduces_a_recording_and_fails_loudly_on_a_miss(
    clis: Path, isolated: Path
) -> None:
    assert code(run("turn", "rollout.md", "--provider", "codex")) == 0
    recording = isolated / "discussions" / "rollout.md"
    original = Discussion.load(recording)
    recorded = [(c.author, c.vote, c.summary) for c in original.comments if c.meta]

    assert code(run("new", "Rollout again")) == 0
    r = run("turn", "rollout-again.md", "--provider", f"replay:{recording}")
    assert code(r) == 0, out(r)
    again = Discussion.load(isolated / "discussions" / "rollout-again.md")
    replayed = [(c.author, c.vote, c.summary) for c in again.comments if c.meta]
    assert sorted(replayed) == sorted(recorded)  # parallel answers land in any order
    assert all(c.meta["provider"] == f"replay:{recording}" for c in again.comments if c.meta)

    # The next turn in a fresh process starts the recording over; within one run, the second
    # round has no recorded answers left: a miss is an error, never a live call.
    log_before = clis.read_text()
    r = run("run", "rollout-again.md", "--provider", f"replay:{recording}", "--rounds", "2")
    assert "no recorded answer #2" in out(r) + str(getattr(r, "stderr", ""))
    assert clis.read_text() == log_before  # no stand-in CLI ran


def test_replay_of_a_missing_file_is_refused(isolated: Path) -> None:
    assert code(run("new", "X")) == 0
    r = run("turn", "x.md", "--provider", "replay:nope.md")
    assert code(r) != 0
    assert "no recording at nope.md" in out(r)


def test_providers_test_deep_reports_latency_parse_and_usage(clis: Path) -> None:
    r = run("providers", "test", "claude", "--deep", "--json")
    assert code(r) == 0, out(r)
    data = json_of(r)
    assert data["parsed"] is True and data["vote"] == "CHANGES"
    assert isinstance(data["seconds"], float)
    assert data["usage"] == {"input_tokens": 1312, "output_tokens": 40, "cost_usd": 0.0125}


def test_qwen_preset_is_read_only_with_the_prompt_on_stdin() -> None:
    from discussions.providers.registry import DETECT_ORDER, PRESETS

    assert PRESETS["qwen"].command == "qwen --approval-mode plan"
    assert "qwen" in DETECT_ORDER
    assert "copilot" not in PRESETS and "cursor-agent" not in PRESETS  # argv-only prompts
