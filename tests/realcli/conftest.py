"""Fixtures of the conformance suite: the real CLIs on PATH, each in the test's own HOME."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from .support import bin_dirs, require_cli


@pytest.fixture
def real_cli(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], Path]:
    """``real_cli("codex")``: the installed binary (skips or fails when missing), with the
    suite's CLI folders put first on PATH for the test, so presets find it by name. HOME is
    the test's own (tests/conftest.py `isolated`), so each CLI's user config is written there."""

    def use(name: str) -> Path:
        path = require_cli(name)
        dirs = os.pathsep.join(str(d) for d in bin_dirs())
        monkeypatch.setenv("PATH", f"{dirs}{os.pathsep}{os.environ.get('PATH', '')}")
        return path

    return use
