"""The README's quick start is what CI runs, word for word."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section)


def test_quick_start_has_two_commands_that_install_into_a_venv() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    for command in commands:
        assert "\n" not in command
        assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert "discussions turn" in commands[0]
    assert commands[1].endswith("python -m pytest")


def test_ci_runs_the_quick_start_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for command in quick_start_commands():
        assert f"( {command} )" in ci
