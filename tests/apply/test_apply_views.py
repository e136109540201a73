"""Applies where people read: the web page (collapsed, as evidence), the terminal app's side
panel and comment text, the MCP server's read_discussion (content folded)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Markdown, Static

from discussions.model.discussion import Discussion
from discussions.ops.service import DiscussionTools
from discussions.settings.workspace import Workspace
from discussions.views.html import discussion_page

from ..support.apply import decided


def applied(folder: Path) -> Discussion:
    return decided(folder, "OPEN")


def test_web_page_shows_applies_collapsed(isolated: Path) -> None:
    page = discussion_page(applied(isolated / "discussions"))
    head = '<details class="apply"><summary>Apply 1: AI-Architect (claude-write) committed 2'
    assert head in page
    assert "3 passed in 0.1s" in page.split(head, 1)[1]
    assert (
        "Review 1 of apply 1: changes requested (yes: AI-A; no: AI-B); 1 blocker: the migration "
        "is missing"
    ) in page
    body = page.split('<div class="body">', 1)[1].split("</div>", 1)[0]
    assert "3 passed in 0.1s" not in body  # not in the comment's card: in a card of its own
    assert "Apply 1: AI-Architect" not in body
    assert page.count("Apply 1: AI-Architect (claude-write) committed 2 files") == 1  # once
    assert '<article class="engine apply"' in page


def test_mcp_read_discussion_folds_the_apply_content(isolated: Path) -> None:
    d = applied(isolated / "discussions")
    read = DiscussionTools().read_discussion(str(d.path))
    assert "3 passed in 0.1s" not in read["comments"][0]["text"]
    assert "Apply 1: AI-Architect" in read["comments"][0]["text"]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_tui_shows_applies(isolated: Path) -> None:
    from discussions.tui.app import DiscussionsApp

    d = applied(isolated / "discussions")
    ws = Workspace.discover()
    app = DiscussionsApp(ws.config.output_directory, d.path, ws)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        panel = str(app.screen.query_one("#panel", Static).render())
        assert "Applies (2)" in panel
        assert "Apply 1: AI-Architect" in panel and "committed 2 files" in panel
        assert "(line " in panel and "Review 1 of apply 1: changes requested" in panel
        body = app.screen.query_one("#body", Markdown).source
        assert "3 passed in 0.1s" not in body and "Apply 1: AI-Architect" in body
