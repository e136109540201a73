"""A git project with code, secrets, an ignored file, a binary and a discussion to ask in."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..support.git import git_out as git

APP = "".join(f"line {n}\n" for n in range(1, 31)).replace(
    "line 7\n", "TOKEN_APP_7 = 'only-here'\n"
)


@pytest.fixture
def project(repo: Path) -> Path:
    """The shared repository with code, secrets, an ignored file, a binary, one commit."""
    root = repo
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
    git(root, "add", "src", "README.md", ".gitignore", "logo.png", "discussions.yaml")
    git(root, "commit", "-q", "-m", "first commit TOKEN_COMMIT_MSG")
    return root
