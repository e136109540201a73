"""Claude Code, the real binary, with the `claude` preset exactly as shipped, against the stub
model speaking the Anthropic Messages API (`anthropic`), in the hostile repository (`hostile`).

Claude Code is pointed at the stub through its environment: ``ANTHROPIC_BASE_URL`` and
``ANTHROPIC_API_KEY`` (code.claude.com/docs/en/env-vars); its user state goes to the test's
HOME. Every call is short: the stub answers at once, and each command gets a short timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import hostile
from .anthropic import ROUTES, offered
from .common import (
    fingerprint,
    git,
    invoke,
    keeping,
    last_comment,
    meta_field,
)
from .hostile import (
    DECIDED,
    OPEN,
    apply,
    changed,
    git_state,
    hostile_repository,
    touch,
)
from .stub import CANNED, StubModel, ToolCall

HOME_STATE = (".claude", ".claude.json", ".cache")
"""What Claude Code keeps in HOME (its settings, sessions and caches) and the apply worktrees:
left out of the HOME snapshot; anything else it writes there is a failure."""


@pytest.fixture
def stub(
    real_cli, isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[StubModel]:
    """The stub model, Claude Code pointed at it, the hostile repository as the project."""
    real_cli("claude")
    for name in list(os.environ):
        if name.startswith(("ANTHROPIC_", "CLAUDE")):
            monkeypatch.delenv(name)
    hostile_repository(isolated, tmp_path / "markers")
    with StubModel.running(ROUTES) as model:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", model.url())
        monkeypatch.setenv("ANTHROPIC_API_KEY", "stub-key")
        yield model


def model_calls(stub: StubModel) -> list[dict[str, object]]:
    return [r.body for r in stub.model_requests(r"^/v1/messages(\?|$)")]


def ran(tmp_path: Path) -> list[str]:
    return hostile.ran(tmp_path / "markers")


def turn() -> dict[str, object]:
    return hostile.turn("claude", "--timeout", "60")


def test_the_hostile_repository_runs_its_commands_without_the_presets_isolation(
    stub: StubModel, tmp_path: Path
) -> None:
    """The control: plain `claude -p` in the hostile repository runs its hooks and its MCP
    server (the folder trust dialog is skipped in -p), so the fixture can catch a preset that
    loads the project's configuration."""
    env = {k: v for k, v in os.environ.items() if k != "CLAUDECODE"}
    subprocess.run(
        ["claude", "-p", "--output-format", "json", "--no-session-persistence"],
        input=b"Please review the proposal.",
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert "claude-mcp" in ran(tmp_path) and "claude-hook-UserPromptSubmit" in ran(tmp_path)


def test_providers_test_answers_through_the_preset(stub: StubModel, tmp_path: Path) -> None:
    r = invoke("providers", "test", "claude", "--timeout", "60", "--json")
    assert r.exit_code == 0, r.output
    assert CANNED in json.loads(r.output[r.output.index("{") :])["answer"]
    assert ran(tmp_path) == []


def test_a_turn_records_the_answer_byte_for_byte_and_the_usage_of_every_call(
    stub: StubModel, isolated: Path, tmp_path: Path
) -> None:
    """The comment is the model's text, nothing else; the tokens are those of every model
    call the CLI made, and the CLI makes no hidden call (its session-title call resent the
    whole prompt, and its tokens were in the cost but not in the counts)."""
    turn()
    meta, body = last_comment(isolated / OPEN)
    assert body == CANNED
    calls = model_calls(stub)
    assert all(offered(c) for c in calls), "a call without tools: a hidden side call"
    n = len(calls)
    sent = json.dumps(model_calls(stub))
    assert "claude-md" not in sent and "agents-md" not in sent, "the repository's instructions"
    assert meta_field(meta, "tokens") == f"{1200 * n} in / {34 * n} out"
    assert meta_field(meta, "cost").startswith("$")
    assert meta_field(meta, "model").startswith("claude-")  # the one model of `modelUsage`
    assert ran(tmp_path) == []


def test_only_the_reading_tools_are_offered(stub: StubModel) -> None:
    """An allow list: a deny list left EnterWorktree, CronCreate, Skill, Workflow... open."""
    turn()
    assert {tuple(sorted(offered(c))) for c in model_calls(stub)} == {("Glob", "Grep", "Read")}


def test_the_cli_keeps_no_copy_of_the_discussion(stub: StubModel) -> None:
    """No session saved: nothing in the CLI's own folders holds the prompt afterwards."""
    turn()
    for name in (".claude", ".claude.json"):
        assert keeping(Path.home() / name, hostile.CONTEXT) == []


PROBES = {
    "write": ToolCall("Write", {"file_path": "{cwd}/probe-written.txt", "content": "probe\n"}),
    "edit": ToolCall(
        "Edit", {"file_path": "{cwd}/app.py", "old_string": "while True", "new_string": "if 0"}
    ),
    "shell": ToolCall("Bash", {"command": "{shell}", "description": "probe"}),
    "worktree": ToolCall("EnterWorktree", {"name": "probe"}),
    "web fetch": ToolCall("WebFetch", {"url": "{fetch}", "prompt": "Summarise the page."}),
    "notebook": ToolCall(
        "NotebookEdit",
        {"notebook_path": "{cwd}/probe.ipynb", "new_source": "1", "edit_mode": "insert"},
    ),
}


def _probe(stub: StubModel, tmp_path: Path, kind: str) -> ToolCall:
    call = PROBES[kind]
    fill = {
        "{shell}": touch(tmp_path / "markers", "probe-shell"),
        "{fetch}": stub.url("/probe-fetch"),
    }
    args = {k: fill.get(v, v) if isinstance(v, str) else v for k, v in call.arguments.items()}
    return ToolCall(call.name, args)


@pytest.mark.parametrize("kind", sorted(PROBES))
def test_a_read_only_turn_refuses_every_tool_that_acts(
    stub: StubModel, isolated: Path, tmp_path: Path, kind: str
) -> None:
    """The model calls the tool; nothing is written in the project (its git folder included)
    or HOME, no command runs, no worktree or branch appears, nothing is fetched; the CLI
    answers the call with a refusal and the comment is still the model's text."""
    stub.tool = _probe(stub, tmp_path, kind)
    home = Path.home()
    project, user, repo = fingerprint(isolated), fingerprint(home, HOME_STATE), git_state(isolated)
    turn()
    assert changed(project, fingerprint(isolated)) == [OPEN]
    assert changed(user, fingerprint(home, HOME_STATE)) == []
    assert {k: v for k, v in git_state(isolated).items() if k != "status"} == {
        k: v for k, v in repo.items() if k != "status"
    }
    assert ran(tmp_path) == []
    assert stub.model_requests(r"^/probe-fetch") == []
    assert "tool_result" in json.dumps(model_calls(stub)[-1]["messages"]), "probe not answered"
    assert last_comment(isolated / OPEN)[1] == CANNED


def test_a_read_only_turn_reads_nothing_outside_the_project(
    stub: StubModel, isolated: Path
) -> None:
    """Read outside the working directory needs an approval that -p cannot give: a file in
    HOME never reaches the model (a file of the project does: the control)."""
    secret = Path.home() / "secret.txt"
    secret.write_text("the-secret-4711\n", encoding="utf-8")
    stub.tool = ToolCall("Read", {"file_path": str(isolated / "app.py")})
    turn()
    assert "while True" in json.dumps(model_calls(stub)[-1]["messages"])
    stub.requests.clear()
    stub.tool = ToolCall("Read", {"file_path": str(secret)})
    turn()
    assert "tool_result" in json.dumps(model_calls(stub)[-1]["messages"]), "probe not answered"
    assert "the-secret-4711" not in json.dumps(model_calls(stub))


@pytest.mark.parametrize("status", [500, 400])
def test_a_server_error_reaches_the_user_with_its_reason(
    stub: StubModel, isolated: Path, tmp_path: Path, status: int
) -> None:
    """Claude Code retried a 500 ten times with a growing back-off, past any turn timeout,
    and a 400's reason was on stdout, not stderr: the user saw "timed out" or nothing."""
    stub.error = (status, "the stub model is down for maintenance")
    r = invoke("turn", OPEN, "@architect", "--provider", "claude", "--timeout", "40")
    assert "the stub model is down for maintenance" in r.output, r.output
    assert "timed out" not in r.output
    assert ran(tmp_path) == []


# -- apply: the write mode ----------------------------------------------------------------


@pytest.fixture
def leads(stub: StubModel, isolated: Path) -> StubModel:
    """The council's providers are the claude preset (so the lead's write mode is claude's)."""
    hostile.lead_with(isolated, "claude")
    return stub


def test_apply_lands_the_leads_edit_on_its_branch(
    leads: StubModel, isolated: Path, tmp_path: Path
) -> None:
    leads.tool = ToolCall("Write", {"file_path": "{cwd}/retries.py", "content": "RETRIES = 3\n"})
    before = fingerprint(isolated, (".git",))
    record = apply()
    assert record["result"] == "committed", json.dumps(record, indent=1)
    assert git(isolated, "show", f"{record['commit']}:retries.py").strip() == "RETRIES = 3"
    assert len(record["files"]) == 1, record["files"]  # nothing else, no config rewritten
    assert changed(before, fingerprint(isolated, (".git",))) == [DECIDED]  # its APPLY record
    assert ran(tmp_path) == []
    # The APPLY block shows what the lead said last (its stdout), not its stderr.
    said = (isolated / DECIDED).read_text(encoding="utf-8").rpartition(" said:")[2]
    assert CANNED.splitlines()[0] in said, said


@pytest.mark.parametrize(
    "call",
    [
        ToolCall("Bash", {"command": "{shell}", "description": "probe"}),
        ToolCall("Write", {"file_path": "{cwd}/../outside.txt", "content": "probe\n"}),
        ToolCall("Write", {"file_path": "{home}/outside.txt", "content": "probe\n"}),
        ToolCall("WebFetch", {"url": "{fetch}", "prompt": "Summarise the page."}),
    ],
    ids=["shell", "write beside the worktree", "write in HOME", "web fetch"],
)
def test_apply_refuses_commands_and_writes_outside_the_worktree(
    leads: StubModel, isolated: Path, tmp_path: Path, call: ToolCall
) -> None:
    fill = {
        "{shell}": touch(tmp_path / "markers", "probe-shell"),
        "{fetch}": leads.url("/probe-fetch"),
        "{home}/outside.txt": str(Path.home() / "outside.txt"),
    }
    leads.tool = ToolCall(call.name, {k: fill.get(v, v) for k, v in call.arguments.items()})
    user = fingerprint(Path.home(), HOME_STATE)
    record = apply()
    assert record["result"] == "unchanged", record
    assert ran(tmp_path) == []
    assert changed(user, fingerprint(Path.home(), HOME_STATE)) == []
    assert not list(Path.home().joinpath(".cache").rglob("outside.txt"))
    assert leads.model_requests(r"^/probe-fetch") == []
