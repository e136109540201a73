"""The shape of a prompt (issue 34, item 10): one format, stated once; no stale header; no
lines from failed calls; a compact prompt for small windows."""

from __future__ import annotations

from pathlib import Path

from discussions import Discussion
from discussions.engine.prompt.prompts import build_prompt
from discussions.engine.turn.failures import render_failed
from discussions.engine.turn.outcomes import Attempt, ParticipantOutcome
from discussions.syntax.render import analyse_tail, join_for_append, render_comment

from ..conftest import write

PROPOSAL = "Add a per-key rate limit to GET /export: 10 requests a minute, 429 beyond."
CAUSE = "Error: the prompt of 2311 tokens is over the context window of 2048 tokens"


def discussion(isolated: Path, comments: int = 0, failed: bool = False) -> Discussion:
    path = isolated / f"rate-limit-{comments}.md"
    d = Discussion.create("Rate limit", context=PROPOSAL, path=path)
    d.save()
    parts = [d.path.read_text("utf-8")]
    for i in range(comments):
        block = render_comment(f"Person{i % 3}", f"Comment {i}: " + "I read it. " * 30)
        if failed and i == comments - 1:
            outcome = ParticipantOutcome("architect", "AI-Architect")
            outcome.attempts.append(Attempt("local", "exited with status 1", CAUSE))
            block = render_failed(outcome) + "\n---\n\n" + block
        parts.append(join_for_append(analyse_tail("".join(parts), at_file_start=True), block))
    d.path.write_text("".join(parts), encoding="utf-8")
    return Discussion.load(d.path)


def prompt_for(d: Discussion, alias: str = "architect", window: int | None = None) -> str:
    return build_prompt(d, d.workspace.participants.get(alias), window=window)[0]


def test_a_personas_own_response_format_is_left_out(isolated: Path) -> None:
    write(
        isolated / "participants" / "critic.yaml",
        "name: AI-Critic\nalias: critic\nrole: Critic\npersonality: |\n"
        "  You are a critic.\n\n  Response format:\n  - Use Q: for questions\n"
        "  - End with VOTE: READY, CHANGES, or REJECT when votes are asked for\n\n"
        "  You read every line twice.\n",
    )
    prompt = prompt_for(discussion(isolated), "critic")
    assert "You are a critic." in prompt and "You read every line twice." in prompt
    assert "End with VOTE" not in prompt
    assert prompt.lower().count("response format") == 1  # the engine's, once


def test_the_bundled_personas_ask_for_no_format_of_their_own(isolated: Path) -> None:
    d = discussion(isolated)
    for alias in d.workspace.participants.aliases():
        prompt = prompt_for(d, alias)
        assert "VOTE:" not in prompt.split("## Response format")[0], alias


def test_the_prompt_carries_the_current_phase_only(isolated: Path) -> None:
    d = discussion(isolated, comments=1)
    first = d.phase
    d.advance()
    d.save()
    d = Discussion.load(d.path)
    assert d.phase != first and f"<!-- Phase: {first} -->" in d.text  # the header stays
    prompt = prompt_for(d)
    assert "<!-- Phase:" not in prompt and "<!-- Status:" not in prompt
    assert f"Current phase: {d.phase_info.title} ({d.phase})" in prompt  # type: ignore[union-attr]


def test_lines_from_failed_calls_are_not_in_prompts(isolated: Path) -> None:
    for comments in (2, 12):  # the whole file, and the newest comments of a longer one
        d = discussion(isolated, comments=comments, failed=True)
        assert CAUSE in d.text
        prompt = prompt_for(d)
        assert "got no answer" not in prompt and "2311 tokens" not in prompt, comments
        assert "FAILED" not in prompt and f"Comment {comments - 1}:" in prompt


def instructions(prompt: str) -> int:
    """Characters of `prompt` outside the discussion it shows."""
    inside = prompt.split("<discussion>", 1)[1].split("</discussion>", 1)[0]
    return len(prompt) - len(inside)


def test_a_small_window_gets_a_compact_prompt(isolated: Path) -> None:
    d = discussion(isolated, comments=8)
    full, compact = prompt_for(d), prompt_for(d, window=2048)
    assert "Your role:" in full and "Your role:" not in compact  # the persona in one line
    assert "You are AI-Architect (@architect), Systems Architect" in compact
    for gone in ("Phase instructions:", "## State of the discussion", "EVIDENCE:", "CALL_VOTE"):
        assert gone not in compact
    assert PROPOSAL in compact and "Comment 7:" in compact  # the proposal, the newest comment
    assert "## Your task" in compact and "## Response format" in compact
    assert instructions(compact) * 2 < instructions(full)


def test_compact_prompts_can_be_asked_for_or_refused(isolated: Path) -> None:
    d = discussion(isolated, comments=2)
    write(isolated / "discussions.yaml", "context:\n  compact: true\n")
    assert "Your role:" not in prompt_for(Discussion.load(d.path))
    write(isolated / "discussions.yaml", "context:\n  compact: false\n")
    assert "Your role:" in prompt_for(Discussion.load(d.path), window=2048)
