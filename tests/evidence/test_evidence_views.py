"""Evidence where people read: the turn display, the web page, the terminal app (collapsed
by default) and the MCP server's read_discussion."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Collapsible, Markdown

from discussions.engine.evidence.fulfil import fulfil_pending
from discussions.model.discussion import Discussion
from discussions.ops.service import DiscussionTools
from discussions.settings.workspace import Workspace
from discussions.views.html import discussion_page

from ..conftest import run
from ..support.evidence import ask


def asked(project: Path) -> Discussion:
    d = ask(project, "Rob", "read src/app.py:6-8", "read .env")
    fulfil_pending(d)
    return Discussion.load(d.path)


def test_web_page_shows_evidence_collapsed(project: Path) -> None:
    d = asked(project)
    page = discussion_page(d)
    assert '<details class="evidence"><summary>Evidence 1 for Rob: read src/app.py:6-8' in page
    assert "TOKEN_APP_7" in page.split('<details class="evidence">', 1)[1]
    body = page.split('<div class="body">', 1)[1].split("</div>", 1)[0]
    assert "TOKEN_APP_7" not in body  # folded out of the comment text
    assert "Evidence 2 for Rob: read .env (refused" in page


def test_mcp_read_discussion_includes_evidence(project: Path) -> None:
    d = asked(project)
    read = DiscussionTools().read_discussion(str(d.path))
    first, second = read["evidence"]
    assert first["status"] == "fulfilled" and "TOKEN_APP_7" in first["content"]
    assert second["status"] == "refused" and "secret" in second["reason"]
    assert "TOKEN_APP_7" not in read["comments"][0]["text"]


def test_turn_display_shows_evidence(project: Path) -> None:
    run("new", "Shown")
    r = run("comment", "discussions/shown.md", "EVIDENCE: list src", "--author", "Rob")
    assert r.exit_code == 0
    r = run("turn", "discussions/shown.md", "@architect")
    assert "Evidence 1 for Rob: list src (fulfilled)" in r.output  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_tui_shows_evidence_collapsed(project: Path) -> None:
    from discussions.tui.app import DiscussionsApp

    d = asked(project)
    ws = Workspace.discover()
    app = DiscussionsApp(ws.config.output_directory, d.path, ws)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.3)
        box = app.screen.query_one("#evidence-box", Collapsible)
        assert box.collapsed
        assert "TOKEN_APP_7" not in app.screen.query_one("#body", Markdown).source
        assert "TOKEN_APP_7" in app.screen.query_one("#evidence", Markdown).source
        await pilot.press("v")
        assert not box.collapsed
