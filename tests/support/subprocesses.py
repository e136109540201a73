"""The environment of a child process that runs this checkout's package."""

from __future__ import annotations

import os
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
"""This checkout's sources (not an installed copy of the package)."""


def server_env() -> dict[str, str]:
    """The test's own DISCUSSIONS_*, HOME and NO_* variables and nothing else of the
    environment, with this checkout's sources first on PYTHONPATH: what a server the tests
    start as an editor or an agent would (`discussions mcp`)."""
    env = {k: v for k, v in os.environ.items() if k.startswith(("DISCUSSIONS_", "HOME", "NO_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))
    return env
