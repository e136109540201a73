"""The pictures of the README and docs/ come from a script that drives a real session (scripts/screenshots.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .support.browser import browser_or_skip

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_screenshot_script_draws_the_terminal_app_and_the_web_view(tmp_path: Path) -> None:
    browser_or_skip()
    env = dict(os.environ, DISCUSSIONS_HOME=str(tmp_path / "home"))
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "screenshots.py"), "--out", str(tmp_path / "pics")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    svg = (tmp_path / "pics" / "tui.svg").read_text(encoding="utf-8")
    assert "Add&#160;user&#160;authentication" in svg or "Add user authentication" in svg
    assert "AI-Security" in svg.replace("&#160;", " ")
    for name in ("web.png", "web-phone.png"):
        data = (tmp_path / "pics" / name).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 10_000
