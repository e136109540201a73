"""Calls that got no answer: recorded in the file (who, which provider, why), counted by
`status`; a run stops at a round without an answer; the mock standing in for a failed provider
does not vote; usage nobody reported is said to be unknown. Providers are real subprocesses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions import Discussion

from ..conftest import code, out, run, script_command, write

# What `llm` printed when a prompt did not fit SmolLM2's window (llama-cpp-python's error,
# under a traceback), then exit status 1.
WINDOW_ERROR = (
    "Traceback (most recent call last):\n"
    '  File "/usr/lib/python3/site-packages/llama_cpp/llama.py", line 1102, in _create\n'
    "    raise ValueError(\n"
    "ValueError: Requested tokens (1203) exceed context window of 512\n"
)
CAUSE = "ValueError: Requested tokens (1203) exceed context window of 512"


@pytest.fixture
def feature(isolated: Path, providers_file) -> Path:  # type: ignore[no-untyped-def]
    """A feature discussion whose every provider fails the way a too-small model does."""
    providers_file({"smol": script_command("fail.py", "1", WINDOW_ERROR)})
    write(isolated / "discussions.yaml", "providers:\n  default: smol\n  detect: false\n")
    assert code(run("new", "Auth", "--context", "Tokens in cookies.")) == 0
    return isolated / "discussions" / "auth.md"


def test_run_stops_at_a_round_without_an_answer(feature: Path) -> None:
    phase = Discussion.load(feature).phase
    r = run("run", "auth.md", "--rounds", "4", "--json")
    assert code(r) == 1, out(r)
    text = out(r)  # the JSON, then the errors on standard error
    res = json.JSONDecoder().raw_decode(text[text.index("{") :])[0]
    # providers.default goes before a bundled persona's hint (claude-sonnet, not installed)
    assert "Error: AI-Security got no answer: smol: exited with status 1" in text
    assert res["stopped"] == "no_answers" and res["rounds"] == 1
    assert res["escalation"] == []
    d = Discussion.load(feature)
    assert d.phase == phase  # nothing moved: no phase change, no escalation
    assert d.escalation is None
    assert [len(r.rounds) for r in d.runs] == [1]
    assert d.last_stop is not None and d.last_stop.value == "no_answers"
    assert "no participant got an answer, every call failed" in feature.read_text()
    failed = d.engine_blocks("failed")
    assert sorted(who for who, _ in failed) == ["AI-Architect", "AI-Pragmatist", "AI-Security"]
    for _, fields in failed:
        assert "smol" in fields["providers"]
        assert f"smol: exited with status 1: {CAUSE}" in fields["why"]
        assert fields["calls"] == "1"  # claude-sonnet is not installed: no call
    assert not d.comments and not d.votes
    usage = d.usage.total
    assert (usage.calls, usage.failed_calls) == (0, 3)
    status = run("status", "auth.md")
    assert "Usage: no answers, 3 failed call(s)" in out(status)


def test_a_turn_records_failures_the_way_a_run_does(feature: Path) -> None:
    before = feature.read_text()
    r = run("turn", "auth.md", "@architect")
    assert code(r) == 1
    added = feature.read_text()[len(before) :]
    assert added.startswith("\n<!-- FAILED: AI-Architect | providers: smol, claude-sonnet | why: ")
    assert (
        f"*AI-Architect got no answer: smol exited with status 1 ({CAUSE}); claude-sonnet" in added
    )
    assert "Name:" not in added and "@" not in added.split("-->", 1)[1]
    d = Discussion.load(feature)
    assert d.phase == "initial_feedback" and not d.comments
    assert "AI-Architect: no answer (smol failed)" in out(r)


def test_the_failure_cause_is_recorded_with_the_fallback_that_answered(
    isolated: Path, providers_file
) -> None:  # type: ignore[no-untyped-def]
    providers_file(
        {
            "smol": script_command("fail.py", "1", WINDOW_ERROR),
            "good": script_command("answer.py", '{"comment": "Fine.", "vote": "READY"}'),
        }
    )
    write(
        isolated / "discussions.yaml",
        "providers:\n  default: smol\n  fallback: [good]\n  detect: false\n",
    )
    assert code(run("new", "Auth")) == 0
    r = run("turn", "auth.md", "@architect")
    assert code(r) == 0, out(r)
    meta = Discussion.load(isolated / "discussions" / "auth.md").comments[-1].meta
    assert meta["failed"] == f"smol (exited with status 1: {CAUSE})"  # claude: no call
    assert "AI-Architect: good (fallback after smol failed)" in out(r)
    usage = run("status", "auth.md", "--json")
    data = json.loads(out(usage))["usage"]
    assert data["failed_calls"] == 1 and data["calls"] == 1


def test_the_mock_standing_in_for_a_failed_provider_does_not_vote(
    isolated: Path, providers_file
) -> None:  # type: ignore[no-untyped-def]
    providers_file({"smol": script_command("fail.py", "1", WINDOW_ERROR)})
    write(
        isolated / "discussions.yaml",
        "providers:\n  default: smol\n  fallback: [mock]\n  detect: false\n",
    )
    assert code(run("new", "Auth", "--context", "Tokens in cookies.")) == 0
    assert code(run("advance", "auth.md", "--to", "consensus_vote")) == 0
    r = run("turn", "auth.md", "@all")
    assert code(r) == 0, out(r)
    d = Discussion.load(isolated / "discussions" / "auth.md")
    assert len(d.comments) == 3
    assert d.votes == {} and not d.has_consensus()
    assert d.status == "OPEN"
    for c in d.comments:
        assert c.meta["provider"] == "mock" and c.vote is None
        assert c.meta["stand-in"].startswith("mock, vote ")
        assert "Mock standing in for a failed provider" in c.body
    assert "AI-Architect: mock, standing in after smol failed (its vote is not counted)" in out(r)


def test_the_mock_votes_where_nothing_could_run(isolated: Path) -> None:
    """No AI CLI installed (the first-run demo) or `--provider mock`: the mock is the whole
    discussion, and its votes count."""
    write(isolated / "discussions.yaml", "providers:\n  detect: false\n")
    assert code(run("new", "Auth", "--context", "Tokens in cookies.")) == 0
    assert code(run("advance", "auth.md", "--to", "consensus_vote")) == 0
    r = run("turn", "auth.md", "@architect")
    assert code(r) == 0, out(r)
    d = Discussion.load(isolated / "discussions" / "auth.md")
    assert d.comments[-1].meta["provider"] == "mock" and "stand-in" not in d.comments[-1].meta
    assert d.votes.get("AI-Architect") is not None
    assert "AI-Architect: mock (built-in mock: no AI CLI of the chain is installed)" in out(r)


def test_status_says_unknown_where_no_usage_was_reported(isolated: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    providers_file(
        {
            "plain": script_command("answer.py", '{"comment": "Fine.", "vote": "READY"}'),
            "priced": script_command("priced.py", "0.10", "300", "--")
            + " "
            + script_command("answer.py", '{"comment": "Ok.", "vote": "READY"}'),
        },
        priced={"output": "claude-json"},
    )
    write(isolated / "discussions.yaml", "providers:\n  default: plain\n  detect: false\n")
    assert code(run("new", "Auth")) == 0
    assert code(run("turn", "auth.md", "@architect", "@security")) == 0
    text = out(run("status", "auth.md"))
    assert "Usage: 2 call(s), tokens unknown, cost unknown" in text
    assert "0 tokens" not in text and "$0.0000" not in text
    data = json.loads(out(run("status", "auth.md", "--json")))["usage"]
    assert (data["tokens_known"], data["cost_known"]) == ("none", "none")
    # one call that reports usage: the totals are partial, and say so
    assert code(run("turn", "auth.md", "@architect", "--provider", "priced")) == 0
    text = out(run("status", "auth.md"))
    assert "Usage: 3 call(s), at least 100 tokens in / 300 out (partial: 2 call(s) without" in text
    assert "at least $0.1000 (partial: 2 call(s) without cost)" in text


def test_a_secret_a_failing_cli_prints_stays_out_of_the_record(
    isolated: Path, providers_file, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The cause of a failure goes into the file, which is committed: an API key the CLI
    prints (a value of a *_KEY/*_TOKEN variable, or a key of a well-known shape) is blanked."""
    monkeypatch.setenv("ACME_API_KEY", "acme-0123456789abcdef")
    shaped = "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12"
    error = f"Error: key acme-0123456789abcdef was refused (also tried {shaped})\n"
    providers_file({"leaky": script_command("fail.py", "1", error)})
    write(isolated / "discussions.yaml", "providers:\n  default: leaky\n  detect: false\n")
    assert code(run("new", "Auth")) == 0
    r = run("turn", "auth.md", "@architect")
    assert code(r) == 1
    text = (isolated / "discussions" / "auth.md").read_text()
    assert "FAILED: AI-Architect" in text and "was refused" in text
    assert "0123456789abcdef" not in text and "Ab12Cd34" not in text


