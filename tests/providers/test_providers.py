"""Providers as real subprocesses: small scripts that answer, fail, hang, flood, print garbage."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.errors import (
    ProviderFailed,
    ProviderNotFound,
    ProviderOutputError,
    ProviderTimeout,
    UnknownProvider,
    UntrustedProvider,
)
from discussions.providers import CommandProvider, ProviderRegistry, ProviderRequest, ProviderSpec
from discussions.providers.mock import MOCK_BANNER, MockProvider

from ..conftest import script_command, write
from ..support.waiting import wait_dead, wait_pid


def call(command: str, prompt: str = "hello", timeout: float = 10, **spec: object) -> str:
    provider = CommandProvider(ProviderSpec(name="t", command=command, **spec))  # type: ignore[arg-type]
    return provider.complete(ProviderRequest(prompt=prompt, timeout=timeout))


def test_prompt_goes_on_stdin_and_stdout_is_the_answer() -> None:
    assert call(script_command("answer.py", "@echo-prompt"), "x" * 5000) == (
        '{"comment": "PROMPT-LEN 5000"}'
    )


def test_large_prompt_does_not_deadlock() -> None:
    out = call(script_command("answer.py", "@echo-prompt"), "y" * 3_000_000)
    assert "PROMPT-LEN 3000000" in out


def test_env_vars_expanded_and_claudecode_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_MODEL", "sonnet-x")
    monkeypatch.setenv("CLAUDECODE", "1")
    out = call(script_command("env_and_args.py") + " --model $MY_MODEL", env_remove=["CLAUDECODE"])
    assert '\\"argv\\": [\\"--model\\", \\"sonnet-x\\"]' in out
    assert '\\"CLAUDECODE\\": null' in out


def test_missing_executable() -> None:
    with pytest.raises(ProviderNotFound, match="not installed: `no-such-ai-cli` not found on PATH"):
        call("no-such-ai-cli -p")


def test_nonzero_exit_keeps_stderr() -> None:
    with pytest.raises(ProviderFailed) as err:
        call(script_command("fail.py", "3", "quota exceeded for this month\n"))
    assert err.value.reason == "exited with status 3"
    assert err.value.detail == "quota exceeded for this month"


def test_gemini_json_failure_gives_the_apis_reason_not_the_last_lines() -> None:
    """gemini -o json writes its error object, pretty-printed, at the end of stderr and exits
    with the HTTP status (400 -> 144): the reason is the API's message inside it."""
    api = json.dumps({"error": {"code": 400, "message": "key rejected"}})
    result = json.dumps({"session_id": "s", "error": {"type": "Error", "message": api}}, indent=2)
    code = (
        "import sys; sys.stdin.read(); "
        f"sys.stderr.write('ApiError: boom\\n    at x\\n' + {result!r} + '\\n'); sys.exit(144)"
    )
    with pytest.raises(ProviderFailed) as err:
        call(" ".join(shlex.quote(w) for w in (sys.executable, "-c", code)), output="gemini-json")
    assert err.value.reason == "exited with status 144"
    assert err.value.detail == "key rejected (400)"


def test_nonzero_ok_accepts_answer() -> None:
    # gemini may exit non-zero with a good answer
    cmd = script_command("answer.py", "fine") + " ; exit 1"
    provider_cmd = "sh -c 'cat >/dev/null; echo fine; exit 1'"
    assert call(provider_cmd, nonzero_ok=True).strip() == "fine"
    with pytest.raises(ProviderFailed):
        call(provider_cmd)
    assert cmd  # the plain script form is covered above


@pytest.mark.slow
def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    with pytest.raises(ProviderTimeout, match=r"timed out after 1s; process group killed"):
        call(script_command("hang.py", str(pidfile)), timeout=1)
    assert wait_dead(int(pidfile.read_text()))  # the grandchild is gone too


def test_flood_is_stopped_and_discarded() -> None:
    provider = CommandProvider(
        ProviderSpec(name="t", command=script_command("flood.py", "64")), max_output=1024 * 1024
    )
    with pytest.raises(ProviderOutputError, match="output exceeded 1 MiB"):
        provider.complete(ProviderRequest(prompt="p", timeout=30))


def test_non_utf8_output() -> None:
    with pytest.raises(ProviderOutputError, match="not UTF-8"):
        call(script_command("garbage.py"))


def test_empty_output() -> None:
    with pytest.raises(ProviderOutputError, match="empty output"):
        call(script_command("empty.py"))


def test_killed_by_signal() -> None:
    with pytest.raises(ProviderFailed, match="killed by signal SIGTERM"):
        call("sh -c 'cat >/dev/null; kill -TERM $$'")


def test_codex_jsonl_output() -> None:
    assert call(script_command("codex_jsonl.py"), output="codex-jsonl") == (
        '{"comment": "From codex.", "vote": "READY"}'
    )


def test_mock_is_deterministic_persona_aware_and_labelled() -> None:
    req = ProviderRequest(
        prompt="p",
        participant_name="AI-Security",
        participant_alias="security",
        participant_role="Security Specialist",
        concerns=["Is it safe?"],
        wants_vote=True,
    )
    a, b = MockProvider().complete(req), MockProvider().complete(req)
    assert a == b
    assert MOCK_BANNER in a and "Security Specialist" in a and "Is it safe?" in a
    assert '"vote": "READY"' in a or '"vote": "CHANGES"' in a
    req.wants_vote = False  # the mock votes in any phase: votes are recorded in every phase
    assert '"vote": "CHANGES"' in MockProvider().complete(req)
    req.prompt = "You are a background participant and do not vote"
    assert '"vote": null' in MockProvider().complete(req)


