"""What the conformance tests of the chat-completions CLIs (qwen, opencode, copilot, llm) share:
a git project holding an open discussion for `turn` and a decided one for `apply`, the
commands run in process, the comment a turn recorded, and fingerprints of the folders a
refused tool call must leave alone."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from discussions.cli import cli

from ..conftest import write, write_signed

TIMEOUT = "90"
"""Seconds a call of a real CLI may take in these tests (the stub answers at once)."""

DISCUSSION = """
<!-- DISCUSSION -->
<!-- Title: Retry budget -->
<!-- Phase: initial_feedback -->
<!-- Status: {status} -->
<!-- Participants: lead, reviewer -->

# Retry budget

## Context
Calls to the catalogue fail now and then; the public API must not change.

---

Name: AI-Lead
We should implement three tries in the retry function.

DECISION: implement three tries in retry().

VOTE: READY

---
"""
OPEN = "discussions/open.md"
DECIDED = "discussions/decided.md"


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return proc.stdout


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
    write(project / OPEN, DISCUSSION.format(status="OPEN"))
    write_signed(project / DECIDED, DISCUSSION.format(status="DECIDED"))
    (project / "app.py").write_text("def retry():\n    return 1\n")
    for path, text in (extra or {}).items():
        write(project / path, text)
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "first")


def use_git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A git identity of the test's own (commits of the fixture and the apply)."""
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = Test User\n\temail = test@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("CI", raising=False)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def turn(preset: str) -> Result:
    """`discussions turn` of the open discussion, the reviewer answering through `preset`."""
    return invoke("turn", OPEN, "@reviewer", "--provider", preset, "--timeout", TIMEOUT, "--json")


def printed(r: Result) -> dict[str, object]:
    """The JSON object a command printed (lines before and after it left out)."""
    data, _ = json.JSONDecoder().raw_decode(r.output[r.output.index("{") :])
    return data  # type: ignore[no-any-return]


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


def fingerprint(root: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Every file under `root` (its path relative to `root`) with its content's hash, but
    those under the relative paths `skip` (a CLI's own state, the discussion a turn appends
    to) and git's index (git refreshes it when asked for a status)."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel == ".git/index" or any(rel == s or rel.startswith(s + "/") for s in skip):
            continue
        if path.is_symlink() or path.is_file():
            data = path.read_bytes() if path.is_file() else str(path.readlink()).encode()
            found[rel] = hashlib.sha256(data).hexdigest()
    return found


def git_state(project: Path) -> tuple[str, str]:
    """The project's branches and worktrees (a refused tool must create neither)."""
    return git(project, "branch", "--list", "--all"), git(project, "worktree", "list")


def applies(project: Path) -> list[dict[str, object]]:
    return printed(invoke("status", DECIDED, "--json"))["applies"]  # type: ignore[return-value]
