"""The Codex CLI, the real binary, with the `codex` preset exactly as shipped, against the stub
model speaking the OpenAI Responses API (`responses`), in the hostile repository (`hostile`).

Codex is pointed at the stub through the user's own config, ``~/.codex/config.toml`` in the
test's HOME: a model provider with ``base_url``, ``env_key`` and ``wire_api = "responses"``
(developers.openai.com/codex/config-advanced, "Custom model providers").

Codex's only tool that acts is ``exec_command`` (a shell command; file edits go through it
too, as ``apply_patch``), and its sandbox runs it: in read-only mode the command runs with the
whole file system read-only and no network; in write mode only the working directory (and,
unless told otherwise, /tmp and $TMPDIR) is writable. So each probe is a shell command whose
effect must not happen.

TMPDIR is a folder of the test's own outside HOME: codex will not install its sandbox helper
under the temp folder, and without the helper the sandbox cannot start (the test HOME is
itself under /tmp).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from discussions.providers.presets import PRESETS

from . import hostile
from .anthropic import NARRATION
from .common import (
    fingerprint,
    git,
    invoke,
    keeping,
    last_comment,
    meta_field,
    printed,
    without_our_sandbox,
)
from .hostile import (
    DECIDED,
    OPEN,
    apply,
    changed,
    git_state,
    touch,
)
from .responses import ROUTES
from .stub import CANNED, StubModel, ToolCall

HOME_STATE = (".codex", ".cache")
"""What Codex keeps in HOME (config, sessions, logs) and the apply worktrees: left out of the
HOME snapshot; anything else it writes there is a failure."""


def user_config(home: Path, url: str, extra: str = "") -> None:
    """The user's codex config: the stub as the model provider."""
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    (home / ".codex" / "config.toml").write_text(
        'model = "m"\nmodel_provider = "stub"\n\n[model_providers.stub]\nname = "stub"\n'
        f'base_url = "{url}"\nenv_key = "STUB_API_KEY"\nwire_api = "responses"\n{extra}',
        encoding="utf-8",
    )


@pytest.fixture
def stub(
    real_cli, isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[StubModel]:
    """The stub model, codex pointed at it, the hostile repository as the project."""
    real_cli("codex")
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "CODEX_")):
            monkeypatch.delenv(name)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    hostile.hostile_repository(isolated, tmp_path / "markers")
    with StubModel.running(ROUTES) as model:
        user_config(Path.home(), model.url("/v1"))
        monkeypatch.setenv("STUB_API_KEY", "stub-key")
        yield model


def model_calls(stub: StubModel) -> list[dict[str, object]]:
    return [r.body for r in stub.model_requests(r"^/v1/responses$")]


def ran(tmp_path: Path) -> list[str]:
    return hostile.ran(tmp_path / "markers")


def turn() -> dict[str, object]:
    return hostile.turn("codex", "--timeout", "60")


def shell(command: str) -> ToolCall:
    return ToolCall("exec_command", {"cmd": command})


def test_the_hostile_repository_runs_its_commands_once_the_project_is_trusted(
    stub: StubModel, tmp_path: Path
) -> None:
    """The control: with the project trusted (`--trust`, which codex saves in the user's
    config) codex loads its .codex/config.toml and starts the MCP server there, so the
    fixture can catch a preset that loads the project's configuration."""
    subprocess.run(
        ["codex", "exec", "-", "--json", "--trust", "--skip-git-repo-check", "--ephemeral"],
        input=b"Please review the proposal.",
        capture_output=True,
        timeout=60,
    )
    assert "codex-mcp" in ran(tmp_path)


