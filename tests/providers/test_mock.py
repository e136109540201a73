"""The built-in mock: deterministic, persona-aware, plainly a mock, and showing what the
product does (a question, a concern where it fits, a vote in any phase)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions import Discussion, Runner
from discussions.cli import cli
from discussions.engine.council.narration import NARRATIVE_CALLOUT
from discussions.engine.prompt.prompts import build_prompt
from discussions.providers.mock import MOCK_BANNER, MockProvider, read_prompt


def run(*args: str) -> object:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def ask(path: Path, alias: str, callout: str | None = None) -> tuple[str, str | None]:
    """The mock's (comment, vote) for participant `alias` on the discussion at `path`."""
    d = Discussion.load(path)
    participant = d.workspace.participants.get(alias)
    prompt, _ = build_prompt(d, participant, callout)
    request = Runner(d.workspace).request_for(participant, prompt, wants_vote=False)
    answer = json.loads(MockProvider().complete(request))
    return answer["comment"], answer["vote"]


def lines_starting(text: str, marker: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(marker)]


def new(isolated: Path, title: str = "Add user authentication", context: str = "") -> Path:
    args = ["new", title] + (["--context", context] if context else [])
    assert run(*args).exit_code == 0  # type: ignore[attr-defined]
    return next((isolated / "discussions").glob("*.md"))


def test_same_prompt_same_answer_and_always_labelled(isolated: Path) -> None:
    path = new(isolated, context="Users need to log in with a password.")
    first, second = ask(path, "security"), ask(path, "security")
    assert first == second
    comment = first[0]
    assert comment.startswith(MOCK_BANNER)
    assert "I am the built-in mock" in comment
    assert f"Mock vote: {first[1]}," in comment
    assert ask(path, "architect") != first


def test_one_question_and_a_concern_where_the_persona_fits(isolated: Path) -> None:
    path = new(isolated, context="Users need to log in with a password.")
    security, _ = ask(path, "security")
    pragmatist, _ = ask(path, "pragmatist")
    assert len(lines_starting(security, "Q: ")) == 1
    assert len(lines_starting(pragmatist, "Q: ")) == 1
    concerns = Discussion.load(path).workspace.participants.get("security").concerns
    assert lines_starting(security, "Q: ")[0][3:] in concerns  # one of the persona's questions
    assert len(lines_starting(security, "CONCERN: ")) == 1
    assert lines_starting(pragmatist, "CONCERN: ") == []
    assert "Security Specialist" in security and "Shipping Pragmatist" in pragmatist


def test_votes_in_a_phase_that_does_not_ask_for_votes(isolated: Path) -> None:
    path = new(isolated, context="Users need to log in with a password.")
    assert Discussion.load(path).phase == "initial_feedback"  # voting_mode: false
    votes = {alias: ask(path, alias)[1] for alias in ("architect", "security", "pragmatist")}
    assert votes == {"architect": "READY", "security": "CHANGES", "pragmatist": "READY"}


def test_placeholder_context_is_named_not_discussed(isolated: Path) -> None:
    path = new(isolated)
    assert "[Describe what is being discussed and why]" in path.read_text()
    for alias, vote in (("architect", "CHANGES"), ("security", "CHANGES"), ("pragmatist", "READY")):
        comment, got = ask(path, alias)
        assert "The proposal has no context yet — add it under ## Context" in comment
        assert "[" not in comment.replace(MOCK_BANNER, "")  # no template placeholders
        assert got == vote, alias


def test_what_it_sees_changes_its_vote(isolated: Path) -> None:
    path = new(isolated, context="Users need to log in with a password.")
    run("comment", str(path), "CONCERN: passwords are stored in plain text")
    assert ask(path, "architect")[1] == "CHANGES"  # an open concern
    assert ask(path, "security")[1] == "CHANGES"
    run("comment", str(path), "DECISION: hash passwords with argon2")
    assert ask(path, "architect")[1] == "READY"
    security, vote = ask(path, "security")
    assert vote == "READY" and lines_starting(security, "CONCERN: ") == []


def test_no_vote_for_background_participants_or_when_told_not_to(isolated: Path) -> None:
    path = new(isolated, context="Users need to log in.")
    assert ask(path, "researcher")[1] is None  # a background participant
    comment, vote = ask(path, "moderator", NARRATIVE_CALLOUT)
    assert vote is None and "Mock vote" not in comment


def test_mentions_and_callouts_are_acknowledged_without_summoning_anyone(isolated: Path) -> None:
    path = new(isolated, context="Users need to log in.")
    run("comment", str(path), "@architect what about sessions?")
    comment, _ = ask(path, "architect", "Ask @security about tokens")
    assert "You mentioned me (line " in comment
    assert 'You asked: "Ask security about tokens"' in comment
    assert "@" not in comment


def test_read_prompt_without_the_usual_sections() -> None:
    r = read_prompt("just some text")
    assert (r.context_missing, r.comments, r.concerns, r.may_vote) == (False, 0, 0, True)


@pytest.mark.slow
def test_quick_start_shows_votes_a_question_and_the_consensus_state(isolated: Path) -> None:
    """The README's quick start, with no AI CLI installed."""
    assert run("new", "Add user authentication").exit_code == 0  # type: ignore[attr-defined]
    r = run("turn", "add-user-authentication.md", "@architect", "@security", "@pragmatist")
    assert r.exit_code == 0  # type: ignore[attr-defined]
    out = r.output  # type: ignore[attr-defined]
    assert "Votes cast this turn: READY: 1, CHANGES: 2, REJECT: 0" in out
    assert "so the built-in mock provider answers" in out
    assert "The phase moved to detailed_review, so votes restart there (none cast yet)." in out
    assert "Consensus in detailed_review: not reached" in out
    d = Discussion.load(isolated / "discussions" / "add-user-authentication.md")
    assert {c.author: c.vote for c in d.comments} == {
        "AI-Architect": "CHANGES",
        "AI-Security": "CHANGES",
        "AI-Pragmatist": "READY",
    }
    assert len(d.questions) == 3 and len(d.concerns) == 1
    assert all(MOCK_BANNER in c.body for c in d.comments)
    status = run("status", "add-user-authentication.md").output  # type: ignore[attr-defined]
    assert "Open questions (3):" in status and "Consensus: not reached" in status
