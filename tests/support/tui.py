"""Driving the terminal UI in process (Textual's pilot): the app, what it shows, waiting on it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Markdown

from discussions.settings.workspace import Workspace
from discussions.tui.app import DiscussionsApp


def app_for(file: Path | None = None) -> DiscussionsApp:
    ws = Workspace.discover()
    return DiscussionsApp(ws.config.output_directory, file, ws)


async def until(pilot, check: Callable[[], bool], timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "condition not met in time"
        await pilot.pause(0.05)


def markdown_text(app: DiscussionsApp) -> str:
    """The markdown of the title and the comments (not the context)."""
    heading = app.screen.query_one("#heading", Markdown).source
    return heading + "\n" + app.screen.query_one("#body", Markdown).source


def screen_lines(app: DiscussionsApp) -> list[str]:
    """The screen as the terminal shows it: one string per row."""
    return [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]