@pytest.mark.parametrize("command", ["turn", "run", "draft"])
def test_an_uninstalled_provider_by_name_is_refused_before_anything_is_written(
    isolated: Path, command: str
) -> None:
    """`--provider codex` where codex is not installed appended a permanent `FAILED ... calls:
    0` block per participant to the git-tracked file: a configuration error is refused, and
    the file records only calls that were made."""
    assert code(run("new", "Auth")) == 0
    path = isolated / "discussions" / "auth.md"
    before = path.read_bytes()
    extra = ["--force", "--reason", "try"] if command == "draft" else []
    r = run(command, "auth.md", "--provider", "codex", *extra)
    assert code(r) == 1, out(r)
    assert "codex: not installed" in out(r) and "leave out --provider" in out(r)
    assert path.read_bytes() == before
    r = run(command, "auth.md", "--provider", "codex", "--json", *extra)
    assert code(r) == 1 and "not installed" in json.loads(out(r))["error"]
    assert path.read_bytes() == before


def test_no_installed_provider_without_the_mock_is_refused_before_anything_is_written(
    isolated: Path,
) -> None:
    write(
        isolated / "discussions.yaml",
        "providers:\n  default: codex\n  detect: false\n  mock_fallback: false\n",
    )
    assert code(run("new", "Auth")) == 0
    path = isolated / "discussions" / "auth.md"
    before = path.read_bytes()
    for command in ("turn", "run"):
        r = run(command, "auth.md")
        assert code(r) == 1 and "providers is installed" in out(r), out(r)
        assert path.read_bytes() == before


def test_an_answer_records_the_calls_that_failed_not_the_clis_that_are_missing(
    isolated: Path, providers_file
) -> None:  # type: ignore[no-untyped-def]
    """claude-sonnet (a bundled persona's hint) is not installed: no call was made, so the
    answer's `failed:` field leaves it out; the call that failed is in it."""
    providers_file(
        {
            "smol": script_command("fail.py", "1", WINDOW_ERROR),
            "good": script_command("answer.py", '{"comment": "Fine.", "vote": null}'),
        }
    )
    write(isolated / "discussions.yaml", "providers:\n  fallback: [smol, good]\n  detect: false\n")
    assert code(run("new", "Auth")) == 0
    r = run("turn", "auth.md", "@architect")
    assert code(r) == 0, out(r)
    meta = Discussion.load(isolated / "discussions" / "auth.md").comments[-1].meta
    assert meta["failed"] == f"smol (exited with status 1: {CAUSE})"
    assert "claude" not in (isolated / "discussions" / "auth.md").read_text("utf-8")
