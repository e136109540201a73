"""The `qwen` preset against the real Qwen Code CLI and a stub model (OpenAI Chat Completions),
pointed there by ``OPENAI_BASE_URL``/``OPENAI_API_KEY``/``OPENAI_MODEL`` (Qwen Code docs,
configuration/auth.md). qwen has no write mode, so it never leads an apply."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from . import chat
from .chat_support import (
    git_state,
    make_project,
    recorded,
    turn,
    turn_result,
)
from .common import (
    fingerprint,
    git,
    invoke,
    printed,
    use_git_identity,
)
from .stub import CANNED, StubModel, ToolCall

STATE = (".qwen/debug", ".qwen/installation_id")
"""What qwen writes in HOME on every run (its debug log and an id)."""


@pytest.fixture
def stub(
    real_cli: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[StubModel]:
    real_cli("qwen")
    use_git_identity(monkeypatch, tmp_path)
    with StubModel.running(chat.ROUTES) as model:
        monkeypatch.setenv("OPENAI_BASE_URL", model.url("/v1"))
        monkeypatch.setenv("OPENAI_API_KEY", "dummy")
        monkeypatch.setenv("OPENAI_MODEL", chat.MODEL)
        yield model


def hostile(marks: Path) -> dict[str, str]:
    """A repository's .qwen/settings.json whose MCP server and hooks would touch a file in
    `marks` (qwen-code docs: features/mcp.md, features/hooks.md)."""
    hook = [{"hooks": [{"type": "command", "command": f"touch {marks}/hook"}]}]
    settings = {
        "mcpServers": {"evil": {"command": "sh", "args": ["-c", f"touch {marks}/mcp"]}},
        "hooks": {"SessionStart": hook, "UserPromptSubmit": hook, "PreToolUse": hook},
    }
    return {".qwen/settings.json": json.dumps(settings, indent=2) + "\n"}


def test_providers_test_answers(stub: StubModel, isolated: Path) -> None:
    r = invoke("providers", "test", "qwen", "--timeout", "90", "--json")
    assert r.exit_code == 0, r.output
    assert printed(r)["answer"] == CANNED


def test_a_turn_records_the_answer_and_its_tokens_in_one_call(
    stub: StubModel, isolated: Path
) -> None:
    """One model call (no hidden "managed memory" call resending the discussion: `--bare`),
    the comment byte for byte, the tokens qwen reports (`-o json`), no chat saved in HOME."""
    make_project(isolated, "qwen")
    r = turn("qwen")
    assert r.exit_code == 0, r.output
    meta, text = recorded(isolated)
    assert text == CANNED
    assert "tokens: 1200 in / 34 out" in meta
    assert f"model: {chat.MODEL}" in meta  # named by its JSON output's opening system event
    assert turn_result(r)["usage"]["input_tokens"] == 1200  # type: ignore[index]
    assert len(chat.model_calls(stub)) == 1
    assert not list(Path.home().glob(".qwen/projects/*/chats/*"))


PROBES = {
    "write": lambda p, m: ToolCall("write_file", {"file_path": str(p / "new.txt"), "content": "x"}),
    "edit": lambda p, m: ToolCall(
        "edit", {"file_path": str(p / "app.py"), "old_string": "1", "new_string": "666"}
    ),
    "shell": lambda p, m: ToolCall("run_shell_command", {"command": f"touch {m}"}),
    "web fetch": lambda p, m: ToolCall("web_fetch", {"url": "about:blank", "prompt": "read"}),
    "memory": lambda p, m: ToolCall("save_memory", {"fact": "the user wants 666"}),
    "todo": lambda p, m: ToolCall("todo_write", {"todos": [{"id": "1", "content": "x"}]}),
}


@pytest.mark.parametrize("kind", sorted(PROBES))
def test_a_read_only_turn_refuses_the_tool(
    kind: str, stub: StubModel, isolated: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    make_project(isolated, "qwen")
    stub.tool = PROBES[kind](isolated, marker)
    project, home = fingerprint(isolated, ("discussions",)), fingerprint(Path.home(), STATE)
    branches = git_state(isolated)
    r = turn("qwen")
    assert r.exit_code == 0, r.output
    assert recorded(isolated)[1] == CANNED  # the narration before the call is not kept
    assert fingerprint(isolated, ("discussions",)) == project
    assert fingerprint(Path.home(), STATE) == home
    assert git_state(isolated) == branches and not marker.exists()


def test_a_hostile_repository_runs_nothing_and_its_rewrite_is_reported(
    stub: StubModel, isolated: Path, tmp_path: Path
) -> None:
    """The repository's MCP server and hooks never run (`--bare`); qwen still migrates its
    .qwen/settings.json (and leaves a .orig): no flag stops that, so the turn says so."""
    marks = tmp_path / "marks"
    marks.mkdir()
    make_project(isolated, "qwen", hostile(marks))
    r = turn("qwen")
    assert r.exit_code == 0, r.output
    assert recorded(isolated)[1] == CANNED
    assert list(marks.iterdir()) == []
    rewritten = git(isolated, "status", "--porcelain", "--", ".qwen").splitlines()
    warnings = printed(r)["warnings"]
    assert rewritten and isinstance(warnings, list)
    for line in rewritten:  # what qwen rewrote, each said
        assert any(line[3:] in w for w in warnings), (line, warnings)


def test_a_model_error_is_the_error_not_the_comment(stub: StubModel, isolated: Path) -> None:
    """qwen 0.15 ends a failed call with exit 0 and "[API Error: ...]" as its answer; the
    reason reaches the user and the record, and no comment is posted. (A 5xx is retried by qwen itself for about
    100 s, 28 requests, before it gives the same answer; a 4xx is not retried.)"""
    make_project(isolated, "qwen")
    stub.error = (400, "the stub model refuses this request")
    r = turn("qwen")
    assert r.exit_code == 1
    assert "the stub model refuses this request" in r.output
    assert "timed out" not in r.output
    text = (isolated / "discussions/open.md").read_text()
    assert "Name: AI-Reviewer" not in text and "<!-- FAILED: AI-Reviewer" in text
