"""The VS Code extension (editors/vscode) with the real server behind it, twice:

* in node, with the `vscode` API stood in for: the server command from the settings is
  started with its arguments in the workspace folder, the markdown files go to it, and its
  status reaches the status bar. The extension's node modules come from ``npm ci`` in
  editors/vscode (``.ci/vscode`` runs it); without node or them the test is skipped, unless
  ``DISCUSSIONS_REQUIRE_VSCODE=1`` (CI sets it).
* in a real VS Code: code-server (VS Code served to a browser) with the built ``.vsix``
  installed, driven in headless Chromium: the status shows in the status bar and the server's
  diagnostic in the Problems panel.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from ..conftest import code, run
from ..support.browser import browser_or_skip, start_browser

pytestmark = pytest.mark.slow  # a real VS Code (code-server) in a browser

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


def _code_server_or_skip() -> tuple[str, Path]:
    """code-server (``DISCUSSIONS_CODE_SERVER``, else on the PATH) and the built extension
    (``DISCUSSIONS_VSIX``, else editors/vscode/discussions.vsix); skip without them, or fail
    under ``DISCUSSIONS_REQUIRE_CODE_SERVER=1`` (CI installs code-server with .ci/code-server)."""
    server = os.environ.get("DISCUSSIONS_CODE_SERVER") or shutil.which("code-server")
    vsix = Path(os.environ.get("DISCUSSIONS_VSIX") or EXTENSION / "discussions.vsix")
    reason = None
    if not server:
        reason = "code-server is not installed (.ci/code-server installs it)"
    elif not vsix.is_file():
        reason = f"no {vsix}: build it with .ci/vscode"
    if reason is None and server:
        return server, vsix
    if os.environ.get("DISCUSSIONS_REQUIRE_CODE_SERVER") == "1":
        pytest.fail(f"DISCUSSIONS_REQUIRE_CODE_SERVER=1 but {reason}")
    pytest.skip(reason or "")


@contextmanager
def _code_server(server: str, data: Path, folder: Path) -> Iterator[str]:
    """code-server serving `folder` on a free port of 127.0.0.1, no login; yields its address.
    Its whole process group (extension host, language servers) is ended afterwards."""
    process = subprocess.Popen(
        [server, "--auth", "none", "--bind-addr", "127.0.0.1:0", "--disable-telemetry",
         "--disable-update-check", "--disable-workspace-trust", "--user-data-dir",
         str(data / "user"), "--extensions-dir", str(data / "extensions"), str(folder)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        for line in process.stdout:  # "... HTTP server listening on http://127.0.0.1:PORT/"
            found = re.search(r"HTTP server listening on (http://\S+)", line)
            if found:
                yield found.group(1)
                return
        pytest.fail("code-server ended before it listened")
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


def test_code_server_with_the_extension_shows_diagnostics_and_status(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, vsix = _code_server_or_skip()
    paths = browser_or_skip()
    assert code(run("new", "Feature", "--participants", "security,architect")) == 0
    discussion = isolated / "discussions" / "feature.md"
    with discussion.open("a", encoding="utf-8") as f:
        f.write("\nName: Rob\n\nWhat do you think, @securty and @security?\n")
    data = tmp_path / "code-server"
    (data / "user" / "User").mkdir(parents=True)
    settings = {
        "discussions.server.command": sys.executable,
        "discussions.server.args": ["-m", "discussions", "lsp", "--debounce", "0"],
    }
    (data / "user" / "User" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    installed = subprocess.run(
        [server, "--user-data-dir", str(data / "user"), "--extensions-dir",
         str(data / "extensions"), "--install-extension", str(vsix)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in sys.path if p))  # the server's
    with _code_server(server, data, isolated) as address:
        browser = start_browser(paths)
        try:
            _open_and_check(browser, address, isolated, discussion)
        finally:
            browser.quit()


def _open_and_check(browser: Any, address: str, folder: Path, discussion: Path) -> None:
    """Open `discussion` in the workbench; its status must reach the status bar and the
    server's diagnostic the Problems panel."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    payload = json.dumps([["openFile", f"vscode-remote://{discussion}"]])
    browser.get(f"{address}?folder={quote(str(folder))}&payload={quote(payload)}")
    wait = WebDriverWait(browser, 120, poll_frequency=0.2)
    item = wait.until(lambda b: _element(b, By.ID, "discussions.discussions", "waiting for"))
    assert "initial_feedback" in item.text and "waiting for @security" in item.text
    # the Problems item may join the status bar after the extension's item: wait for it too
    wait.until(lambda b: _element(b, By.ID, "status.problems", "")).click()
    wait.until(lambda b: _element(b, By.CSS_SELECTOR, ".markers-panel", "@securty matches"))


def _element(browser: Any, by: str, what: str, text: str) -> Any:
    """The first element found whose text holds `text`, or None (so a wait tries again)."""
    for element in browser.find_elements(by, what):
        if text in element.text:
            return element
    return None
