"""The README's quick start is what CI runs, word for word."""

from __future__ import annotations

import re

from .documentation import ROOT, pages, script, section


def quick_start_commands(page: str = "README.md") -> list[str]:
    return re.findall(r"```bash\n(.+?)\n```", section(page, "## Quick start"))


def test_quick_start_has_two_commands_that_install_into_a_venv() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    for command in commands:
        assert "\n" not in command
        assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert "discussions turn" in commands[0]
    assert commands[1].endswith("python -m pytest")


def test_getting_started_prints_the_same_quick_start() -> None:
    assert quick_start_commands("getting-started.md") == quick_start_commands()


def test_ci_runs_the_quick_start_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for command in quick_start_commands():
        assert f"( {command} )" in ci


def test_contents_list_every_heading_with_its_anchor() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert script("readme_contents").with_contents(readme) == readme, (
        "the README's contents and headings disagree: run python scripts/readme_contents.py"
    )


def test_contents_anchors_follow_github() -> None:
    anchor = script("readme_contents").anchor
    assert anchor("Use from AI coding agents (MCP)") == "use-from-ai-coding-agents-mcp"
    assert anchor("Exports: an HTML page, JSON, a written post") == (
        "exports-an-html-page-json-a-written-post"
    )


def test_pictures_the_readme_and_the_docs_show_exist() -> None:
    """The README shows the terminal app; the web view's picture moved with its text to
    docs/web.md. Each picture is found from the page that shows it."""
    shown = set()
    for page in pages():
        for picture in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text(encoding="utf-8")):
            shown.add((page.relative_to(ROOT).as_posix(), (page.parent / picture).resolve()))
    images = ROOT / "docs" / "images"
    assert {("README.md", images / "tui.svg"), ("docs/web.md", images / "web.png")} <= shown
    for page, picture in shown:
        assert picture.stat().st_size > 1000, (page, picture)
