"""Summaries (.sum.md) and the bounded prompt for long discussions."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions import Discussion
from discussions.engine.prompt.context import for_the_prompt
from discussions.engine.prompt.prompts import build_prompt
from discussions.model.summary import summary_path
from discussions.syntax.render import analyse_tail, join_for_append, render_comment

from ..conftest import FIXTURES, write


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli_(), list(args), catch_exceptions=False)


def cli_():  # type: ignore[no-untyped-def]
    from discussions.cli import cli

    return cli


def test_summary_file_is_deterministic_and_points_to_lines(isolated: Path) -> None:
    src = isolated / "seed_session.md"
    src.write_bytes((FIXTURES / "seed_session.md").read_bytes())
    r = run("summary", str(src))
    assert r.exit_code == 0 and r.output == f"Wrote {src.name.replace('.md', '.sum.md')}\n"
    out = summary_path(src)
    first = out.read_bytes()
    run("summary", str(src))
    assert out.read_bytes() == first
    text = first.decode()
    assert "- **Phase:** initial_feedback (Initial Feedback)" in text
    assert "- AI-Architect: **CHANGES** ([line 22](seed_session.md#L22))" in text
    assert (
        "- Should we use JWT or session cookies? (AI-Architect, [line 20](seed_session.md#L20))"
        in text
    )
    assert "## Concerns (1)" in text
    assert "- @security, mentioned by Rob ([line 47](seed_session.md#L47))" in text
    assert "Narrative" not in text


def test_summary_with_ai_narrative_uses_the_moderator(isolated: Path) -> None:
    src = write(isolated / "d.md", (FIXTURES / "seed_session.md").read_text())
    r = run("summary", str(src), "--ai", "--stdout")
    assert r.exit_code == 0
    assert "## Narrative summary" in r.output
    assert "*Written by AI-Moderator via mock; not derived from the file" in r.output
    assert not summary_path(src).exists()


def test_summary_refreshed_after_each_turn_when_configured(isolated: Path) -> None:
    write(isolated / "discussions.yaml", "output:\n  summary_files: true\n")
    run("new", "Sum")
    path = isolated / "discussions" / "sum.md"
    run("turn", "sum.md", "@architect", "--provider", "mock")
    assert "- **Comments:** 1" in summary_path(path).read_text()
    assert run("list").output.count("sum") == 1  # the .sum.md is not listed as a discussion


def _big(path: Path, n: int, mention_at: int | None = None, questions: bool = True) -> Discussion:
    parts = [
        "<!-- DISCUSSION -->\n<!-- Title: Long -->\n<!-- Template: feature -->\n\n# Long\n\nContext.\n"
    ]
    for i in range(n):
        body = f"Comment number {i}. " + "Some reasoning about the design. " * 8
        if i % 4 == 0 and questions:
            body += f"\n\nQ: question {i}?"
        if i == mention_at:
            body += "\n\n@security MENTIONED-YOU-HERE please check the token store."
        parts.append(
            join_for_append(
                analyse_tail("".join(parts), at_file_start=True),
                render_comment(f"Person{i % 5}", body, vote="READY"),
            )
        )
    path.write_text("".join(parts), encoding="utf-8")
    return Discussion.load(path)


@pytest.mark.slow
def test_prompt_stays_within_budget_and_says_what_was_left_out(isolated: Path) -> None:
    sizes = []
    for n in (20, 200, 2000):
        d = _big(isolated / f"d{n}.md", n, mention_at=3)
        security = d.workspace.participants.get("security")
        prompt, ctx = build_prompt(d, security, max_chars=20_000)
        sizes.append(len(prompt))
        assert len(prompt) <= 20_000
        assert not ctx.complete
        assert "[Context:" in prompt and "comments in full" in prompt
        assert (
            "Mentions of you (@security) since your latest comment:\n- line 37, Person3" in prompt
        )
        assert "- question 4? (Person4, line" in prompt  # in the state of the discussion
        if n < 2000:
            assert "MENTIONED-YOU-HERE" in prompt  # the comment addressed to this participant
            assert f"Comment number {n - 1}." in prompt  # the newest comment
        else:  # 500 questions fill the budget: the state comes first, and says it is cut
            assert "lines of the state left out for lack of room" in prompt
    assert sizes[0] < sizes[1] < sizes[2]  # the state grows with the questions, within the budget


@pytest.mark.slow
def test_a_discussion_of_ordinary_comments_stays_a_rounds_size(isolated: Path) -> None:
    """Comments without markers: the prompt at 40 comments is the size of the one at 4, and
    still names every participant's position and the mention of this participant."""
    sizes = []
    for n in (4, 40, 400):
        d = _big(isolated / f"o{n}.md", n, mention_at=1, questions=False)
        prompt, _ = build_prompt(d, d.workspace.participants.get("security"))
        sizes.append(len(prompt))
        assert "MENTIONED-YOU-HERE" in prompt
        assert all(f"- Person{i}: READY" in prompt for i in range(min(n, 5)))
    assert max(sizes) < 1.5 * min(sizes), sizes


def test_short_discussion_is_sent_whole(isolated: Path) -> None:
    d = _big(isolated / "short.md", 3)
    prompt, ctx = build_prompt(d, d.workspace.participants.get("architect"))
    assert ctx.complete and "[Context budget" not in prompt
    assert for_the_prompt(d.text).strip() in prompt.replace("\r\n", "\n")
