"""What registers `discussions lsp` with an editor: a snippet with this installation's
absolute command, for Neovim, Helix and VS Code (docs/editors.md); the VS Code
settings are those of the extension in editors/vscode."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

EDITORS = ("nvim", "helix", "vscode")

NVIM = """\
-- discussions language server; Neovim 0.7 or later
do
  local cmd = {cmd}
  local markers = {{ "discussions.yaml", ".git" }}
  if vim.fn.has("nvim-0.11") == 1 then
    vim.lsp.config("discussions", {{
      cmd = cmd, filetypes = {{ "markdown" }}, root_markers = markers,
    }})
    vim.lsp.enable("discussions")
  else
    local uv = vim.uv or vim.loop
    -- the nearest folder above the file holding a marker, else the file's own folder
    local function root(buf)
      local start = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":p:h")
      local dir = start
      while true do
        for _, name in ipairs(markers) do
          if uv.fs_stat(dir .. "/" .. name) then return dir end
        end
        local parent = vim.fn.fnamemodify(dir, ":h")
        if parent == dir then return start end
        dir = parent
      end
    end
    local clients = {{}}
    vim.api.nvim_create_autocmd("FileType", {{
      pattern = "markdown",
      callback = function(args)
        local config = {{ name = "discussions", cmd = cmd, root_dir = root(args.buf) }}
        if vim.lsp.start then -- 0.8 to 0.10
          vim.lsp.start(config)
          return
        end
        -- 0.7: one client per project, attached to each of its markdown buffers
        local id = clients[config.root_dir]
        if not (id and vim.lsp.get_client_by_id(id)) then
          id = vim.lsp.start_client(config)
          clients[config.root_dir] = id
        end
        if id then vim.lsp.buf_attach_client(args.buf, id) end
      end,
    }})
  end
end
"""
"""Neovim's registration, for every version from 0.7 (Debian 12 ships 0.7.2, which has no
``vim.fs`` and no ``vim.lsp.start``): 0.11's ``vim.lsp.config``/``vim.lsp.enable``, 0.8-0.10's
``vim.lsp.start`` from a FileType autocommand, 0.7's ``vim.lsp.start_client`` with
``vim.lsp.buf_attach_client``; the project root found with ``vim.loop`` alone. `{cmd}` is the
server's command as a Lua table. The 0.11 form follows Neovim's ``:help lsp-config`` (a config
of ``cmd``, ``filetypes`` and ``root_markers``, then ``vim.lsp.enable``; see
https://neovim.io/doc/user/lsp.html#lsp-config); the 0.7 form is tested in Debian 12's Neovim
(tests/lsp/test_nvim.py)."""


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
            NVIM.format(cmd=cmd),
            "Put it in your init.lua (Neovim 0.7 or later; it picks the API of the version "
            "it runs in).",
        )
    if editor == "helix":
        return (
            "[language-server.discussions]\n"
            f"command = {json.dumps(command[0])}\n"
            f"args = {json.dumps(command[1:])}\n\n"
            "[[language]]\n"
            'name = "markdown"\n'
            'language-servers = ["marksman", "discussions"]\n',
            "Merge into ~/.config/helix/languages.toml (or .helix/languages.toml in the project); "
            "Helix 23.10 or later (the `language-servers` key).",
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
