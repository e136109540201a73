"""`apply --provider NAME` and the King's Choice after `run --provider NAME`: a provider that
cannot lead an apply (unknown, or without a write mode) is named in the refusal, with why; the
message for "no participant has a writer" (which pointed at provider_hint and listed a writer
that was installed) is not given for it. Nothing is applied. Real git, stand-in CLIs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace

from ..conftest import SCRIPTS, code, out, result_of, run, script_command
from ..support.dialogue import converse
from .test_kings_choice import FILE, rollout  # noqa: F401  (the fixture)

FORCED = ("--force", "--reason", "trying the provider option")


@pytest.fixture
def chat(rollout: Path, providers_file, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]  # noqa: F811
    """`rollout`, with a second provider `chat` that answers turns but has no write mode."""
    lead = json.dumps(f"{sys.executable} {SCRIPTS / 'lead.py'} edit")
    agreeing = script_command("deliberate.py", "agree2", str(tmp_path / "memory"))
    providers_file({"standin": agreeing, "chat": agreeing}, standin={"write_command": lead})
    return rollout


def test_an_unknown_provider_is_refused_by_its_name(chat: Path) -> None:
    r = run("apply", FILE, *FORCED, "--provider", "nosuch", "--yes")
    assert code(r) != 0
    assert "nosuch" in out(r) and "no provider of that name" in out(r), out(r)
    assert not Discussion.load(chat, Workspace.discover()).applies


def test_a_provider_without_a_write_mode_is_refused_by_its_name(chat: Path) -> None:
    r = run("apply", FILE, *FORCED, "--provider", "chat", "--yes")
    assert code(r) != 0
    assert "chat cannot lead" in out(r) and "no write mode" in out(r), out(r)
    assert "nobody in this discussion can lead" not in out(r)
    assert not Discussion.load(chat, Workspace.discover()).applies
    planned = result_of(run("apply", FILE, *FORCED, "--provider", "chat", "--dry-run", "--json"))
    assert "chat cannot lead" in str(planned["problem"]), planned


def test_the_kings_choice_after_a_run_through_a_chat_provider_says_why_not(chat: Path) -> None:
    root = chat.parents[1]
    talk = converse(["run", FILE, "--provider", "chat"], [("Your choice", "a\r")], cwd=root)
    assert not talk.unanswered, talk.output
    assert "chat cannot lead" in talk.output and "no write mode" in talk.output, talk.output
    assert not Discussion.load(chat, Workspace.discover(root)).applies
