"""The shared fixtures, registered once as a plugin by tests/conftest.py (`pytest_plugins`):
a test names one as an argument and never imports it."""

from __future__ import annotations

from pathlib import Path

import pytest

from .git import init_repository, use_git_identity


@pytest.fixture
def git_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's own global git configuration with an identity (its path: empty it to take
    the identity away); the user's configuration cannot leak in."""
    return use_git_identity(monkeypatch, tmp_path)


@pytest.fixture
def repo(isolated: Path, git_identity: Path) -> Path:
    """A git repository (branch main, no commit yet) in the project folder. A module that
    needs a history overrides it with a fixture of the same name taking this one."""
    return init_repository(isolated)
