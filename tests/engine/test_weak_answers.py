"""Weak answers: one follow-up call for a missing vote or score, recorded as such; answers
cut to a length limit, the command stopped when it rambles on, the limit passed where the
provider takes one. Providers are real subprocesses; one is a real small model's answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions import Discussion
from discussions.engine.turn.followup import VOTE_QUESTION
from discussions.providers.base import ProviderRequest, ProviderSpec
from discussions.providers.command import CommandProvider

from ..conftest import code, out, run, script_command, write

REAL = Path(__file__).parent.parent / "fixtures" / "real-model"
SCORE_TEMPLATE = """\
name: scored
participants: [architect, security]
consensus_status: DECIDED
phases:
  - id: review
    voting_mode: true
    consensus_mode: score
    next: done
  - id: done
"""


@pytest.fixture
def weak(isolated: Path, providers_file, tmp_path: Path):  # type: ignore[no-untyped-def]
    """`weak(answer, follow_up)`: a voting discussion answered by a weak model; returns the
    folder where each prompt it got is saved."""

    def make(answer: str, follow_up: str, phase: str = "consensus_vote") -> Path:
        prompts = tmp_path / "prompts"
        providers_file({"weak": script_command("weak.py", answer, follow_up, str(prompts))})
        write(isolated / "discussions.yaml", "providers:\n  default: weak\n  detect: false\n")
        assert code(run("new", "Auth", "--context", "Tokens in cookies.")) == 0
        if phase != "initial_feedback":
            assert code(run("advance", "auth.md", "--to", phase)) == 0
        return prompts

    return make


def _disc(isolated: Path) -> Discussion:
    return Discussion.load(isolated / "discussions" / "auth.md")


def test_a_missing_vote_is_asked_for_once(weak, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    prompts = weak("The proposal looks reasonable to me overall.", "VOTE: READY")
    r = run("turn", "auth.md", "@architect")
    assert code(r) == 0, out(r)
    sent = sorted(prompts.glob("*.txt"))
    assert len(sent) == 2
    follow_up = sent[1].read_text()
    assert VOTE_QUESTION in follow_up and "reasonable to me overall" in follow_up
    assert len(follow_up) < 1000  # minimal: it fits the smallest window
    d = _disc(isolated)
    c = d.comments[-1]
    assert c.vote == "READY" and d.votes == {"AI-Architect": "READY"}
    assert c.meta["follow-up"] == "vote READY"
    assert "The vote below came from a one-line follow-up" in c.body
    assert d.usage.total.calls == 2  # the follow-up is a call
    assert "AI-Architect: weak; vote from the one-line follow-up" in out(r)


def test_the_follow_up_is_bounded_to_one(weak, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    prompts = weak("Still thinking about it.", "I would rather not say.")
    r = run("turn", "auth.md", "@architect")
    assert code(r) == 0, out(r)
    assert len(list(prompts.glob("*.txt"))) == 2
    c = _disc(isolated).comments[-1]
    assert c.vote is None and c.meta["follow-up"] == "vote none"
    assert "no vote in the answer, nor in the one follow-up" in out(r)


def test_no_follow_up_where_no_vote_is_asked(weak, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    prompts = weak("A first thought.", "VOTE: READY", phase="initial_feedback")
    info = _disc(isolated).phase_info
    assert info is not None and not info.voting_mode
    assert code(run("turn", "auth.md", "@architect")) == 0
    assert len(list(prompts.glob("*.txt"))) == 1
    assert "follow-up" not in _disc(isolated).comments[-1].meta


def test_a_missing_score_is_asked_for_once(isolated: Path, providers_file, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    prompts = tmp_path / "prompts"
    providers_file({"weak": script_command("weak.py", "Fine by me.", "SCORE: 9", str(prompts))})
    write(isolated / "discussions.yaml", "providers:\n  default: weak\n  detect: false\n")
    write(isolated / "templates" / "scored.yaml", SCORE_TEMPLATE)
    assert code(run("new", "Auth", "--template", "scored", "--context", "x")) == 0
    r = run("turn", "auth.md", "@architect")
    assert code(r) == 0, out(r)
    sent = sorted(prompts.glob("*.txt"))
    assert len(sent) == 2 and "Answer with one line: SCORE: n" in sent[1].read_text()
    d = _disc(isolated)
    assert d.scores == {"AI-Architect": 9}
    assert d.comments[-1].meta["follow-up"] == "score 9"


def test_a_rambling_command_is_stopped_and_its_answer_cut(
    isolated: Path, providers_file, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    argv = tmp_path / "argv.txt"
    providers_file(
        {"ramble": script_command("ramble.py", str(argv))},
        ramble={"output_limit": json.dumps("--max-tokens {tokens}"), "timeout": 60},
    )
    write(
        isolated / "discussions.yaml",
        "providers:\n  default: ramble\n  detect: false\n  max_answer_chars: 2000\n"
        "  follow_up: false\n",
    )
    assert code(run("new", "Auth")) == 0
    r = run("turn", "auth.md", "@architect", "--json")
    assert code(r) == 0, out(r)
    assert argv.read_text().split("\n") == ["--max-tokens", "500"]  # the limit, passed
    outcome = json.JSONDecoder().raw_decode(out(r)[out(r).index("{") :])[0]["participants"][0]
    assert outcome["truncated"] is True and outcome["duration"] < 30  # stopped, not timed out
    c = _disc(isolated).comments[-1]
    assert c.meta["truncated"].endswith("chars (stopped)")
    assert "*[Answer cut at 2,000 characters: its command was stopped after " in c.body
    assert c.body.count("Line ") <= 2000 // 50 + 1


def test_a_real_small_model_answer_is_cut_and_says_so(isolated: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    answer = REAL / "13.answer.txt"  # SmolLM2-135M writing until its window filled
    wrote = len(answer.read_text(encoding="utf-8"))
    providers_file({"smol": script_command("from_file.py", str(answer))})
    write(
        isolated / "discussions.yaml",
        "providers:\n  default: smol\n  detect: false\n  max_answer_chars: 5000\n",
    )
    assert code(run("new", "Auth")) == 0
    assert code(run("turn", "auth.md", "@architect")) == 0
    c = _disc(isolated).comments[-1]
    assert c.meta["truncated"] == f"{wrote} chars"
    assert f"the model wrote {wrote:,}.]*" in c.body
    assert len(c.body) < 5600
    assert f"Answers cut to the length limit: 1 (AI-Architect line {c.line})" in out(
        run("status", "auth.md")
    )


def test_reading_stops_at_the_cap_without_splitting_a_character() -> None:
    spec = ProviderSpec("euro", script_command("answer.py", "€" * 3000))  # 3 bytes each
    got = CommandProvider(spec).complete_with_usage(ProviderRequest("p", max_answer_chars=100))
    assert got.stopped and got.text == "€" * (404 // 3)  # 404 bytes read; the cut one dropped
    whole = CommandProvider(spec).complete_with_usage(ProviderRequest("p"))
    assert not whole.stopped and whole.text == "€" * 3000


def test_a_long_answer_in_the_json_format_is_cut_in_its_comment_and_keeps_its_vote(
    isolated: Path, providers_file
) -> None:  # type: ignore[no-untyped-def]
    """The answer format the prompt asks for is one JSON object: cut before it is read, it
    would be recorded as raw JSON and its vote lost."""
    review = "\n".join(f"Point {n}: the token rotation needs a test." for n in range(120))
    answer = json.dumps({"comment": review, "vote": "READY"})
    providers_file({"long": script_command("answer.py", answer)})
    write(
        isolated / "discussions.yaml",
        "providers:\n  default: long\n  detect: false\n  max_answer_chars: 2000\n"
        "  follow_up: false\n",
    )
    assert code(run("new", "Auth")) == 0
    assert code(run("advance", "auth.md", "--to", "consensus_vote")) == 0
    assert code(run("turn", "auth.md", "@architect")) == 0
    c = _disc(isolated).comments[-1]
    assert c.vote == "READY"
    assert "\nPoint 0: the token" in c.body and '"comment"' not in c.body
    assert c.meta["truncated"] == f"{len(review)} chars"
    assert "*[Answer cut at 2,000 characters: the model wrote" in c.body


@pytest.mark.parametrize("participants", [["@architect"], ["@architect", "@security"]])
def test_the_follow_up_stays_within_max_calls(
    weak, isolated: Path, participants: list[str]
) -> None:  # type: ignore[no-untyped-def]
    """The follow-up is a call like any other: it is not made where it would go past the
    budget (the answer is kept without a vote instead)."""
    prompts = weak("The proposal looks reasonable to me overall.", "VOTE: READY")
    limit = len(participants)
    config = isolated / "discussions.yaml"
    config.write_text(config.read_text() + f"budget:\n  max_calls: {limit}\n")
    assert code(run("turn", "auth.md", *participants)) == 0
    assert len(list(prompts.glob("*.txt"))) == limit
    assert _disc(isolated).usage.total.calls == limit
