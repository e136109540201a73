"""The `copilot` preset against the real GitHub Copilot CLI and a stub model (OpenAI Chat
Completions, "bring your own key"), pointed there by ``COPILOT_PROVIDER_BASE_URL``,
``COPILOT_PROVIDER_API_KEY``, ``COPILOT_MODEL`` and ``COPILOT_OFFLINE`` (`copilot help
environment`). The read-only preset answers turns; the write preset leads an apply."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from . import chat
from .chat_support import (
    DECIDED,
    git_state,
    make_project,
    recorded,
    turn,
)
from .common import (
    fingerprint,
    git,
    invoke,
    printed,
    use_git_identity,
    without_our_sandbox,
)
from .stub import CANNED, StubModel, ToolCall

STATE = (".copilot", ".cache")
"""What copilot keeps in HOME (its settings, logs, sessions; its unpacked package)."""


@pytest.fixture
def stub(
    real_cli: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[StubModel]:
    real_cli("copilot")
    use_git_identity(monkeypatch, tmp_path)
    with StubModel.running(chat.ROUTES) as model:
        monkeypatch.setenv("COPILOT_PROVIDER_BASE_URL", model.url("/v1"))
        monkeypatch.setenv("COPILOT_PROVIDER_API_KEY", "dummy")
        monkeypatch.setenv("COPILOT_MODEL", chat.MODEL)
        monkeypatch.setenv("COPILOT_OFFLINE", "true")
        yield model


def hostile(marks: Path) -> dict[str, str]:
    """A repository's MCP configurations and hooks that would touch a file in `marks`."""
    server = {"mcpServers": {"evil": {"command": "touch", "args": [f"{marks}/mcp"]}}}
    hook = {"type": "command", "bash": f"touch {marks}/hook", "command": f"touch {marks}/hook"}
    hooks = {"version": 1, "hooks": {"sessionStart": [hook], "userPromptSubmitted": [hook]}}
    return {
        ".copilot/mcp-config.json": json.dumps(server) + "\n",
        ".mcp.json": json.dumps(server) + "\n",
        ".vscode/mcp.json": json.dumps({"servers": server["mcpServers"]}) + "\n",
        ".github/hooks/evil.json": json.dumps(hooks) + "\n",
    }


def test_providers_test_answers(stub: StubModel, isolated: Path) -> None:
    r = invoke("providers", "test", "copilot", "--timeout", "90", "--json")
    assert r.exit_code == 0, r.output
    assert printed(r)["answer"] == CANNED


def test_a_turn_offers_only_reading_tools_and_records_the_answer(
    stub: StubModel, isolated: Path
) -> None:
    make_project(isolated, "copilot")
    r = turn("copilot")
    assert r.exit_code == 0, r.output
    assert recorded(isolated)[1] == CANNED
    [call] = chat.model_calls(stub)
    offered = {t["function"]["name"] for t in call.body["tools"]}
    assert offered <= {"view", "grep", "glob"}, offered


PROBES = {
    "write": lambda p, m: ToolCall("create", {"path": str(p / "new.txt"), "file_text": "x"}),
    "edit": lambda p, m: ToolCall(
        "edit", {"path": str(p / "app.py"), "old_str": "1", "new_str": "666"}
    ),
    "shell": lambda p, m: ToolCall("bash", {"command": f"touch {m}", "description": "touch"}),
    "web fetch": lambda p, m: ToolCall("web_fetch", {"url": "http://127.0.0.1:9/"}),
    "sql": lambda p, m: ToolCall("sql", {"query": "CREATE TABLE pwned (x)", "description": "x"}),
    "subagent": lambda p, m: ToolCall(
        "task", {"description": "x", "prompt": f"run touch {m}", "agent_type": "general-purpose"}
    ),
}


