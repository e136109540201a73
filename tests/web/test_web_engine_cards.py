"""The engine's blocks in the web view, in a real headless Chromium: evidence and apply blocks
appended after a comment are cards of their own (not drawn inside the comment's card, nor
twice), also when one arrives while the page is open; the positions table stays inside the
side panel however many rounds and however long the names."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from discussions.engine.evidence.fulfil import fulfil_pending
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace
from discussions.syntax.render import render_comment

from ..support.browser import console_errors
from ..support.waiting import wait_for
from ..support.web import LiveServer, open_page

pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402

NAME = "talk.md"


@pytest.fixture
def project(isolated: Path) -> Path:
    """A git project with code, and a discussion where Rob asked to read it twice."""
    (isolated / "src").mkdir()
    (isolated / "src" / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    (isolated / "discussions.yaml").write_text("default_participants: [architect]\n")
    for args in (
        ["init", "-q", "-b", "main"],
        ["-c", "user.name=T", "-c", "user.email=t@e", "add", "-A"],
        ["-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "code"],
    ):
        subprocess.run(["git", *args], cwd=isolated, check=True, capture_output=True)
    d = Discussion.create("Talk", directory=isolated / "discussions")
    d.save()
    body = "Let me look.\n\nEVIDENCE: read src/app.py:2-3\nEVIDENCE: read .env"
    d.add_block(render_comment("Rob", body, meta="at: 2026-11-23T10:00:00Z"))
    d.save()
    d.reload()
    fulfil_pending(d)
    return isolated


@pytest.fixture
def server(project: Path, browser: WebDriver) -> Iterator[LiveServer]:
    console_errors(browser)
    s = LiveServer(Workspace.discover())
    try:
        yield s
    finally:
        browser.get("about:blank")
        s.stop()


def _comments_text(browser: WebDriver) -> str:
    return str(browser.find_element(By.ID, "comments").text)


def test_evidence_blocks_are_cards_of_their_own_drawn_once(
    browser: WebDriver, server: LiveServer, project: Path
) -> None:
    open_page(browser, server, f"/d/{NAME}")
    [rob] = browser.find_elements(By.CSS_SELECTOR, "#comments article.comment")
    assert "Let me look." in rob.text
    assert rob.find_elements(By.TAG_NAME, "details") == []
    assert "Evidence 1" not in rob.text and "line 2" not in rob.text
    cards = browser.find_elements(By.CSS_SELECTOR, "#comments article.engine")
    assert len(cards) == 2
    assert cards[0].text.count("Evidence 1 for Rob: read src/app.py:2-3") == 1
    assert "Evidence 2 for Rob: read .env (refused" in cards[1].text
    assert _comments_text(browser).count("Evidence 1 for Rob") == 1  # once, not twice
    assert not cards[0].find_element(By.TAG_NAME, "details").get_attribute("open")
    # A block appended while the page is open comes as one more card, the others kept once.
    with (project / "discussions" / NAME).open("a", encoding="utf-8") as f:
        f.write(
            "<!-- EVIDENCE: 3 | request: read nothing | by: Rob | status: refused | "
            "reason: test -->\n\n*Evidence 3 for Rob, refused: read nothing (test)*\n\n---\n"
        )
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#comments article.engine")) == 3)
    assert _comments_text(browser).count("Evidence 1 for Rob") == 1
    assert len(browser.find_elements(By.CSS_SELECTOR, "#comments article.comment")) == 1
    assert console_errors(browser) == []


def test_the_positions_table_stays_inside_the_side_panel(
    browser: WebDriver, server: LiveServer, project: Path
) -> None:
    path = project / "discussions" / NAME
    blocks = []
    for r in range(1, 13):
        blocks.append(f"<!-- ROUND: {r} | phase: initial_feedback | order: x -->\n\n*Round {r}*\n")
        for who in ("AI-Architect-With-A-Long-Name", "AI-Security-Reviewer"):
            vote = "READY" if r % 2 else "CHANGES"
            blocks.append(f"---\n\nName: {who}\n\nRound {r}.\n\nVOTE: {vote}\n")
    with path.open("a", encoding="utf-8") as f:
        f.write("\n".join(blocks) + "\n---\n")
    open_page(browser, server, f"/d/{NAME}")
    section = browser.find_element(By.ID, "panel-positions")
    assert "R12" in section.text
    sizes = browser.execute_script(
        "const s = arguments[0]; return [s.scrollWidth, s.clientWidth];", section
    )
    assert sizes[0] <= sizes[1], sizes  # nothing drawn past the section's edge
    assert console_errors(browser) == []
