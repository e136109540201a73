"""`discussions lsp --print-config`: each editor's snippet, with this installation's command."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

from click.testing import CliRunner

from discussions.cli import cli
from discussions.lsp.config import server_command

from ..documentation import page


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


def test_neovim_gets_the_api_of_each_version_from_0_7() -> None:
    snippet = _print("nvim")
    assert "vim.fs." not in snippet  # Neovim 0.7 has no vim.fs
    for call in ("vim.lsp.start_client(", "vim.lsp.start(", "vim.lsp.config(", "vim.lsp.enable("):
        assert call in snippet
    assert "cmd = { " + ", ".join(json.dumps(p) for p in server_command()) + " }" in snippet


def test_the_readme_shows_the_printed_neovim_snippet() -> None:
    readme = page("editors.md")  # the editors' page of the documentation (it was the README's)
    command = ", ".join(json.dumps(p) for p in server_command())
    generic = _print("nvim").replace(f"{{ {command} }}", '{ "discussions", "lsp" }')
    assert "```lua\n" + generic + "```" in readme
