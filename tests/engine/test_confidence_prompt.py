"""Confidence on any vote (issue 37, item 5): every voting phase's prompt invites an optional
``"confidence": 0-10`` beside the vote (not only diagnostic mode), a non-voting phase and a
background persona are not asked, the answer's confidence is recorded beside the vote, and
what the real small model answered to the recorded prompts (tests/fixtures/real-model*) is
read exactly as before once the invitation is in them: no line of it becomes a marker, and
none of the model's words is taken for an echo of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions.engine.prompt.prompts import CONFIDENCE_INVITATION
from discussions.engine.turn.followup import DEFAULT_MAX_ANSWER_CHARS, read_capped
from discussions.syntax.answers import parse_response, prompt_echo

from ..conftest import FIXTURES, code, out, run, script_command, write
from ..support.quorum import open_vote, seat
from .test_real_model_answers_3 import markers, turn_echo


def _recording(isolated: Path, providers_file, answer: dict[str, object]) -> Path:  # type: ignore[no-untyped-def]
    """The seats answered by `answer`, each prompt saved to prompt.txt; the file of prompts."""
    write(isolated / "answer.json", json.dumps(answer))
    prompt = isolated.parent / "prompt.txt"
    providers_file(
        {"rec": script_command("from_file.py", str(isolated / "answer.json"), str(prompt))}
    )
    write(isolated / "discussions.yaml", "providers:\n  detect: false\n  mock_fallback: false\n")
    for alias in ("architect", "security", "pragmatist"):
        seat(isolated, alias, "rec")
    return prompt


def test_a_voting_phase_invites_confidence_and_records_it(isolated: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    prompt = _recording(
        isolated, providers_file, {"comment": "Fine.", "vote": "READY", "confidence": 7}
    )
    assert code(run("new", "Auth", "--context", "Tokens in cookies.")) == 0
    assert code(run("turn", "auth.md", "@architect")) == 0
    assert CONFIDENCE_INVITATION not in prompt.read_text(encoding="utf-8")  # no votes asked yet
    assert code(run("advance", "auth.md", "--to", "consensus_vote")) == 0
    assert code(run("turn", "auth.md", "@architect")) == 0
    assert CONFIDENCE_INVITATION in prompt.read_text(encoding="utf-8")
    r = run("status", "auth.md", "--json")
    assert code(r) == 0, out(r)
    assert json.loads(out(r))["vote_sources"]["AI-Architect"]["confidence"] == 7
    assert "confidence 7" in out(run("status", "auth.md"))


def test_a_background_persona_is_not_invited(isolated: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    prompt = _recording(isolated, providers_file, {"comment": "Noted."})
    write(
        isolated / "participants" / "scribe.yaml",
        "name: AI-Scribe\nalias: scribe\nrole: r\npersonality: p\nprovider_hint: rec\n"
        "type: background\n",
    )
    open_vote()
    assert code(run("turn", "auth.md", "@scribe")) == 0
    assert CONFIDENCE_INVITATION not in prompt.read_text(encoding="utf-8")


def test_an_echo_of_the_invitation_records_no_confidence() -> None:
    """A small model that repeats its prompt's format adds no CONFIDENCE: line."""
    prompt = f"## Response format\n{CONFIDENCE_INVITATION}\n"
    r = parse_response(f"{CONFIDENCE_INVITATION}\nI agree.", prompt_echo(prompt))
    assert "CONFIDENCE" not in markers(r) and r.comment.strip() == "I agree."


def _turn_prompts() -> list[Path]:
    return sorted(
        p
        for folder in sorted(FIXTURES.glob("real-model*"))
        for p in folder.glob("*.prompt.txt")
        if "<discussion>" in p.read_text(encoding="utf-8")
    )


def _with_invitation(prompt: str) -> str:
    """`prompt` as today's engine would send it in a voting phase: the invitation after the
    format's line on votes (or at the end of the format, for a prompt that asked for none)."""
    for line in prompt.split("\n"):
        if line.startswith(("This phase collects votes", "This phase does not collect votes")):
            return prompt.replace(line, f"{line}\n{CONFIDENCE_INVITATION}", 1)
    return prompt.replace("## Response format\n", f"## Response format\n{CONFIDENCE_INVITATION}\n")


def test_the_fixtures_hold_turn_prompts() -> None:
    assert len(_turn_prompts()) >= 70
    assert all("## Response format" in p.read_text(encoding="utf-8") for p in _turn_prompts())


@pytest.mark.parametrize("path", _turn_prompts(), ids=lambda p: f"{p.parent.name}/{p.name[:2]}")
def test_a_real_answer_reads_the_same_with_the_invitation(path: Path) -> None:
    prompt = path.read_text(encoding="utf-8")
    answer = path.with_name(path.name.replace(".prompt.", ".answer.")).read_text(encoding="utf-8")
    invited = _with_invitation(prompt)
    assert CONFIDENCE_INVITATION in invited
    before, _ = read_capped(answer, DEFAULT_MAX_ANSWER_CHARS, turn_echo(prompt))
    after, _ = read_capped(answer, DEFAULT_MAX_ANSWER_CHARS, turn_echo(invited))
    assert (after.comment, after.vote, after.action, after.echoed) == (
        before.comment,
        before.vote,
        before.action,
        before.echoed,
    )
    assert markers(after) == markers(before) and "CONFIDENCE" not in markers(after)