@pytest.mark.xfail(
    strict=True,
    reason="codex 0.171 loads a trusted project's .codex/config.toml and no -c override "
    "(mcp_servers={} included) removes its MCP servers: docs/providers.md says so",
)
def test_a_project_trusted_in_codex_still_starts_no_server_of_its_own(
    stub: StubModel, tmp_path: Path, isolated: Path
) -> None:
    """Once you trusted the repository in codex, codex loads its .codex/config.toml (the
    control above). Known to fail (strict: a codex that stops it makes this pass, and the
    note in docs/providers.md is then to be updated)."""
    subprocess.run(
        ["codex", "exec", "-", "--json", "--trust", "--skip-git-repo-check", "--ephemeral"],
        input=b"Please review the proposal.",
        capture_output=True,
        timeout=60,
    )
    for marker in (tmp_path / "markers").iterdir():
        marker.unlink()
    turn()
    assert ran(tmp_path) == []
    assert last_comment(isolated / OPEN)[1] == CANNED


def test_providers_test_answers_through_the_preset(stub: StubModel, tmp_path: Path) -> None:
    r = invoke("providers", "test", "codex", "--timeout", "60", "--json")
    assert r.exit_code == 0, r.output
    assert printed(r)["answer"] == CANNED
    assert ran(tmp_path) == []


def test_a_turn_records_the_answer_byte_for_byte_and_its_tokens(
    stub: StubModel, isolated: Path, tmp_path: Path
) -> None:
    turn()
    meta, body = last_comment(isolated / OPEN)
    assert body == CANNED
    n = len(model_calls(stub))
    assert n == 1
    sent = json.dumps(model_calls(stub))
    assert "claude-md" not in sent and "agents-md" not in sent, "the repository's instructions"
    assert meta_field(meta, "tokens") == "1200 in / 34 out"
    assert meta_field(meta, "cost") == "unknown"  # codex reports no cost
    assert ran(tmp_path) == []


def test_the_cli_keeps_no_copy_of_the_discussion(stub: StubModel) -> None:
    """No session saved (`--ephemeral`): nothing in ~/.codex holds the prompt afterwards (its
    sessions folder and history database did)."""
    turn()
    assert keeping(Path.home() / ".codex", hostile.CONTEXT) == []


PATCH = (
    "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: app.py\n@@\n-def fetch():\n"
    "+def fetched():\n*** End Patch\nEOF"
)
PROBES = {
    "write": "echo probe > probe-written.txt",
    "write in HOME": "echo probe > ~/probe-written.txt",
    "edit": PATCH,
    "shell": "{marker}",
    "worktree": "git worktree add -b probe ../probe-worktree",
    "web fetch": "python3 -c \"import urllib.request as u; u.urlopen('{fetch}', timeout=5)\"",
}


@pytest.mark.parametrize("kind", sorted(PROBES))
def test_a_read_only_turn_refuses_every_effect_of_a_command(
    stub: StubModel, isolated: Path, tmp_path: Path, kind: str
) -> None:
    """The command runs in codex's read-only sandbox: nothing is written in the project (its
    git folder included) or HOME, the marker is not touched, no worktree or branch appears,
    nothing is fetched; and the comment is the final answer, not the narration before the
    tool call."""
    command = PROBES[kind].replace("{marker}", touch(tmp_path / "markers", "probe-shell"))
    stub.tool = shell(command.replace("{fetch}", stub.url("/probe-fetch")))
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
    assert "function_call_output" in json.dumps(model_calls(stub)[-1]["input"]), "not answered"
    assert last_comment(isolated / OPEN)[1] == CANNED, "narration kept: " + NARRATION


def test_a_rejected_request_reaches_the_user_with_its_reason(
    stub: StubModel, tmp_path: Path
) -> None:
    """codex prints the reason as a turn.failed line on stdout; stderr has only warnings."""
    stub.error = (400, "the stub model is down for maintenance")
    r = invoke("turn", OPEN, "@architect", "--provider", "codex", "--timeout", "60")
    assert "the stub model is down for maintenance" in r.output, r.output
    assert ran(tmp_path) == []


