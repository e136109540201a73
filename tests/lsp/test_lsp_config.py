"""`discussions lsp --print-config`: each editor's snippet, with this installation's command."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

from click.testing import CliRunner

from discussions.cli import cli
from discussions.lsp.config import server_command


def _print(editor: str) -> str:
    r = CliRunner().invoke(cli, ["lsp", "--print-config", editor])
    assert r.exit_code == 0, r.output
    return r.stdout


def test_the_command_is_absolute_and_starts_the_language_server() -> None:
    command = server_command()
    assert Path(command[0]).is_absolute() and command[-1] == "lsp"
    assert Path(command[0]).parent == Path(sys.executable).parent


def test_helix_gets_a_languages_toml_entry() -> None:
    data = tomllib.loads(_print("helix"))
    server = data["language-server"]["discussions"]
    assert [server["command"], *server["args"]] == server_command()
    assert "discussions" in data["language"][0]["language-servers"]


def test_vscode_gets_the_settings_of_the_extension_in_editors_vscode() -> None:
    data = json.loads(_print("vscode"))
    assert [data["discussions.server.command"], *data["discussions.server.args"]] == (
        server_command()
    )
    manifest = Path(__file__).resolve().parents[2] / "editors" / "vscode" / "package.json"
    known = json.loads(manifest.read_text(encoding="utf-8"))["contributes"]["configuration"]
    assert set(data) <= set(known["properties"])


def test_neovim_gets_a_vim_lsp_start_call() -> None:
    snippet = _print("nvim")
    assert "vim.lsp.start({" in snippet
    assert "cmd = { " + ", ".join(json.dumps(p) for p in server_command()) + " }" in snippet
