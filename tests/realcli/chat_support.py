"""What the conformance tests of the chat-completions CLIs (qwen, opencode, copilot, llm) share:
a git project holding an open discussion for `turn` and a decided one for `apply`, the turn
and apply commands, and the comment a turn recorded (what every CLI's tests share is in
common.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import Result

from ..conftest import write, write_signed
from . import chat
from .common import git, invoke, printed
from .stub import StubModel

TIMEOUT = "90"
"""Seconds a call of a real CLI may take in these tests (the stub answers at once)."""

CONTEXT = "Calls to the catalogue fail now and then"
"""A sentence of both discussions: in every prompt of a turn on them."""

DISCUSSION = """
<!-- DISCUSSION -->
<!-- Title: Retry budget -->
<!-- Phase: initial_feedback -->
<!-- Status: {status} -->
<!-- Participants: lead, reviewer -->

# Retry budget

## Context
{context}; the public API must not change.

---

Name: AI-Lead
We should implement three tries in the retry function.

DECISION: implement three tries in retry().

VOTE: READY

---
"""
OPEN = "discussions/open.md"
DECIDED = "discussions/decided.md"


def make_project(project: Path, preset: str, extra: dict[str, str] | None = None) -> None:
    """`project` made a git repository (one commit) with a reviewer and a lead using `preset`,
    an open and a decided discussion, the app they are about, and `extra` files (path: text:
    a hostile repository's configuration)."""
    for alias, name in (("reviewer", "AI-Reviewer"), ("lead", "AI-Lead")):
        write(
            project / "participants" / f"{alias}.yaml",
            f"name: {name}\nalias: {alias}\nrole: Reviewer\npersonality: Reads the code.\n"
            f"capabilities: [logic]\nprovider_hint: {preset}\n",
        )
    write(project / "discussions.yaml", "providers:\n  fallback: []\n  detect: false\n")
    write(project / OPEN, DISCUSSION.format(status="OPEN", context=CONTEXT))
    write_signed(project / DECIDED, DISCUSSION.format(status="DECIDED", context=CONTEXT))
    (project / "app.py").write_text("def retry():\n    return 1\n")
    for path, text in (extra or {}).items():
        write(project / path, text)
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "first")


def turn(preset: str) -> Result:
    """`discussions turn` of the open discussion, the reviewer answering through `preset`."""
    return invoke("turn", OPEN, "@reviewer", "--provider", preset, "--timeout", TIMEOUT, "--json")


def turn_result(r: Result) -> dict[str, object]:
    """The reviewer's entry in a turn's JSON result."""
    [entry] = printed(r)["participants"]  # type: ignore[misc]
    return entry  # type: ignore[no-any-return]


_COMMENT = re.compile(r"\nName: AI-Reviewer\n\n<!-- (provider: [^\n]*) -->\n\n(.*?)\n\n---\n", re.S)


def recorded(project: Path) -> tuple[str, str]:
    """The metadata line and the text, exactly as written, of the reviewer's comment."""
    found = _COMMENT.search((project / OPEN).read_text(encoding="utf-8"))
    assert found, (project / OPEN).read_text(encoding="utf-8")
    return found.group(1), found.group(2)


def git_state(project: Path) -> tuple[str, str]:
    """The project's branches and worktrees (a refused tool must create neither)."""
    return git(project, "branch", "--list", "--all"), git(project, "worktree", "list")


def applies(project: Path) -> list[dict[str, object]]:
    return printed(invoke("status", DECIDED, "--json"))["applies"]  # type: ignore[return-value]


def llm_on_stub(model: StubModel) -> None:
    """Point the real `llm` of this HOME at `model`: an OpenAI-compatible model in its user
    folder, with a dummy key, made the default (the one CLI configurable with no login)."""
    folder = Path.home() / ".config" / "io.datasette.llm"
    folder.mkdir(parents=True)
    (folder / "extra-openai-models.yaml").write_text(
        f"- model_id: stub\n  model_name: {chat.MODEL}\n"
        f"  api_base: {model.url('/v1')}\n  api_key_name: stub\n"
    )
    (folder / "keys.json").write_text(json.dumps({"stub": "dummy"}))
    (folder / "default_model.txt").write_text("stub")
