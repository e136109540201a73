"""The five guards of issue 37 in the live web view, in a real headless Chromium: the panel
shows each vote's source and confidence and how many independent sources the READY votes are,
the consensus held by the contrarian's challenge (its block among the comments), each citation
marked grounded or unresolvable under its comment, and, once the challenge is answered and the
discussion decided, the minority report with the READY voters' reservations."""

from __future__ import annotations

from pathlib import Path

import pytest

from discussions.settings.workspace import Workspace

from ..support.browser import console_errors
from ..support.guards import guarded_council, turn
from ..support.web import LiveServer, open_page

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402


def _text(browser: WebDriver, element_id: str) -> str:
    return " ".join(browser.find_element(By.ID, element_id).text.split())


def test_the_page_shows_the_five_guards(
    browser: WebDriver,
    repo: Path,
    providers_file,  # type: ignore[no-untyped-def]
) -> None:
    guarded_council(repo, providers_file)
    turn()
    console_errors(browser)
    server = LiveServer(Workspace.discover(repo))
    try:
        open_page(browser, server, "/d/auth.md")
        votes = _text(browser, "panel-votes")
        assert "solo, confidence 8" in votes
        assert "Sources: 3 READY, 2 independent sources" in votes
        assert "challenged by @advocate: awaiting an answer" in _text(browser, "consensus")
        comments = _text(browser, "comments")
        assert "Contrarian: @advocate is asked for the strongest case against." in comments
        grounded = browser.find_elements(By.CSS_SELECTOR, ".citation-grounded")
        invented = browser.find_elements(By.CSS_SELECTOR, ".citation-unresolvable")
        assert any("src/net.py:12" in e.text for e in grounded)
        assert any("src/net.py:99" in e.text for e in invented)
        assert not browser.find_elements(By.ID, "panel-dissent")
        turn()  # the round that answers the challenge and decides
        open_page(browser, server, "/d/auth.md")
        assert browser.find_element(By.ID, "status").text == "DECIDED"
        assert "solo, confidence 6" in _text(browser, "panel-votes")
        assert "challenged" not in _text(browser, "consensus")
        report = _text(browser, "panel-dissent")
        assert "nothing bounds the retries" in report and "never answered" in report
        assert "a reservation beside READY" in report and "AI-Architect" in report
        assert console_errors(browser) == []
    finally:
        browser.get("about:blank")
        server.stop()
