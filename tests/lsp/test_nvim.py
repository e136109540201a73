"""The Neovim configuration `discussions lsp --print-config nvim` prints, in the real Neovim:
headless, it opens a discussion with a problem, starts the server, attaches it and shows
its diagnostics (Debian 12 ships Neovim 0.7.2, the oldest version the snippet supports).

Skipped when ``nvim`` is not installed, unless ``DISCUSSIONS_REQUIRE_NVIM=1`` (`.ci/run`
sets it): then it fails, so CI never skips it silently."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ..conftest import code, run
from ..support.git import git

pytestmark = pytest.mark.slow  # a real Neovim

ENV_REQUIRE = "DISCUSSIONS_REQUIRE_NVIM"

PROBE = """\
local attached = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local found = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(found, { line = d.lnum, message = d.message, source = d.source })
end
local names = {}
for _, c in pairs(vim.lsp.buf_get_clients(0)) do table.insert(names, c.name) end
vim.fn.writefile({ vim.fn.json_encode({
  waited = attached, clients = names, diagnostics = found, version = vim.version(),
}) }, vim.env.PROBE_OUT)
vim.cmd("qa!")
"""


def _nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        reason = "nvim not found (on Debian: apt-get install neovim)"
        if os.environ.get(ENV_REQUIRE) == "1":
            pytest.fail(f"{ENV_REQUIRE}=1 but {reason}", pytrace=False)
        pytest.skip(reason)
    return found


def test_the_printed_config_attaches_in_headless_neovim_and_shows_diagnostics(
    isolated: Path, tmp_path: Path
) -> None:
    nvim = _nvim()
    git(isolated, "init", "-q")
    assert code(run("new", "Feature", "--participants", "security,architect")) == 0
    path = isolated / "discussions" / "feature.md"
    with path.open("a", encoding="utf-8") as f:
        f.write("\nName: Rob\n\nWhat do you think, @securty?\n")
    printed = run("lsp", "--print-config", "nvim")
    assert code(printed) == 0
    (tmp_path / "init.lua").write_text(printed.stdout, encoding="utf-8")
    (tmp_path / "probe.lua").write_text(PROBE, encoding="utf-8")
    out = tmp_path / "out.json"
    env = dict(os.environ, PROBE_OUT=str(out), XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    env["XDG_DATA_HOME"] = env["XDG_STATE_HOME"] = str(tmp_path / "xdg-data")
    done = subprocess.run(
        [
            nvim,
            "--headless",
            "-n",
            "-i",
            "NONE",
            "-u",
            str(tmp_path / "init.lua"),
            str(path),
            "-c",
            f"luafile {tmp_path / 'probe.lua'}",
        ],
        cwd=isolated,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.exists(), done.stdout + done.stderr
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert seen["waited"], (seen, done.stderr)
    assert seen["clients"] == ["discussions"]
    [typo] = [d for d in seen["diagnostics"] if "@securty" in d["message"]]
    assert typo["source"] == "discussions"
    assert path.read_text(encoding="utf-8").split("\n")[typo["line"]].endswith("@securty?")