def test_presets_cover_the_real_clis() -> None:
    reg = ProviderRegistry.load(None)
    for name in ("claude", "codex", "gemini", "opencode", "llm", "ollama", "mock"):
        assert name in reg.specs
    claude = reg.specs["claude"]
    assert claude.command and claude.command.startswith("claude -p --output-format json")
    assert claude.output == "claude-json"
    for flag in ("--strict-mcp-config", "--setting-sources user", "--no-session-persistence"):
        assert flag in claude.command
    assert "--tools Read,Glob,Grep" in claude.command and claude.env_remove == ["CLAUDECODE"]
    codex = reg.specs["codex"]
    assert (
        codex.command
        == "codex exec - --sandbox read-only --json --color never --skip-git-repo-check "
        "--ephemeral -c project_doc_max_bytes=0"
    )
    assert codex.output == "codex-jsonl"
    gemini = shlex.split(reg.specs["gemini"].command or "")
    assert gemini[:3] == ["gemini", "-p", ""] and "--skip-trust" in gemini
    assert gemini[gemini.index("--approval-mode") + 1] == "plan"
    policy = Path(gemini[gemini.index("--policy") + 1])
    assert policy.name == "gemini-read.toml" and policy.is_file()
    assert gemini[gemini.index("-o") + 1] == "json" and reg.specs["gemini"].output == "gemini-json"
    assert not reg.specs["gemini"].nonzero_ok  # -o json says why it failed


def test_user_and_smarttools_files(providers_file, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(
        tmp_path / "home" / ".smarttools" / "providers.yaml",
        "providers:\n  - name: st-only\n    command: echo st\n    description: from smarttools\n",
    )
    providers_file({"mine": "echo mine"}, mine={"timeout": 5, "output": "text"})
    reg = ProviderRegistry.load(None)
    assert reg.specs["st-only"].source == "smarttools"
    assert reg.specs["mine"].source == "user" and reg.specs["mine"].timeout == 5


def test_bad_providers_file_names_key(providers_file) -> None:  # type: ignore[no-untyped-def]
    path = providers_file({"x": "echo"}, x={"timeout": -1})
    from discussions import ConfigError

    with pytest.raises(
        ConfigError, match=r"key 'providers\[0\].timeout' must be a positive number"
    ):
        ProviderRegistry.load(None)
    assert path.exists()


def test_unknown_provider() -> None:
    with pytest.raises(UnknownProvider, match="no provider of that name"):
        ProviderRegistry.load(None).get("nope")


def test_project_providers_need_trust(isolated: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    write(
        isolated / "providers.yaml",
        f"providers:\n  - name: evil\n    command: touch {marker}\n  - name: mock\n    command: touch {marker}\n",
    )
    reg = ProviderRegistry.load(isolated)
    with pytest.raises(UntrustedProvider, match="discussions trust"):
        reg.get("evil")
    assert isinstance(reg.get("mock"), MockProvider)  # the user's/built-in name wins
    r = CliRunner().invoke(cli, ["trust", "--yes"])
    assert r.exit_code == 0, r.output
    assert "evil: touch" in r.output
    assert ProviderRegistry.load(isolated).specs["evil"].source == "project"
    # Any change to the file needs trusting again.
    with (isolated / "providers.yaml").open("a") as f:
        f.write("  - name: more\n    command: echo\n")
    with pytest.raises(UntrustedProvider):
        ProviderRegistry.load(isolated).get("evil")
    assert not marker.exists()


def test_providers_cli(providers_file) -> None:  # type: ignore[no-untyped-def]
    providers_file({"fake": script_command("answer.py", "hello from fake")})
    r = CliRunner().invoke(cli, ["providers", "list"])
    assert r.exit_code == 0
    line = next(ln for ln in r.output.splitlines() if ln.startswith("fake "))
    assert "installed" in line and "user" in line
    assert (
        next(ln for ln in r.output.splitlines() if ln.startswith("claude ")).split()[1] == "missing"
    )
    r = CliRunner().invoke(cli, ["providers", "test", "fake"])
    assert r.exit_code == 0 and "hello from fake" in r.output and "fake answered in" in r.output
    r = CliRunner().invoke(cli, ["providers", "test", "claude"])
    assert r.exit_code == 1
    assert r.output == "Error: claude: not installed: `claude` not found on PATH\n"


def test_interrupt_kills_running_providers(tmp_path: Path) -> None:
    """terminate_all (used on Ctrl-C) takes down every running provider's process group."""
    import threading

    from discussions.providers.command import terminate_all

    pidfile = tmp_path / "pids"
    errors: list[BaseException] = []

    def run() -> None:
        try:
            call(script_command("hang.py", str(pidfile)), timeout=60)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    wait_pid(pidfile, 5)
    assert terminate_all() == 1
    t.join(timeout=10)
    assert not t.is_alive()
    assert isinstance(errors[0], ProviderFailed) and "SIGKILL" in str(errors[0])
    assert wait_dead(int(pidfile.read_text()))
