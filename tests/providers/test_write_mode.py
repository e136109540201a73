"""Write modes: `write_command` in presets and providers.yaml, covered by trust like `command`."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.errors import ConfigError
from discussions.providers import ProviderRegistry
from discussions.providers.presets import PRESETS
from discussions.providers.specs import read_specs

from ..conftest import write

PY = shlex.quote(sys.executable)


def test_presets_with_a_documented_write_mode() -> None:
    writers = {n for n, p in PRESETS.items() if p.can_write}
    assert writers == {
        "claude",
        "claude-sonnet",
        "claude-haiku",
        "claude-opus",
        "codex",
        "gemini",
        "gemini-flash",
        "gemini-pro",
        "copilot",
        "cursor-agent",
        "opencode",
        "opencode-deepseek",
    }
    assert "--permission-mode acceptEdits" in (PRESETS["claude"].write_command or "")
    assert "--sandbox workspace-write" in (PRESETS["codex"].write_command or "")
    # a read command never gains write flags
    assert "acceptEdits" not in (PRESETS["claude"].command or "")
    assert (PRESETS["copilot"].write_command or "").endswith(" -p")  # the prompt follows -p


def test_no_write_preset_lifts_every_approval() -> None:
    """Each write mode approves edits, not shell commands or web fetches: no flag that runs
    every action (cursor's --force/--yolo, agy's --dangerously-skip-permissions, opencode's
    --auto), and the CLIs whose edit mode also approves web fetches (gemini auto_edit, qwen
    auto-edit) do not use that mode: gemini allows its two edit tools in a policy file, qwen
    has none; opencode's denies every other tool in its config (test_provider_env)."""
    lifting = {"--force", "-f", "--yolo", "--dangerously-skip-permissions", "--auto", "yolo"}
    for name, spec in PRESETS.items():
        words = set(shlex.split(spec.write_command or ""))
        assert not words & lifting, (name, spec.write_command)
    for family in ("qwen", "agy"):
        assert not any(p.can_write for n, p in PRESETS.items() if n.startswith(family)), family
    gemini = shlex.split(PRESETS["gemini"].write_command or "")
    assert "auto_edit" not in gemini and "yolo" not in gemini
    assert gemini[gemini.index("--approval-mode") + 1] == "default"
    assert "--allowed-tools" not in gemini and "--skip-trust" in gemini  # a policy instead
    policy = Path(gemini[gemini.index("--policy") + 1])
    assert policy.name == "gemini-write.toml" and policy.is_file()
    cursor = shlex.split(PRESETS["cursor-agent"].write_command or "")
    assert cursor[:2] == ["cursor-agent", "-p"] and "--mode" not in cursor
    assert "--sandbox" in cursor and cursor[cursor.index("--sandbox") + 1] == "disabled"
    copilot = PRESETS["copilot"].write_command or ""
    assert "--deny-tool=shell" in copilot and "--allow-all" not in copilot


def test_the_mock_cannot_write(isolated: Path) -> None:
    reg = ProviderRegistry.load(isolated)
    assert not reg.specs["mock"].can_write and not reg.can_write("mock")


def test_providers_yaml_write_command(isolated: Path, userdir: Path) -> None:
    path = write(
        userdir / "providers.yaml",
        f"""
        providers:
          - name: local
            command: {PY} -c pass
            write_command: {PY} -c "print(1)"
          - name: reader
            command: {PY} -c pass
        """,
    )
    specs = {s.name: s for s in read_specs(path, "user")}
    assert specs["local"].write_command == f'{PY} -c "print(1)"'
    assert specs["local"].can_write and not specs["reader"].can_write
    reg = ProviderRegistry.load(isolated)
    assert reg.can_write("local") and not reg.can_write("reader")


def test_a_write_command_whose_executable_is_missing_cannot_write(
    isolated: Path, userdir: Path
) -> None:
    write(
        userdir / "providers.yaml",
        f"providers:\n  - name: w\n    command: {PY} -c pass\n"
        "    write_command: no-such-ai-cli --edit\n",
    )
    reg = ProviderRegistry.load(isolated)
    assert reg.specs["w"].can_write and not reg.can_write("w")


def test_write_command_must_be_text(isolated: Path, userdir: Path) -> None:
    path = write(
        userdir / "providers.yaml",
        f"providers:\n  - name: w\n    command: {PY} -c pass\n    write_command: [1, 2]\n",
    )
    with pytest.raises(ConfigError, match="write_command"):
        read_specs(path, "user")


def _trust() -> None:
    r = CliRunner().invoke(cli, ["trust", "--yes"])
    assert r.exit_code == 0, r.output


def test_trust_covers_the_write_command_and_the_script_it_names(isolated: Path) -> None:
    write(isolated / "tools/lead.py", "print('edit')\n")
    pf = write(
        isolated / "providers.yaml",
        f"providers:\n  - name: local\n    command: {PY} -c pass\n"
        f"    write_command: {PY} tools/lead.py\n",
    )
    assert "local" not in ProviderRegistry.load(isolated).specs  # not trusted yet
    r = CliRunner().invoke(cli, ["trust", "--yes"])
    assert r.exit_code == 0 and "tools/lead.py" in r.output, r.output
    assert ProviderRegistry.load(isolated).specs["local"].can_write

    # the script the write command runs changes: trust again
    write(isolated / "tools/lead.py", "import os; os.system('touch pwned')\n")
    reg = ProviderRegistry.load(isolated)
    assert "local" not in reg.specs and "tools/lead.py" in reg.untrusted_reason
    _trust()

    # the write command itself changes: trust again
    pf.write_text(pf.read_text().replace("tools/lead.py", "tools/lead.py --all"))
    reg = ProviderRegistry.load(isolated)
    assert "local" not in reg.specs and "providers.yaml" in reg.untrusted_reason
    _trust()
    assert ProviderRegistry.load(isolated).specs["local"].write_command == (
        f"{PY} tools/lead.py --all"
    )


def test_the_trust_prompt_shows_the_write_command(isolated: Path) -> None:
    write(
        isolated / "providers.yaml",
        f"providers:\n  - name: local\n    command: {PY} -c pass\n"
        f"    write_command: {PY} tools/lead.py --edit\n"
        f"  - name: reader\n    command: {PY} -c pass\n",
    )
    r = CliRunner().invoke(cli, ["trust"], input="n\n")
    assert r.exit_code != 0  # refused: nothing trusted
    lines = r.output.splitlines()
    at = lines.index(f"  local: {PY} -c pass")
    assert lines[at + 1] == f"    write: {PY} tools/lead.py --edit"
    assert "write:" not in lines[lines.index(f"  reader: {PY} -c pass") + 1]
    assert "local" not in ProviderRegistry.load(isolated).specs
    # what trust leaves out: the agent configuration a CLI reads from the repository
    assert ".gemini/" in r.output and ".cursor/cli.json" in r.output


def test_providers_show_gives_the_write_command_of_an_untrusted_entry(isolated: Path) -> None:
    write(
        isolated / "providers.yaml",
        f"providers:\n  - name: local\n    command: {PY} -c pass\n"
        f"    write_command: {PY} tools/lead.py --edit\n",
    )
    r = CliRunner().invoke(cli, ["providers", "show", "local"])
    assert r.exit_code == 0, r.output
    assert f"Write mode: {PY} tools/lead.py --edit" in r.output
