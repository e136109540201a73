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
from discussions.providers.registry import read_specs

from ..conftest import write

PY = shlex.quote(sys.executable)


def test_presets_with_a_documented_write_mode() -> None:
    writers = {n for n, p in PRESETS.items() if p.can_write}
    assert {"claude", "claude-sonnet", "codex", "gemini", "qwen", "copilot"} <= writers
    assert {"llm", "ollama"}.isdisjoint(writers)
    assert "--permission-mode acceptEdits" in (PRESETS["claude"].write_command or "")
    assert "--sandbox workspace-write" in (PRESETS["codex"].write_command or "")
    assert "--approval-mode auto-edit" in (PRESETS["qwen"].write_command or "")
    assert "--approval-mode auto_edit" in (PRESETS["gemini"].write_command or "")
    # a read command never gains write flags
    assert "acceptEdits" not in (PRESETS["claude"].command or "")
    assert (PRESETS["copilot"].write_command or "").endswith(" -p")  # the prompt follows -p


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
