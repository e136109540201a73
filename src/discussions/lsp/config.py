"""What registers `discussions lsp` with an editor: a snippet with this installation's
absolute command, for Neovim, Helix and VS Code (README, "In the editor"); the VS Code
settings are those of the extension in editors/vscode."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

EDITORS = ("nvim", "helix", "vscode")


def server_command() -> list[str]:
    """The absolute command that starts this installation's language server: the
    `discussions` script beside this interpreter, else the interpreter with `-m discussions`
    (an editor started outside the virtual environment does not have it on its PATH)."""
    script = shutil.which("discussions", path=str(Path(sys.executable).parent))
    if script:
        return [str(Path(script).absolute()), "lsp"]
    return [str(Path(sys.executable).absolute()), "-m", "discussions", "lsp"]


def editor_config(editor: str) -> tuple[str, str]:
    """The snippet for `editor` (one of `EDITORS`), and where it goes."""
    command = server_command()
    if editor == "nvim":
        cmd = "{ " + ", ".join(json.dumps(part) for part in command) + " }"
        return (
            'vim.api.nvim_create_autocmd("FileType", {\n'
            '  pattern = "markdown",\n'
            "  callback = function(args)\n"
            "    vim.lsp.start({\n"
            '      name = "discussions",\n'
            f"      cmd = {cmd},\n"
            '      root_dir = vim.fs.dirname(vim.fs.find({ "discussions.yaml", ".git" },\n'
            "        { upward = true, path = vim.api.nvim_buf_get_name(args.buf) })[1]),\n"
            "    })\n"
            "  end,\n"
            "})\n",
            "Put it in your init.lua (or ftplugin/markdown.lua without the autocommand).",
        )
    if editor == "helix":
        return (
            "[language-server.discussions]\n"
            f"command = {json.dumps(command[0])}\n"
            f"args = {json.dumps(command[1:])}\n\n"
            "[[language]]\n"
            'name = "markdown"\n'
            'language-servers = ["marksman", "discussions"]\n',
            "Merge into ~/.config/helix/languages.toml (or .helix/languages.toml in the project).",
        )
    settings = {
        "discussions.server.command": command[0],
        "discussions.server.args": command[1:],
    }
    return (
        json.dumps(settings, indent=2) + "\n",
        "Install the Discussions extension (editors/vscode: `code --install-extension "
        "discussions.vsix`), then merge this into your settings.json (user or workspace).",
    )