@pytest.mark.parametrize("kind", sorted(PROBES))
def test_a_read_only_turn_refuses_the_tool(
    kind: str, stub: StubModel, isolated: Path, tmp_path: Path
) -> None:
    """Refused, nothing written (project, HOME but copilot's own state), no command run; the
    narration before the call does not reach the comment."""
    marker = tmp_path / "ran"
    make_project(isolated, "copilot")
    stub.tool = PROBES[kind](isolated, marker)
    project, home = fingerprint(isolated, ("discussions",)), fingerprint(Path.home(), STATE)
    branches = git_state(isolated)
    r = turn("copilot")
    assert r.exit_code == 0, r.output
    assert recorded(isolated)[1] == CANNED
    assert fingerprint(isolated, ("discussions",)) == project
    assert fingerprint(Path.home(), STATE) == home
    assert git_state(isolated) == branches and not marker.exists()


def test_a_hostile_repository_runs_nothing(stub: StubModel, isolated: Path, tmp_path: Path) -> None:
    """Its MCP servers and hooks never run, during a turn or an apply; no tracked file is
    rewritten (the folder is not trusted: no `--trust-folder`)."""
    marks = tmp_path / "marks"
    marks.mkdir()
    make_project(isolated, "copilot", hostile(marks))
    r = turn("copilot")
    assert r.exit_code == 0, r.output
    stub.tool = ToolCall("edit", {"path": "app.py", "old_str": "1", "new_str": "3"})
    r = invoke("apply", DECIDED, "--yes", "--lead", "lead", "--json")
    assert r.exit_code in (0, 1), r.output
    assert list(marks.iterdir()) == []
    assert git(isolated, "status", "--porcelain", "--", ".", ":!discussions") == ""


def test_a_model_error_reaches_the_user(stub: StubModel, isolated: Path) -> None:
    """copilot exits 1 and says why in a `session.error` event on stdout (stderr is empty):
    that reason is shown and recorded."""
    make_project(isolated, "copilot")
    stub.error = (400, "the stub model refuses this request")
    r = turn("copilot")
    assert r.exit_code == 1
    assert "the stub model refuses this request" in r.output
    assert "the stub model refuses this request" in (isolated / "discussions/open.md").read_text()


# -- the write preset leads an apply ----------------------------------------------------------


def apply_with(stub: StubModel, tool: ToolCall) -> dict[str, object]:
    stub.tool = tool
    r = invoke("apply", DECIDED, "--yes", "--lead", "lead", "--json")
    assert r.exit_code in (0, 1), r.output
    return printed(r)["apply"]  # type: ignore[return-value]


def test_an_apply_edits_the_working_copy(stub: StubModel, isolated: Path) -> None:
    make_project(isolated, "copilot")
    record = apply_with(stub, ToolCall("edit", {"path": "app.py", "old_str": "1", "new_str": "3"}))
    assert record["result"] == "committed", record
    assert "return 3" in git(isolated, "show", f"{record['commit']}:app.py")
    assert (isolated / "app.py").read_text() == "def retry():\n    return 1\n"


@pytest.mark.parametrize("kind", ["shell", "outside", "temp dir"])
def test_an_apply_refuses_a_command_and_a_write_outside(
    kind: str, stub: StubModel, isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No command; no write outside the worktree, the temp dir included (it was written
    without asking before `--disallow-temp-dir`)."""
    marker, outside = tmp_path / "ran", tmp_path / "outside.txt"
    scratch = tmp_path / "tmp"  # the system temporary directory, as copilot sees it
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    tool = {
        "shell": ToolCall("bash", {"command": f"touch {marker}", "description": "touch"}),
        "outside": ToolCall("create", {"path": str(outside), "file_text": "x"}),
        "temp dir": ToolCall("create", {"path": str(scratch / "pwned.txt"), "file_text": "x"}),
    }[kind]
    make_project(isolated, "copilot")
    if kind == "temp dir":
        without_our_sandbox(isolated)  # so `--disallow-temp-dir` alone must refuse it
    home = fingerprint(Path.home(), STATE)
    record = apply_with(stub, tool)
    assert not marker.exists() and not outside.exists()
    assert not (scratch / "pwned.txt").exists()  # (node keeps its compile cache there)
    assert fingerprint(Path.home(), STATE) == home
    assert record["result"] in ("unchanged", "committed", "failed"), record
