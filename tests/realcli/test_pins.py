"""The installed CLIs are the versions pinned in .ci/real-clis.txt."""

from __future__ import annotations

import subprocess

import pytest

from .support import pins, require_cli


@pytest.mark.parametrize("name", sorted(pins()))
def test_installed_version_is_the_pinned_one(name: str, tmp_path) -> None:
    pin = pins()[name]
    path = require_cli(name)
    out = subprocess.run(
        [str(path), "--version"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert pin.version in out.stdout + out.stderr, (name, out.stdout, out.stderr)
