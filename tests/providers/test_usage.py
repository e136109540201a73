"""Usage (tokens, cost) from stand-in `claude` and `codex` executables, budgets, replay."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from discussions import Discussion
from discussions.derive.usage import UsageTotals
from discussions.errors import ProviderFailed
from discussions.model.budget import Budget
from discussions.providers.usage import Usage, claude_json, codex_usage, gemini_error, gemini_json

from ..conftest import SCRIPTS, code, out, run, write
from ..conftest import result_of as json_of

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


def test_gemini_json_reads_the_response_and_the_tokens_of_every_model() -> None:
    """``gemini -o json``: the last turn's text; input = prompt + tool-use prompt, output =
    candidates + thoughts, summed over the models called (its router's call included)."""
    tokens = {"prompt": 1200, "candidates": 34, "cached": 200, "thoughts": 6, "tool": 0}
    router = {"prompt": 300, "candidates": 10, "cached": 0, "thoughts": 0, "tool": 5}
    text = json.dumps(
        {
            "session_id": "s",
            "response": "hello",
            "stats": {"models": {"pro": {"tokens": tokens}, "lite": {"tokens": router}}},
        },
        indent=2,
    )
    assert gemini_json("gemini", "Loaded cached credentials.\n" + text) == (
        "hello",
        Usage(1505, 50, None),
    )
    assert gemini_json("gemini", json.dumps({"response": "hi", "stats": {}})) == ("hi", Usage())


def test_gemini_error_is_the_api_message_after_a_stack_trace() -> None:
    api = {"error": {"code": 400, "message": "the key is wrong", "status": "INVALID_ARGUMENT"}}
    err = {"type": "Error", "message": json.dumps(api), "code": 400}
    stderr = "_ApiError: boom\n    at x (y.js:1)\n{\n  status: 400\n}\n" + json.dumps(
        {"session_id": "s", "error": err}, indent=2
    )
    assert gemini_error(stderr) == "the key is wrong (INVALID_ARGUMENT 400)"
    assert gemini_error('{"error": {"type": "Error", "message": "plain words"}}') == "plain words"
    assert gemini_error("no json here") == ""
    retrying = (
        'Attempt 1 failed with status 503. Retrying with backoff... _ApiError: {"error":'
        '{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}\n  status: 503\n}\n'
    )
    assert gemini_error(retrying) == "overloaded (UNAVAILABLE 503)"
    with pytest.raises(ProviderFailed, match="reported an error"):
        gemini_json("gemini", json.dumps({"session_id": "s", "error": err}))


@pytest.mark.slow
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
    from ..conftest import script_command

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


@pytest.mark.slow
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

    # The recording's one answer per participant is in the file already: the next call (in
    # this run's first round) has none left. A miss is an error, never a live call.
    log_before = clis.read_text()
    r = run("run", "rollout-again.md", "--provider", f"replay:{recording}", "--rounds", "2")
    assert "no recorded answer #2" in out(r) + str(getattr(r, "stderr", ""))
    assert clis.read_text() == log_before  # no stand-in CLI ran


RECORDING = """\
<!-- DISCUSSION -->
<!-- Title: Source -->
<!-- Phase: initial_feedback -->
<!-- Status: OPEN -->
<!-- Participants: architect -->

# Source

---

Name: AI-Architect

<!-- provider: claude | duration: 3.0s -->

First recorded answer.

---

Name: Rob

A person's comment, never replayed.

---

<!-- PASS: AI-Architect -->

*AI-Architect passed: nothing to add.*

---

Name: AI-Architect

Third recorded answer.

VOTE: READY

---
"""


def _first_line(body: str) -> str:
    return next(x for x in body.splitlines() if x.strip() and not x.startswith("<!--"))


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`discussions ARGS` as a separate process (its own interpreter, nothing shared)."""
    env = dict(os.environ)
    src = str(Path(__file__).parent.parent.parent / "src")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "discussions", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_replay_takes_its_position_from_the_file_across_processes(isolated: Path) -> None:
    """Each separate `turn` posts the next recorded answer of that participant (a pass
    included); answers from other providers do not move the position; past the end fails."""
    (isolated / "src.md").write_text(RECORDING, encoding="utf-8")
    assert code(run("new", "F", "--participants", "architect")) == 0
    target = isolated / "discussions" / "f.md"

    def answers() -> list[tuple[str, str]]:
        """(provider, first line of text) of each answer in the file, in file order."""
        d = Discussion.load(target)
        found = [(c.line, c.meta.get("provider", ""), _first_line(c.body)) for c in d.comments]
        found += [(line, "(pass)", by) for by, line in d.passes]
        return [(who, text) for _, who, text in sorted(found)]

    first = _cli(isolated, "turn", "discussions/f.md", "@architect", "--provider", "replay:src.md")
    assert first.returncode == 0, first.stderr
    # a live answer in between is not from the recording: it does not move the position
    assert code(run("turn", "f.md", "@architect", "--provider", "mock")) == 0
    second = _cli(isolated, "turn", "f.md", "@architect", "--provider", "replay:src.md")
    assert second.returncode == 0, second.stderr
    third = _cli(isolated, "turn", "f", "@architect", "--provider", "replay:./src.md")
    assert third.returncode == 0, third.stderr
    got = answers()
    assert [g for g in got if g[0] != "mock"] == [
        ("replay:src.md", "First recorded answer."),
        ("(pass)", "AI-Architect"),
        ("replay:./src.md", "Third recorded answer."),
    ]
    assert Discussion.load(target).comments[-1].vote == "READY"
    assert "<!-- PASS: AI-Architect | provider: replay:src.md |" in target.read_text()
    before = target.read_bytes()
    past = _cli(isolated, "turn", "f.md", "@architect", "--provider", "replay:src.md")
    assert past.returncode == 1
    assert "no recorded answer #4 for AI-Architect" in past.stderr + past.stdout
    assert "3 already replayed" in past.stderr + past.stdout
    # nothing is answered; the file records only who got no answer, and why
    added = target.read_bytes()[len(before) :].decode("utf-8")
    assert target.read_bytes().startswith(before)
    assert added.startswith("\n<!-- FAILED: AI-Architect | providers: replay:src.md | why: ")
    assert "no recorded answer #4" in added and "Name:" not in added


def test_a_replayed_answer_is_the_comment_alone(isolated: Path) -> None:
    """The engine blocks written after a recorded comment (a phase transition) are not part
    of the answer: the replayed comment's text and digest are the recorded ones."""
    assert code(run("new", "Src", "--participants", "architect")) == 0
    assert code(run("turn", "src.md", "--provider", "mock")) == 0
    recording = isolated / "discussions" / "src.md"
    assert "PHASE-TRANSITION" in recording.read_text()
    assert code(run("new", "F", "--participants", "architect")) == 0
    assert code(run("turn", "f.md", "--provider", f"replay:{recording}")) == 0
    [recorded] = Discussion.load(recording).comments
    [replayed] = Discussion.load(isolated / "discussions" / "f.md").comments
    assert replayed.meta["digest"] == recorded.meta["digest"]
    assert "PHASE-TRANSITION" not in replayed.body.split("VOTE:")[0]
    assert Discussion.load(isolated / "discussions" / "f.md").warnings == []


def test_replay_without_a_discussion_counts_its_own_answers(isolated: Path) -> None:
    """A text not written into a discussion (a narrative, a post) has no file to read the
    position from: the provider object counts; and no recording replays into itself."""
    from discussions.errors import ProviderFailed
    from discussions.providers.base import ProviderRequest
    from discussions.providers.replay import ReplayMiss, ReplayProvider

    recording = isolated / "src.md"
    recording.write_text(RECORDING, encoding="utf-8")
    replay = ReplayProvider(recording, "replay:src.md")
    ask = ProviderRequest("prompt", participant_name="AI-Architect")
    assert replay.complete(ask) == "First recorded answer."
    assert "NO_RESPONSE" in replay.complete(ask)
    assert replay.complete(ask).startswith("Third recorded answer.")
    with pytest.raises(ReplayMiss, match="no recorded answer #4"):
        replay.complete(ask)
    with pytest.raises(ReplayMiss, match="no recorded answer #4"):
        replay.complete(ask)
    with pytest.raises(ProviderFailed, match="the recording is the discussion being answered"):
        replay.complete(ProviderRequest("p", participant_name="AI-Architect", file=recording))


def test_replay_of_a_missing_file_is_refused(isolated: Path) -> None:
    assert code(run("new", "X")) == 0
    r = run("turn", "x.md", "--provider", "replay:nope.md")
    assert code(r) != 0
    assert "no recording at nope.md" in out(r)


@pytest.mark.slow
def test_providers_test_deep_reports_latency_parse_and_usage(clis: Path) -> None:
    r = run("providers", "test", "claude", "--deep", "--json")
    assert code(r) == 0, out(r)
    data = json_of(r)
    assert data["parsed"] is True and data["vote"] == "CHANGES"
    assert isinstance(data["seconds"], float)
    assert data["usage"] == {"input_tokens": 1312, "output_tokens": 40, "cost_usd": 0.0125}


def test_qwen_preset_is_read_only_with_the_prompt_on_stdin() -> None:
    from discussions.providers.presets import DETECT_ORDER, PRESETS

    assert PRESETS["qwen"].command.startswith("qwen --approval-mode plan --bare")
    assert "qwen" in DETECT_ORDER
    # CLIs that take the prompt only as an argument say so, and are never picked unasked.
    for name in ("copilot", "cursor-agent"):
        assert PRESETS[name].prompt_via == "argument" and name not in DETECT_ORDER


@pytest.mark.parametrize("setting", ["default", "fallback", "persona"])
def test_a_replay_named_by_settings_is_never_used(
    isolated: Path, tmp_path: Path, setting: str
) -> None:
    """`replay:PATH` reads a file anywhere on disk into the discussion, so only `--provider`
    (the person at the terminal) may name it: from `discussions.yaml` or a project persona,
    files a repository brings without any trust, it is left out of the chain."""
    outside = tmp_path / "outside"
    outside.mkdir()
    write(
        outside / "secret.md",
        "<!-- DISCUSSION -->\n<!-- Title: S -->\n\n# S\n\n---\n\nName: AI-Architect\n\n"
        "<!-- provider: mock -->\n\nTOPSECRET words.\n\nVOTE: READY\n\n---\n",
    )
    replay = f"replay:{outside / 'secret.md'}"
    if setting == "persona":  # a persona's hint is a plain name: a recording beside the project
        (isolated / "secret.md").write_bytes((outside / "secret.md").read_bytes())
        write(
            isolated / "participants" / "architect.yaml",
            "name: AI-Architect\nalias: architect\nrole: Architect\n"
            "provider_hint: 'replay:secret.md'\n",
        )
    else:
        value = f"'{replay}'" if setting == "default" else f"['{replay}']"
        write(isolated / "discussions.yaml", f"providers:\n  {setting}: {value}\n")
    assert code(run("new", "Mine")) == 0
    r = run("turn", "mine.md", "@architect")
    assert code(r) == 0, out(r)
    assert "TOPSECRET" not in (isolated / "discussions" / "mine.md").read_text(encoding="utf-8")
    from discussions.ops.service import DiscussionTools

    tools = DiscussionTools()
    ticket = tools.start_turn("mine", ["architect"])["ticket"]
    tools.turn_result(ticket, wait=30)
    assert "TOPSECRET" not in (isolated / "discussions" / "mine.md").read_text(encoding="utf-8")


def test_deep_test_fails_a_command_model_that_fails_every_real_prompt(
    providers_file,  # type: ignore[no-untyped-def]
) -> None:
    from ..conftest import script_command

    providers_file({"tiny": script_command("small_window.py", "512")})
    quick = run("providers", "test", "tiny", "--prompt", "Say READY.")
    assert code(quick) == 0  # a short prompt fits: the old check passed here
    r = run("providers", "test", "tiny", "--deep", "--json")
    assert code(r) == 1, out(r)
    data = json_of(r)
    assert data["prompt"]["chars"] > 3_000  # a long discussion as the engine sends it
    assert "exceeds the context window (512)" in data["error"]
    assert data["context_window"] is None and data["fits"] is None


@pytest.mark.slow
def test_providers_test_and_a_turn_wait_the_same_configured_timeout(
    isolated: Path,
    tmp_path: Path,
    providers_file,  # type: ignore[no-untyped-def]
) -> None:
    """`providers test` (plain and `--deep`) waits `providers.timeout` as a turn does: it
    used 120 s whatever the configuration said, so a test could pass where every turn timed
    out, or time out where a turn would have waited."""
    from ..conftest import script_command

    providers_file({"slow": script_command("hang.py", str(tmp_path / "pids"))})
    write(isolated / "discussions.yaml", "providers:\n  timeout: 2\n  detect: false\n")
    assert code(run("new", "Slow", "--participants", "architect")) == 0
    turn = run("turn", "slow.md", "--provider", "slow")
    assert "timed out after 2s" in out(turn)
    for args in ([], ["--deep", "--json"]):
        r = run("providers", "test", "slow", *args)
        assert code(r) == 1 and "timed out after 2s" in out(r), out(r)


def test_qwen_json_reads_the_result_and_refuses_an_error_given_as_the_answer() -> None:
    """qwen -o json: the last result event's text and tokens; an "[API Error: ...]" answer
    (exit 0, subtype success in qwen 0.15) is the error it is."""
    from discussions.errors import ProviderFailed
    from discussions.providers.usage import qwen_json

    def events(result: str) -> str:
        usage = {"input_tokens": 10, "output_tokens": 2, "cache_read_input_tokens": 4}
        return json.dumps([
            {"type": "system", "subtype": "init"},
            {"type": "result", "subtype": "success", "is_error": False, "result": result,
             "usage": usage},
        ])  # fmt: skip

    text, usage = qwen_json("qwen", events("VOTE: READY"))
    assert text == "VOTE: READY" and (usage.input_tokens, usage.output_tokens) == (10, 2)
    assert usage.cost_usd is None
    with pytest.raises(ProviderFailed, match="400 refused"):
        qwen_json("qwen", events("[API Error: 400 refused]"))


def test_opencode_copilot_and_llm_answers_keep_the_last_message_and_read_tokens() -> None:
    """Narration before a tool call is a message of its own: only the last message is the
    answer. opencode's tokens are summed over its steps, llm's read from `-u` on stderr."""
    from discussions.errors import ProviderFailed
    from discussions.providers.usage import ANSWER_PARSERS, FAILURE_READERS

    def lines(*events: dict[str, object]) -> str:
        return "\n".join(json.dumps(e) for e in events) + "\n"

    step = {"tokens": {"input": 10, "output": 2, "reasoning": 1, "cache": {"read": 5, "write": 0}}}
    opencode = lines(
        {"type": "text", "part": {"messageID": "a", "text": "Let me look."}},
        {"type": "step_finish", "part": step},
        {"type": "text", "part": {"messageID": "b", "text": "VOTE: READY"}},
        {"type": "step_finish", "part": step},
    )
    text, usage = ANSWER_PARSERS["opencode-json"]("opencode", opencode, "")
    assert text == "VOTE: READY" and (usage.input_tokens, usage.output_tokens) == (30, 6)
    copilot = lines(
        {"type": "assistant.message", "data": {"content": "Let me look.", "toolRequests": [1]}},
        {"type": "assistant.message", "data": {"content": "VOTE: READY", "toolRequests": []}},
    )
    assert ANSWER_PARSERS["copilot-json"]("copilot", copilot, "")[0] == "VOTE: READY"
    failed = lines({"type": "session.error", "data": {"message": "400 refused"}})
    assert FAILURE_READERS["copilot-json"](failed) == "400 refused"
    with pytest.raises(ProviderFailed, match="400 refused"):
        ANSWER_PARSERS["copilot-json"]("copilot", failed, "")
    text, usage = ANSWER_PARSERS["llm-usage"](
        "llm", "VOTE: READY\n", "Token usage: 1,200 input, 34 output\n"
    )
    assert text == "VOTE: READY" and (usage.input_tokens, usage.output_tokens) == (1200, 34)


def test_the_model_is_recorded_only_when_the_cli_names_exactly_one() -> None:
    """The model of a claude run: its init event's, else the one key of ``modelUsage``;
    two models and no init event (a title call on a smaller model): none, never a guess.
    gemini: the one model of ``stats.models``."""
    entry = {"inputTokens": 4, "outputTokens": 2, "costUSD": 0.1}
    result = {"type": "result", "subtype": "success", "result": "hi", "total_cost_usd": 0.1}
    one = json.dumps({**result, "modelUsage": {"claude-opus-4-1": entry}})
    assert claude_json("claude", one)[1].model == "claude-opus-4-1"
    two = {**result, "modelUsage": {"claude-opus-4-1": entry, "claude-haiku-4-5": entry}}
    assert claude_json("claude", json.dumps(two))[1].model is None
    init = {"type": "system", "subtype": "init", "model": "claude-opus-4-1"}
    assert claude_json("claude", json.dumps([init, two]))[1].model == "claude-opus-4-1"
    odd = {**result, "modelUsage": {"a | b -->": entry}}
    assert claude_json("claude", json.dumps(odd))[1].model is None
    tokens = {"prompt": 10, "candidates": 2}
    gemini = {"response": "hi", "stats": {"models": {"gemini-2.5-pro": {"tokens": tokens}}}}
    assert gemini_json("gemini", json.dumps(gemini))[1] == Usage(10, 2, None, "gemini-2.5-pro")
    from discussions.providers.usage import qwen_json

    start = {"type": "system", "subtype": "session_start", "model": "qwen3-coder-plus"}
    end = {"type": "result", "subtype": "success", "result": "hi", "usage": {}}
    assert qwen_json("qwen", json.dumps([start, end]))[1].model == "qwen3-coder-plus"
    assert qwen_json("qwen", json.dumps([end]))[1].model is None
    assert Usage(1, 2, None, "m").meta_parts() == [
        "tokens: 1 in / 2 out",
        "cost: unknown",
        "model: m",
    ]
