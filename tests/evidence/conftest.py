"""A git project with code, secrets, an ignored file, a binary and a discussion to ask in."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

APP = "".join(f"line {n}\n" for n in range(1, 31)).replace("line 7\n", "TOKEN_APP_7 = 'only-here'\n")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def project(isolated: Path) -> Path:
    root = isolated
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text(APP)
    (root / "src" / "util.py").write_text("def helper():\n    return 'aaaa'\n")
    (root / "README.md").write_text("# Demo\n")
    (root / ".env").write_text("API_KEY=TOKEN_SECRET_ENV\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "out.txt").write_text("TOKEN_IGNORED\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0TOKEN_BINARY")
    (root / "discussions.yaml").write_text("default_participants: [architect]\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Tester")
    git(root, "config", "user.email", "t@example.com")
    git(root, "add", "src", "README.md", ".gitignore", "logo.png", "discussions.yaml")
    git(root, "commit", "-q", "-m", "first commit TOKEN_COMMIT_MSG")
    return root