def test_a_server_error_reaches_the_user_with_codexs_reason(
    stub: StubModel, isolated: Path
) -> None:
    """On a 500 codex retries (the user's provider settings say how often: not at all here),
    then reports its own reason in the turn.failed line on stdout: that reason is the one the
    user sees (stderr's last line is a warning about the project's configuration)."""
    user_config(Path.home(), stub.url("/v1"), "request_max_retries = 0\nstream_max_retries = 0\n")
    stub.error = (500, "the stub model is down for maintenance")
    r = invoke("turn", OPEN, "@architect", "--provider", "codex", "--timeout", "60")
    argv = shlex.split(PRESETS["codex"].command or "")
    direct = subprocess.run(argv, input="hi", capture_output=True, text=True, timeout=60)
    failed = [json.loads(x) for x in direct.stdout.splitlines() if '"turn.failed"' in x]
    assert failed and direct.returncode != 0, direct.stdout
    assert failed[-1]["error"]["message"] in r.output, r.output


# -- apply: the write mode ----------------------------------------------------------------


@pytest.fixture
def leads(stub: StubModel, isolated: Path) -> StubModel:
    """The council's providers are the codex preset (so the lead's write mode is codex's)."""
    hostile.lead_with(isolated, "codex")
    return stub


def test_apply_lands_the_leads_edit_on_its_branch(
    leads: StubModel, isolated: Path, tmp_path: Path
) -> None:
    leads.tool = shell("printf 'RETRIES = 3\\n' > retries.py")
    before = fingerprint(isolated, (".git",))
    record = apply()
    assert record["result"] == "committed", json.dumps(record, indent=1)
    assert git(isolated, "show", f"{record['commit']}:retries.py").strip() == "RETRIES = 3"
    assert len(record["files"]) == 1, record["files"]  # nothing else, no config rewritten
    after = fingerprint(isolated, (".git",))
    assert changed(before, after) == [hostile.DECIDED]  # its APPLY record
    assert ran(tmp_path) == []
    # The APPLY block shows what the lead said last (its stdout), not its stderr.
    said = (isolated / DECIDED).read_text(encoding="utf-8").rpartition(" said:")[2]
    assert CANNED.splitlines()[0] in said, said


OUTSIDE = {
    "shell outside": "{marker}",
    "beside the worktree": "echo probe > ../outside.txt",
    "in HOME": "echo probe > ~/outside.txt",
    "in TMPDIR": 'echo probe > "$TMPDIR/outside.txt"',
    "in /tmp": "echo probe > /tmp/discussions-realcli-outside-{pid}.txt",
    "web fetch": "python3 -c \"import urllib.request as u; u.urlopen('{fetch}', timeout=5)\"",
}


@pytest.mark.parametrize("kind", sorted(OUTSIDE))
def test_apply_keeps_the_lead_inside_its_worktree(
    leads: StubModel, isolated: Path, tmp_path: Path, kind: str
) -> None:
    """The lead's commands run in the sandbox, which lets them write the worktree only: not
    beside it, not HOME, not the temp folders (writable by default in workspace-write; those
    two probes without the engine's own sandbox, `without_our_sandbox`)."""
    slash_tmp = Path(f"/tmp/discussions-realcli-outside-{os.getpid()}.txt")
    fill = {
        "{marker}": touch(tmp_path / "markers", "probe-shell"),
        "{fetch}": leads.url("/probe-fetch"),
        "{pid}": str(os.getpid()),
    }
    command = OUTSIDE[kind]
    for key, value in fill.items():
        command = command.replace(key, value)
    if kind in ("in /tmp", "in TMPDIR"):
        without_our_sandbox(isolated)
    leads.tool = shell(command)
    user = fingerprint(Path.home(), HOME_STATE)
    try:
        record = apply()
        assert record["result"] == "unchanged", json.dumps(record, indent=1)
        assert ran(tmp_path) == []
        assert changed(user, fingerprint(Path.home(), HOME_STATE)) == []
        assert not list(Path.home().joinpath(".cache").rglob("outside.txt"))
        assert not (tmp_path / "tmp" / "outside.txt").exists()
        assert not slash_tmp.exists()
        assert leads.model_requests(r"^/probe-fetch") == []
    finally:
        slash_tmp.unlink(missing_ok=True)
