"""The five guards of issue 37 in the terminal app (Textual's pilot): the side panel shows
where each vote came from with its confidence and how many independent sources the READY votes
are, the grounds of the votes (a citation invented), the consensus held by the contrarian's
challenge and released once it is answered, and the minority report with the READY voters'
reservations; the comments show the contrarian's block."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from discussions.tui.discussion import DiscussionScreen

from ..support.guards import guarded_council, turn
from ..support.tui import app_for, markdown_text, until

pytestmark = pytest.mark.asyncio


def _panel(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one("#panel", Static).render())


@pytest.mark.slow
async def test_the_side_panel_shows_the_five_guards(repo: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    path = guarded_council(repo, providers_file)
    turn()
    app = app_for(path)
    async with app.run_test(size=(120, 60)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DiscussionScreen))
        await until(pilot, lambda: "Votes" in _panel(app))
        panel = " ".join(_panel(app).split())
        assert "AI-Architect: READY (solo, confidence 8)" in panel
        assert "sources: 3 READY, 2 independent sources" in panel
        assert "challenged by @advocate: awaiting an answer" in panel
        assert "src/net.py:99 (unresolvable)" in panel
        assert "advocate is asked for the strongest case against" in markdown_text(app)
        turn()  # the round that answers the challenge and decides
        await until(pilot, lambda: "Minority report" in _panel(app))
        panel = " ".join(_panel(app).split())
        assert "AI-Architect: READY (solo, confidence 6)" in panel
        assert "challenged by" not in panel
        assert "Recorded with 1 unanswered concern (AI-Advocate)." in panel
        assert "1 reservation from a READY voter (AI-Architect)" in panel
        assert "Reservation from AI-Architect, voting READY" in panel
