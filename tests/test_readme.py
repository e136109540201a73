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


def _script(name: str):  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_contents_list_every_heading_with_its_anchor() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert _script("readme_contents").with_contents(readme) == readme, (
        "the README's contents and headings disagree: run python scripts/readme_contents.py"
    )


def test_contents_anchors_follow_github() -> None:
    anchor = _script("readme_contents").anchor
    assert anchor("Use from AI coding agents (MCP)") == "use-from-ai-coding-agents-mcp"
    assert anchor("Exports: an HTML page, JSON, a written post") == (
        "exports-an-html-page-json-a-written-post"
    )


def test_pictures_the_readme_shows_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", readme)
    assert {"docs/images/tui.svg", "docs/images/web.png"} <= set(pictures)
    for picture in pictures:
        assert (ROOT / picture).stat().st_size > 1000, picture
