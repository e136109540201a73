"""`discussions --help` lists every command with its short help, from the registry of lazily
loaded commands, and every command's own `--help` works."""

from __future__ import annotations

import os
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from discussions.cli import LAZY_COMMANDS, cli


def _help_rows(text: str) -> dict[str, str]:
    """The ``name  short help`` rows of the Commands section of a help page."""
    section = text.split("Commands:\n", 1)[1]
    rows = {}
    for line in section.splitlines():
        if line.startswith("  ") and not line.startswith("   "):
            name, _, short = line.strip().partition(" ")
            rows[name] = short.strip()
    return rows


def test_root_help_lists_every_command_with_its_short_help() -> None:
    r = CliRunner().invoke(cli, ["--help"], prog_name="discussions")
    assert r.exit_code == 0, r.output
    rows = _help_rows(r.output)
    assert sorted(rows) == sorted(LAZY_COMMANDS)
    for name, (_, short) in LAZY_COMMANDS.items():
        shown = rows[name]
        assert shown, name
        assert short.startswith(shown.removesuffix("...")), (name, shown)


@pytest.mark.parametrize("name", sorted(LAZY_COMMANDS))
def test_registry_short_help_is_the_commands_own(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    assert LAZY_COMMANDS[name][1] == command.get_short_help_str(10_000)


@pytest.mark.parametrize("name", sorted(LAZY_COMMANDS))
def test_every_command_help_works(name: str) -> None:
    r = CliRunner().invoke(cli, [name, "--help"], prog_name="discussions")
    assert r.exit_code == 0, r.output
    assert r.output.startswith(f"Usage: discussions {name}"), r.output
    command = cli.get_command(click.Context(cli), name)
    if isinstance(command, click.Group):
        for sub in command.list_commands(click.Context(command)):
            r = CliRunner().invoke(cli, [name, sub, "--help"], prog_name="discussions")
            assert r.exit_code == 0, r.output
            assert r.output.startswith(f"Usage: discussions {name} {sub}"), r.output


def test_root_help_loads_no_command_module() -> None:
    """Listing the commands reads the registry: no command's module is imported."""
    probe = (
        "import sys\n"
        "from discussions.cli import cli\n"
        "try:\n"
        "    cli(['--help'], prog_name='discussions')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('discussions.cli.')))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    r = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    loaded = r.stdout.strip().splitlines()[-1]
    assert loaded == "[]", loaded


def _help_text(*args: str) -> str:
    r = CliRunner().invoke(cli, [*args, "--help"], prog_name="discussions")
    assert r.exit_code == 0, r.output
    return " ".join(r.output.split())


@pytest.mark.slow
def test_mcp_help_names_every_tool_the_server_has() -> None:
    import asyncio

    from discussions.mcp.server import build_server

    tools = [t.name for t in asyncio.run(build_server().list_tools())]
    shown = _help_text("mcp").split("Tools: ", 1)[1].split(". ", 1)[0]
    assert sorted(shown.split(", ")) == sorted(tools)


def test_providers_help_names_the_detection_order_and_its_presets() -> None:
    from discussions.providers.presets import DETECT_ORDER

    text = _help_text("providers")
    assert f"in this order: {', '.join(DETECT_ORDER)} " in text
    presets = text.split("built-in presets (", 1)[1].split(")", 1)[0]
    assert set(DETECT_ORDER) <= set(presets.split(", "))
