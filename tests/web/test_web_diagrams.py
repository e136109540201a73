"""Mermaid diagrams in the live web view, drawn by mermaid.js in a real headless Chromium
against a real server: served from the page's own origin under its Content-Security-Policy,
on the page and as comments arrive, with the source one click away.

mermaid.js comes from ``web-assets`` (``npm ci`` there installs the pinned version; CI does it
and names the file in ``DISCUSSIONS_MERMAID_JS``). Without it the test is skipped, unless
``DISCUSSIONS_REQUIRE_MERMAID=1`` (CI): then it fails."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from discussions.settings.workspace import Workspace

from ..conftest import code, run, write
from ..support.browser import console_errors
from ..support.waiting import wait_for
from ..support.web import LiveServer, open_page

pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FLOW = "```mermaid\ngraph TD\n  A[Client] -->|token| B[API]\n  B --> C[(Store)]\n```"
SEQUENCE = "```mermaid\nsequenceDiagram\n  Alice->>Bob: hello\n```"


def _mermaid_js() -> Path:
    named = os.environ.get("DISCUSSIONS_MERMAID_JS")
    path = Path(named) if named else ROOT / "web-assets/node_modules/mermaid/dist/mermaid.min.js"
    if not path.is_file():
        if os.environ.get("DISCUSSIONS_REQUIRE_MERMAID") == "1":
            pytest.fail(f"mermaid.js not found at {path} (run `npm ci` in web-assets)")
        pytest.skip("mermaid.js is not installed (npm ci in web-assets)")
    return path


def _svgs(browser: WebDriver) -> int:
    return len(
        browser.find_elements(By.CSS_SELECTOR, 'figure.diagram-mermaid[data-drawn="svg"] svg')
    )


def test_a_mermaid_fence_becomes_an_svg_in_the_live_view(
    isolated: Path, userdir: Path, browser: WebDriver
) -> None:
    write(userdir / "config.yaml", f"diagrams:\n  mermaid_js: {str(_mermaid_js())!r}\n")
    assert code(run("new", "Flow", "--participants", "architect")) == 0
    path = "discussions/flow.md"
    assert code(run("comment", path, f"The flow:\n\n{FLOW}", "--author", "Rob")) == 0
    console_errors(browser)
    server = LiveServer(Workspace.discover())
    try:
        open_page(browser, server, "/d/flow.md")
        wait_for(lambda: _svgs(browser) == 1, timeout=30)
        figure = browser.find_element(By.CSS_SELECTOR, "figure.diagram-mermaid")
        svg = figure.find_element(By.CSS_SELECTOR, ".diagram-picture svg")
        assert "Client" in svg.get_attribute("outerHTML")
        details = figure.find_element(By.CSS_SELECTOR, "details.diagram-source")
        assert details.get_attribute("open") is None  # the source, one click away
        details.find_element(By.TAG_NAME, "summary").click()
        code_text = details.find_element(By.TAG_NAME, "code").text
        assert "A[Client] -->|token| B[API]" in code_text
        # A comment that arrives while the page is open is drawn too.
        assert code(run("comment", path, f"And:\n\n{SEQUENCE}", "--author", "Ann")) == 0
        wait_for(lambda: _svgs(browser) == 2, timeout=30)
        assert console_errors(browser) == []  # no CSP violation, no failed request
    finally:
        browser.get("about:blank")
        server.stop()


def test_a_diagram_mermaid_cannot_parse_keeps_its_source_open(
    isolated: Path, userdir: Path, browser: WebDriver
) -> None:
    write(userdir / "config.yaml", f"diagrams:\n  mermaid_js: {str(_mermaid_js())!r}\n")
    assert code(run("new", "Broken", "--participants", "architect")) == 0
    broken = "```mermaid\ngraph TD\n  A -->\n  this is not mermaid ((\n```"
    text = f"Two:\n\n{broken}\n\n{FLOW}"
    assert code(run("comment", "discussions/broken.md", text, "--author", "Rob")) == 0
    console_errors(browser)
    server = LiveServer(Workspace.discover())
    try:
        open_page(browser, server, "/d/broken.md")
        wait_for(lambda: _svgs(browser) == 1, timeout=30)
        failed = 'figure.diagram-mermaid[data-drawn="error"]'
        wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, failed)) == 1, timeout=30)
        figure = browser.find_element(By.CSS_SELECTOR, failed)
        assert figure.find_element(By.CSS_SELECTOR, ".diagram-note").text.startswith("Not drawn:")
        details = figure.find_element(By.CSS_SELECTOR, "details.diagram-source")
        assert details.get_attribute("open") is not None
        assert figure.find_elements(By.CSS_SELECTOR, ".diagram-picture svg") == []
        assert browser.find_elements(By.CSS_SELECTOR, 'body > [id^="ddiagram-"]') == []
    finally:
        browser.get("about:blank")
        server.stop()
