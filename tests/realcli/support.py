"""Finding the real AI CLIs for the conformance suite (tests/realcli).

The CLIs are installed at the versions pinned in ``.ci/real-clis.txt`` by
``scripts/install-real-clis DIR`` (npm packages under ``DIR/node_modules/.bin``, PyPI ones in
``DIR/llm-venv/bin``). ``DISCUSSIONS_REAL_CLIS`` names DIR (default: ``.ci-clis`` at the top
of the repository). A CLI that is not there skips its tests with the reason, unless
``DISCUSSIONS_REQUIRE_CLIS=1`` is set (CI sets it): then they fail, so the real binaries can
never silently stop being exercised there.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
PINS = TOP / ".ci" / "real-clis.txt"
ENV_DIR = "DISCUSSIONS_REAL_CLIS"
ENV_REQUIRE = "DISCUSSIONS_REQUIRE_CLIS"


@dataclass(frozen=True)
class Pin:
    """One pinned CLI: the command, where it installs from, the package at its version."""

    name: str
    source: str
    spec: str

    @property
    def version(self) -> str:
        """The pinned version (after the last ``@`` of an npm spec, ``==`` of a PyPI one)."""
        sep = "==" if self.source == "pip" else "@"
        return self.spec.rpartition(sep)[2]


def pins() -> dict[str, Pin]:
    """The pinned CLIs by command name."""
    found: dict[str, Pin] = {}
    for line in PINS.read_text(encoding="utf-8").splitlines():
        words = line.split()
        if len(words) == 3 and not words[0].startswith("#"):
            found[words[0]] = Pin(*words)
    return found


def cli_dir() -> Path:
    return Path(os.environ.get(ENV_DIR) or TOP / ".ci-clis")


def bin_dirs() -> list[Path]:
    """The folders the installed CLIs' commands are in."""
    root = cli_dir()
    return [root / "node_modules" / ".bin", root / "llm-venv" / "bin"]


def find_cli(name: str) -> Path | None:
    """The installed command `name` of the conformance suite, or None."""
    path = os.pathsep.join(str(d) for d in bin_dirs())
    found = shutil.which(name, path=path)
    return Path(found) if found else None


def require_cli(name: str) -> Path:
    """The command `name`, or skip the test (fail it when CI requires the real CLIs)."""
    found = find_cli(name)
    if found is not None:
        return found
    reason = (
        f"{name} is not installed in {cli_dir()} (scripts/install-real-clis installs the "
        "pinned CLIs there)"
    )
    if os.environ.get(ENV_REQUIRE) == "1":
        pytest.fail(f"{ENV_REQUIRE}=1 but {reason}")
    pytest.skip(reason)
