"""Prompts sized for the model: a provider's context window (declared, or asked of `ollama
show`), the prompt that fits it by design, and a model too small named before any call."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from discussions import Discussion
from discussions.engine.prompt.prompts import build_prompt, minimal_prompt
from discussions.providers.registry import ProviderRegistry
from discussions.providers.window import (
    answer_tokens,
    estimate_tokens,
    prompt_tokens,
    provider_window,
)
from discussions.syntax.render import analyse_tail, join_for_append, render_comment

from ..conftest import code, out, run, script_command, write

PROPOSAL = (
    "We replace the shared admin account with one account per user before the beta. "
    "Login takes an email and a password; sessions last a day; a reset link goes by email. "
) * 4


def use(isolated: Path, default: str) -> None:
    write(isolated / "discussions.yaml", f"providers:\n  default: {default}\n  detect: false\n")


def recorder(tmp_path: Path) -> str:
    answer = tmp_path / "answer.json"
    answer.write_text('{"comment": "Noted.", "vote": null}')
    return script_command("from_file.py", str(answer), str(tmp_path / "prompt.txt"))


def long_discussion(isolated: Path, comments: int) -> Path:
    assert code(run("new", "Auth", "--context", PROPOSAL)) == 0
    path = isolated / "discussions" / "auth.md"
    text = path.read_text("utf-8")
    for i in range(comments):
        body = f"Comment {i}: " + "the session store needs a decision before we build. " * 8
        if i % 5 == 0:
            body += f"\n\nQ: open question {i}?"
        text += join_for_append(
            analyse_tail(text, at_file_start=True), render_comment(f"Person{i % 4}", body)
        )
    path.write_text(text, "utf-8")
    return path


def test_the_estimate_never_counts_fewer_tokens_than_characters_allow() -> None:
    assert estimate_tokens("abc" * 100) == 100  # three ASCII characters a token
    assert estimate_tokens("é" * 10) == 10  # one token for each other character
    assert estimate_tokens("") == 0
    assert answer_tokens(512) == 128 and prompt_tokens(512) == 384
    assert answer_tokens(200_000) == 2_048  # the answer's room is capped


def test_a_declared_window_is_read_and_checked(isolated: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    providers_file({"small": "python3 -c pass"}, small={"context_window": 2048})
    reg = ProviderRegistry.load(isolated)
    assert reg.specs["small"].context_window == 2048
    window = provider_window(reg, "small")
    assert window.tokens == 2048 and window.source == "providers.yaml"
    providers_file({"small": "python3 -c pass"}, small={"context_window": '"big"'})
    r = run("providers", "list")
    assert code(r) != 0 and "context_window" in out(r) and "whole number of tokens" in out(r)


def test_the_prompt_fits_the_window_by_design(
    isolated: Path,
    providers_file,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    """A long discussion, a 3,000-token model (the full prompt asked for, not the compact
    one): the prompt sent is within the window less the answer's room, the proposal whole,
    and the state lists the open questions."""
    providers_file({"rec": recorder(tmp_path)}, rec={"context_window": 3000})
    use(isolated, "rec")
    with (isolated / "discussions.yaml").open("a", encoding="utf-8") as f:
        f.write("context:\n  compact: false\n")
    long_discussion(isolated, 60)
    r = run("turn", "auth.md", "@security")
    assert code(r) == 0, out(r)
    prompt = (tmp_path / "prompt.txt").read_text("utf-8")
    assert estimate_tokens(prompt) <= prompt_tokens(3000)
    assert PROPOSAL.strip() in " ".join(prompt.split("\n"))  # the proposal, whole
    assert "## State of the discussion" in prompt and "open question 55?" in prompt


def test_a_model_too_small_is_named_before_any_call(
    isolated: Path,
    providers_file,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    """Even the compact prompt does not fit in 256 tokens."""
    providers_file({"tiny": recorder(tmp_path)}, tiny={"context_window": 256})
    use(isolated, "tiny")
    assert code(run("new", "Auth")) == 0
    r = run("turn", "auth.md")
    assert code(r) != 0
    assert "tiny has a context window of 256 tokens (from providers.yaml)" in out(r)
    assert "AI-Security" in out(r) and "larger window" in out(r)
    assert not (tmp_path / "prompt.txt").exists()  # no call was made
    assert "Name:" not in (isolated / "discussions" / "auth.md").read_text("utf-8")
    r = run("check", "discussions/auth.md")
    assert code(r) != 0 and "context window of 256 tokens" in out(r)
    r = run("providers", "test", "tiny")
    assert "Context window: 256 tokens" in out(r) and "Too small: AI-Architect" in out(r)


def test_the_smallest_prompt_is_the_frame_alone(isolated: Path) -> None:
    path = long_discussion(isolated, 10)
    d = Discussion.load(path)
    p = d.workspace.participants.get("security")
    small = minimal_prompt(d, p)
    assert "Comment 9:" not in small and "## Your task" in small and "## Response format" in small
    assert estimate_tokens(small) < estimate_tokens(build_prompt(d, p)[0])


FAKE_OLLAMA = """#!{python}
import sys
if sys.argv[1:3] != ["show", "tiny"]:
    sys.exit(1)
print("  Model")
print("    architecture        llama")
print("    context length      8192")
print("")
print("  Parameters")
print("    num_ctx    {num_ctx}")
"""


@pytest.mark.parametrize("num_ctx, expected", [(1024, 1024), (32768, 8192)])
def test_an_ollama_model_says_its_window(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, num_ctx: int, expected: int
) -> None:
    """``ollama run MODEL``: the window is the model's num_ctx, at most its context length."""
    import sys

    bin_dir = tmp_path / f"bin{num_ctx}"
    bin_dir.mkdir()
    fake = bin_dir / "ollama"
    fake.write_text(FAKE_OLLAMA.format(python=sys.executable, num_ctx=num_ctx))
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    write(
        isolated.parent / "userdir" / "providers.yaml",
        f"providers:\n  - name: local\n    command: {json.dumps('ollama run tiny')}\n",
    )
    window = provider_window(ProviderRegistry.load(isolated), "local")
    assert window.tokens == expected and window.source == "ollama show tiny"
    assert window.provider == "local"


# -- the order of priority under a small budget -----------------------------------------------


def test_a_small_budget_keeps_the_proposal_and_the_state(isolated: Path) -> None:
    """The frame and 2,000 characters: the proposal whole, then the state (the mention of
    this participant, the positions, the open questions), then what is left for comments."""
    path = long_discussion(isolated, 6)
    text = path.read_text("utf-8")
    mention = render_comment("Rob", "@security is the reset link single use?")
    path.write_text(
        text + join_for_append(analyse_tail(text, at_file_start=True), mention), "utf-8"
    )
    d = Discussion.load(path)
    p = d.workspace.participants.get("security")
    budget = len(minimal_prompt(d, p)) + 2_000
    prompt, ctx = build_prompt(d, p, max_chars=budget)
    assert len(prompt) <= budget
    assert PROPOSAL.strip() in " ".join(prompt.split("\n")) and not ctx.truncated_preamble
    assert "Mentions of you (@security) since your latest comment:\n- line" in prompt
    assert "- Person3: no vote, latest comment at line" in prompt
    assert "- open question 0? (Person0, line" in prompt
    assert "- open question 5? (Person1, line" in prompt
    assert "@security is the reset link single use?" in prompt  # addressed to it: in full
