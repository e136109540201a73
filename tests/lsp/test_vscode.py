"""The VS Code extension (editors/vscode) in node, with the `vscode` API stood in for and the
real server behind it: the server command from the settings is started with its arguments in
the workspace folder, the markdown files go to it, and its status reaches the status bar.

The extension's node modules come from ``npm ci`` in editors/vscode (``.ci/vscode`` runs it);
without node or them the test is skipped, unless ``DISCUSSIONS_REQUIRE_VSCODE=1`` (CI sets it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import code, run

EXTENSION = Path(__file__).resolve().parents[2] / "editors" / "vscode"


def _node_or_skip() -> str:
    """The node executable, when the extension's modules are installed; else skip (or fail
    under DISCUSSIONS_REQUIRE_VSCODE=1, so CI never skips it silently)."""
    node = shutil.which("node")
    reason = None
    if node is None:
        reason = "node is not installed"
    elif not (EXTENSION / "node_modules" / "vscode-languageclient").is_dir():
        reason = f"run `npm ci` in {EXTENSION} first"
    if reason is None and node is not None:
        return node
    if os.environ.get("DISCUSSIONS_REQUIRE_VSCODE") == "1":
        pytest.fail(f"DISCUSSIONS_REQUIRE_VSCODE=1 but {reason}")
    pytest.skip(reason or "")


def test_the_extension_starts_the_configured_server_and_shows_its_status(isolated: Path) -> None:
    node = _node_or_skip()
    assert code(run("new", "Feature", "--participants", "security,architect")) == 0
    discussion = isolated / "discussions" / "feature.md"
    with discussion.open("a", encoding="utf-8") as f:
        f.write("\nName: Rob\n\nWhat do you think, @security?\n")
    (isolated / "notes.md").write_text("# Notes\n\nNot a discussion.\n", encoding="utf-8")
    (isolated / "notes.txt").write_text("Plain text.\n", encoding="utf-8")
    env = dict(
        os.environ,
        DISCUSSIONS_LSP_COMMAND=json.dumps([sys.executable, "-m", "discussions", "lsp"]),
        DISCUSSIONS_TEST_PROJECT=str(isolated),
        PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
    )
    done = subprocess.run(
        [node, "--test", "test/client.test.js"],
        cwd=EXTENSION,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# pass 1" in done.stdout and "# fail 0" in done.stdout
