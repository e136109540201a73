"""The live web view in a real headless Chromium against a real server (uvicorn on loopback).

One browser for the module, one server per test. Every test ends with no console errors (a
Content-Security-Policy violation, a failed request or an uncaught exception would show there).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace

from ..conftest import code, run, script_command, write
from ..support.browser import console_errors, phone_viewport
from ..support.waiting import wait_for
from ..support.web import LiveServer, open_page

pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

NAME = "auth.md"
HOSTILE = (
    "Hostile: <script>window.__pwned=1</script> and "
    '<img src=x onerror="window.__pwned=2"> and [link](javascript:window.__pwned=3)'
)


@pytest.fixture
def project(isolated: Path) -> Path:
    assert code(run("new", "Auth", "--context", "Log in with passkeys.")) == 0
    return isolated


@contextlib.contextmanager
def serving(browser: WebDriver) -> Iterator[LiveServer]:
    """A server for the project in the current folder, the console log emptied first."""
    console_errors(browser)
    s = LiveServer(Workspace.discover())
    try:
        yield s
    finally:
        # Leave the page first: its event stream must not see the server go away (that would
        # be a console error in the next test).
        browser.get("about:blank")
        s.stop()


@pytest.fixture
def server(project: Path, browser: WebDriver) -> Iterator[LiveServer]:
    with serving(browser) as s:
        yield s


def slow_provider(project: Path, providers_file, *lines: str) -> None:  # type: ignore[no-untyped-def]
    """The default provider prints `lines` (the last one only once $SLOW_PRINT_GATE exists, if
    set); the architect uses it."""
    providers_file({"slow": script_command("slow_print.py", "0", *lines)})
    write(project / "discussions.yaml", "providers:\n  default: slow\n  fallback: []\n")
    write(
        project / "participants" / "architect.yaml",
        "name: AI-Architect\nalias: architect\nrole: r\npersonality: p\nprovider_hint: slow\n",
    )


def only_architect(browser: WebDriver) -> None:
    for box in browser.find_elements(By.CSS_SELECTOR, 'input[name="participants"]'):
        if box.get_attribute("value") != "architect" and box.is_selected():
            # The element's own click: a pointer click lands where the box was when it was
            # aimed, and a page still laying itself out under load moved it (the whole suite
            # once unchecked nothing).
            browser.execute_script("arguments[0].click()", box)
    checked = browser.find_elements(By.CSS_SELECTOR, 'input[name="participants"]:checked')
    assert [b.get_attribute("value") for b in checked] == ["architect"]


def path_of(project: Path, name: str = NAME) -> Path:
    return project / "discussions" / name


def file_text(project: Path, name: str = NAME) -> str:
    return path_of(project, name).read_text(encoding="utf-8")


def mark_page(browser: WebDriver) -> None:
    """A marker that only survives while the page is not reloaded."""
    browser.execute_script("window.__kept = 'still here'")


def not_reloaded(browser: WebDriver) -> bool:
    """The page marked by `mark_page` is still the one shown (a reload or a navigation makes a
    new window object, without the marker)."""
    return bool(browser.execute_script("return window.__kept") == "still here")


def comment_texts(browser: WebDriver) -> list[str]:
    return [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#comments article.comment")]


def wait_for_comment(browser: WebDriver, needle: str, timeout: float = 10.0) -> str:
    def found() -> str | None:
        return next((t for t in comment_texts(browser) if needle in t), None)

    return wait_for(found, timeout, message=f"a comment containing {needle!r}")


def cli_subprocess(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as another process would run it (not in this one)."""
    return subprocess.run(
        [sys.executable, "-m", "discussions", *args],
        cwd=project,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=60,
    )


# -- list page -------------------------------------------------------------------------------


def test_the_list_shows_discussions_and_the_filter_hides_rows(
    browser: WebDriver, server: LiveServer, project: Path
) -> None:
    assert code(run("new", "Billing retries", "--context", "Retry failed charges.")) == 0
    assert code(run("new", "Cache layer", "--context", "Add a cache.")) == 0
    open_page(browser, server, "/")
    rows = browser.find_elements(By.CSS_SELECTOR, "#discussions tbody tr")
    titles = sorted(r.find_element(By.CSS_SELECTOR, "td a").text for r in rows)
    assert titles == ["Auth", "Billing retries", "Cache layer"]
    assert "initial_feedback" in rows[0].text and "OPEN" in rows[0].text

    box = browser.find_element(By.ID, "filter")
    box.send_keys("bill")
    wait_for(lambda: len([r for r in rows if r.is_displayed()]) == 1)
    assert [r for r in rows if r.is_displayed()][0].find_element(By.TAG_NAME, "a").text == (
        "Billing retries"
    )
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACK_SPACE)
    wait_for(lambda: len([r for r in rows if r.is_displayed()]) == 3)
    box.send_keys("no such thing")
    wait_for(lambda: not any(r.is_displayed() for r in rows))
    # A title is a link to its page.
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACK_SPACE)
    wait_for(lambda: all(r.is_displayed() for r in rows))
    browser.find_element(By.LINK_TEXT, "Cache layer").click()
    wait_for(lambda: browser.find_element(By.ID, "title").text == "Cache layer")
    assert console_errors(browser) == []


# -- discussion page -------------------------------------------------------------------------


def test_a_discussion_renders_markdown_comments_and_the_panel(
    browser: WebDriver, server: LiveServer, project: Path
) -> None:
    assert code(run("comment", NAME, "This is **bold** and `code`.", "--author", "Ann")) == 0
    text = "Mostly fine.\n\nQ: What about account recovery?\n\nDECISION: Use passkeys first."
    assert code(run("comment", NAME, text, "--author", "Rob", "--vote", "CHANGES")) == 0
    open_page(browser, server, f"/d/{NAME}")
    assert browser.find_element(By.ID, "title").text == "Auth"
    assert browser.find_element(By.ID, "phase").text == "initial_feedback"
    assert browser.find_element(By.ID, "status").text == "OPEN"
    articles = browser.find_elements(By.CSS_SELECTOR, "#comments article.comment")
    assert [a.find_element(By.CLASS_NAME, "author").text for a in articles] == ["Ann", "Rob"]
    assert articles[0].find_element(By.CSS_SELECTOR, ".body strong").text == "bold"
    assert articles[0].find_element(By.CSS_SELECTOR, ".body code").text == "code"
    assert "**" not in articles[0].text
    assert articles[1].find_element(By.CSS_SELECTOR, ".vote").text == "CHANGES"
    panel = browser.find_element(By.ID, "panel")
    assert "What about account recovery?" in panel.find_element(By.ID, "panel-questions").text
    assert "Use passkeys first." in panel.find_element(By.ID, "panel-decisions").text
    votes = panel.find_element(By.ID, "panel-votes").text
    assert "Rob" in votes and "CHANGES" in votes
    # A question in the panel links to its comment.
    link = panel.find_element(By.CSS_SELECTOR, "#panel-questions a")
    assert link.get_attribute("href").endswith(f"#{articles[1].get_attribute('id')}")
    assert console_errors(browser) == []


def test_a_comment_posted_from_the_page_by_keyboard_lands_in_the_file_and_on_the_page(
    browser: WebDriver, server: LiveServer, project: Path
) -> None:
    open_page(browser, server, f"/d/{NAME}")
    mark_page(browser)
    # Refused input: the server's message shows, nothing is written.
    before = file_text(project)
    browser.find_element(By.ID, "author").send_keys("Zoë")
    browser.find_element(By.CSS_SELECTOR, '#comment-form button[type="submit"]').click()
    notice = browser.find_element(By.ID, "notice")
    wait_for(lambda: "text" in notice.text and "error" in notice.get_attribute("class"))
    assert file_text(project) == before
    refused = console_errors(browser)  # the browser logs every failed request
    assert len(refused) == 1 and "400" in refused[0], refused
    author = browser.find_element(By.ID, "author")
    author.send_keys(Keys.CONTROL, "a")
    author.send_keys("Zoë")
    # Keyboard only from here: Tab into the text, type, Tab to the vote radios ("no vote" is
    # checked), arrow to READY, Tab to the button, Enter.
    author.send_keys(Keys.TAB)
    active = browser.switch_to.active_element
    assert active.get_attribute("id") == "comment-text"
    active.send_keys("Posted from the **browser**.")
    active.send_keys(Keys.TAB)
    active = browser.switch_to.active_element
    assert active.get_attribute("name") == "vote" and active.get_attribute("value") == ""
    active.send_keys(Keys.ARROW_RIGHT)
    active = browser.switch_to.active_element
    assert active.get_attribute("value") == "READY" and active.is_selected()
    active.send_keys(Keys.TAB)
    active = browser.switch_to.active_element
    assert active.get_attribute("type") == "submit"
    active.send_keys(Keys.ENTER)

    wait_for(lambda: "Posted from the **browser**." in file_text(project))
    d = Discussion.load(path_of(project), Workspace.discover())
    assert d.comments[-1].author == "Zoë" and d.comments[-1].vote == "READY"
    shown = wait_for_comment(browser, "Posted from the browser.")
    assert "Zoë" in shown and "READY" in shown
    article = browser.find_elements(By.CSS_SELECTOR, "#comments article.comment")[-1]
    assert article.find_element(By.CSS_SELECTOR, ".body strong").text == "browser"
    wait_for(lambda: "Zoë" in browser.find_element(By.ID, "panel-votes").text)
    notice = browser.find_element(By.ID, "notice")
    wait_for(lambda: "READY" in notice.text)
    # The form is ready for the next comment; the page was never reloaded.
    assert browser.find_element(By.ID, "comment-text").get_attribute("value") == ""
    assert not_reloaded(browser)
    # The name is remembered for the next visit.
    browser.refresh()
    wait_for(lambda: browser.find_element(By.ID, "author").get_attribute("value") == "Zoë")
    assert console_errors(browser) == []


def test_an_append_by_another_process_appears_on_the_open_page(
    browser: WebDriver, server: LiveServer, project: Path
) -> None:
    open_page(browser, server, f"/d/{NAME}")
    mark_page(browser)
    assert comment_texts(browser) == []
    done = cli_subprocess(
        project, "comment", NAME, "From the terminal.\n\nQ: Who owns this?", "--author", "Ann"
    )
    assert done.returncode == 0, done.stderr
    shown = wait_for_comment(browser, "From the terminal.")
    assert shown.startswith("Ann")
    wait_for(lambda: "Who owns this?" in browser.find_element(By.ID, "panel").text)
    # A second append, by a plain write to the file (an editor, another tool).
    d = Discussion.load(path_of(project), Workspace.discover())
    d.add_comment("Bea", "Written by the library.", vote="REJECT")
    d.save()
    shown = wait_for_comment(browser, "Written by the library.")
    assert "REJECT" in shown
    assert len(comment_texts(browser)) == 2
    wait_for(lambda: browser.find_element(By.ID, "comment-count").text == "2")
    assert not_reloaded(browser)
    assert console_errors(browser) == []


def test_an_edit_that_is_not_an_append_reloads_the_page(
    browser: WebDriver, server: LiveServer, project: Path
) -> None:
    assert code(run("comment", NAME, "Before the edit.", "--author", "Ann")) == 0
    open_page(browser, server, f"/d/{NAME}")
    mark_page(browser)
    assert "Log in with passkeys." in browser.find_element(By.ID, "preamble").text
    path = path_of(project)
    path.write_text(
        file_text(project).replace("Log in with passkeys.", "Log in with EDITED keys."),
        encoding="utf-8",
    )
    wait_for(lambda: "EDITED" in browser.find_element(By.ID, "preamble").text)
    assert browser.execute_script("return window.__kept") is None  # a new page
    assert wait_for_comment(browser, "Before the edit.")
    # The new page follows the file again.
    assert code(run("comment", NAME, "After the edit.", "--author", "Bob")) == 0
    wait_for_comment(browser, "After the edit.")
    assert console_errors(browser) == []


# -- a turn streaming in ---------------------------------------------------------------------


def test_a_turn_started_from_the_page_streams_before_the_answer_is_complete(
    browser: WebDriver,
    project: Path,
    providers_file,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gate = tmp_path / "gate"
    monkeypatch.setenv("SLOW_PRINT_GATE", str(gate))
    slow_provider(project, providers_file, "PARTIAL-LINE here", "VOTE: READY")
    for n in range(8):  # a page taller than the window: the answers stream above the forms
        long = f"Comment {n}.\n\n" + "A paragraph of earlier discussion. " * 30
        assert code(run("comment", NAME, long, "--author", f"P{n}")) == 0
    # The gate opens in any case before the server stops (a failed test must not leave the
    # provider waiting).
    with serving(browser) as server, contextlib.ExitStack() as stack:
        stack.callback(gate.touch)
        open_page(browser, server, f"/d/{NAME}")
        mark_page(browser)
        only_architect(browser)
        browser.find_element(By.ID, "callout").send_keys("Is the plan sound?")
        browser.find_element(By.ID, "turn-button").click()

        streamed = '#stream article.streaming[data-name="AI-Architect"] pre.body'
        wait_for(
            lambda: "PARTIAL-LINE here" in browser.find_element(By.CSS_SELECTOR, streamed).text,
            15,
            message="the streamed line on the page",
        )
        # In view: the page scrolled up to the streamed answer from the form below it.
        box = browser.find_element(By.CSS_SELECTOR, streamed)
        top, bottom, height = browser.execute_script(
            "const r = arguments[0].getBoundingClientRect();"
            "return [r.top, r.bottom, window.innerHeight];",
            box,
        )
        assert top >= 0 and bottom <= height, (top, bottom, height)
        screenshot(browser, tmp_path / "screenshots", "streaming-desktop", full=False)
        # On the page before it is in the file: the provider is still waiting for the gate.
        assert not gate.exists()
        assert "PARTIAL-LINE" not in file_text(project)
        assert not any("PARTIAL-LINE" in t for t in comment_texts(browser))
        header = browser.find_element(By.CSS_SELECTOR, "#stream article.streaming header")
        assert "AI-Architect" in header.text and "slow" in header.text
        assert "started" in browser.find_element(By.ID, "notice").text

        gate.touch()
        shown = wait_for_comment(browser, "PARTIAL-LINE here", 15)
        assert shown.startswith("AI-Architect") and "READY" in shown
        assert "PARTIAL-LINE here" in file_text(project)
        # The streamed box goes once the answer is in the comments: shown once, not twice.
        wait_for(lambda: not browser.find_elements(By.CSS_SELECTOR, "#stream article"), 8)
        wait_for(lambda: "Turn finished" in browser.find_element(By.ID, "notice").text)
        assert not_reloaded(browser)
        assert console_errors(browser) == []


def test_rounds_run_from_the_page_report_how_they_stopped(
    browser: WebDriver,
    project: Path,
    providers_file,  # type: ignore[no-untyped-def]
) -> None:
    slow_provider(project, providers_file, "Round answer.", "VOTE: READY")
    with serving(browser) as server:
        open_page(browser, server, f"/d/{NAME}")
        mark_page(browser)
        only_architect(browser)
        rounds = browser.find_element(By.ID, "rounds")
        rounds.send_keys(Keys.CONTROL, "a")
        rounds.send_keys("1")
        browser.find_element(By.ID, "run-button").click()
        notice = browser.find_element(By.ID, "notice")
        wait_for(lambda: "Run stopped after 1 round(s)" in notice.text, 20)
        wait_for_comment(browser, "Round answer.")
        assert "Round answer." in file_text(project)
        assert not_reloaded(browser)
        assert console_errors(browser) == []


# -- hostile comments ------------------------------------------------------------------------


def assert_inert(browser: WebDriver) -> None:
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    article = next(
        a
        for a in browser.find_elements(By.CSS_SELECTOR, "#comments article.comment")
        if "Hostile" in a.text
    )
    body = article.find_element(By.CLASS_NAME, "body")
    # Shown as text, not made into elements.
    assert "<script>window.__pwned=1</script>" in body.text
    assert '<img src=x onerror="window.__pwned=2">' in body.text
    assert "[link](javascript:window.__pwned=3)" in body.text
    assert body.find_elements(By.CSS_SELECTOR, "script, img, iframe, [onerror]") == []
    links = [a.get_attribute("href") or "" for a in body.find_elements(By.TAG_NAME, "a")]
    assert not any(h.lower().startswith("javascript:") for h in links)
    assert (
        browser.execute_script(
            "return document.querySelectorAll('a[href^=\"javascript:\" i]').length"
        )
        == 0
    )


def test_a_hostile_comment_never_runs_on_load_or_when_it_arrives_live(
    browser: WebDriver, server: LiveServer, project: Path
) -> None:
    assert code(run("comment", NAME, HOSTILE, "--author", "Mallory")) == 0
    open_page(browser, server, f"/d/{NAME}")
    assert_inert(browser)
    # The same arriving while a page is open (another writer, then the page's own form).
    assert code(run("new", "Live", "--context", "Nothing yet.")) == 0
    open_page(browser, server, "/d/live.md")
    mark_page(browser)
    done = cli_subprocess(project, "comment", "live.md", HOSTILE, "--author", "Mallory")
    assert done.returncode == 0, done.stderr
    wait_for_comment(browser, "Hostile")
    assert_inert(browser)
    text = browser.find_element(By.ID, "comment-text")
    text.send_keys("Second: <script>window.__pwned=4</script><svg onload=window.__pwned=5>")
    browser.find_element(By.CSS_SELECTOR, '#comment-form button[type="submit"]').click()
    wait_for_comment(browser, "Second:")
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert browser.find_elements(By.CSS_SELECTOR, "#comments svg, #comments script") == []
    # Clicking whatever links the comments have runs nothing either.
    for link in browser.find_elements(By.CSS_SELECTOR, "#comments .body a"):
        link.click()
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert not_reloaded(browser)
    assert console_errors(browser) == []


# -- phone width -----------------------------------------------------------------------------


def test_at_phone_width_nothing_scrolls_sideways_and_the_panel_follows_the_comments(
    browser: WebDriver, server: LiveServer, project: Path
) -> None:
    long_word = "x" * 300
    text = (
        f"A long word: {long_word}\n\nA long URL: https://example.org/{'a/' * 120}\n\n"
        f"```\n{'code ' * 80}\n```\n\n| a | b | c |\n|---|---|---|\n| {'w ' * 60} | {'v' * 90} | c |\n\n"
        f"Q: {'a very long question ' * 20}?"
    )
    assert code(run("comment", NAME, text, "--author", "A" * 80, "--vote", "READY")) == 0
    with phone_viewport(browser):
        for page in (f"/d/{NAME}", "/"):
            open_page(browser, server, page)
            width, inner = browser.execute_script(
                "return [document.documentElement.scrollWidth, window.innerWidth]"
            )
            assert inner == 390
            assert width <= inner, f"{page} scrolls sideways: {width} > {inner}"
        open_page(browser, server, f"/d/{NAME}")
        comments = browser.find_element(By.ID, "comments").rect
        panel = browser.find_element(By.ID, "panel").rect
        assert panel["y"] >= comments["y"] + comments["height"]
        assert panel["x"] >= 0 and panel["x"] + panel["width"] <= 390
        # The forms fit too.
        form = browser.find_element(By.ID, "comment-form").rect
        assert form["x"] >= 0 and form["x"] + form["width"] <= 390
    # At desktop width the panel sits beside the comments.
    open_page(browser, server, f"/d/{NAME}")
    comments = browser.find_element(By.ID, "comments").rect
    panel = browser.find_element(By.ID, "panel").rect
    assert panel["x"] >= comments["x"] + comments["width"]
    assert console_errors(browser) == []


# -- read-only -------------------------------------------------------------------------------


def test_without_the_token_the_page_is_read_only(
    browser: WebDriver, server: LiveServer, project: Path
) -> None:
    assert code(run("comment", NAME, "Visible to all.", "--author", "Ann")) == 0
    open_page(browser, server, f"/d/{NAME}", token=False)
    controls = browser.find_element(By.ID, "controls")
    assert "Read-only" in controls.text
    assert "readonly" in controls.get_attribute("class")
    assert browser.execute_script("return document.forms.length") == 0
    for id_ in ("comment-form", "turn-form", "advance-button", "close-button", "post-button"):
        assert browser.find_elements(By.ID, id_) == [], id_
    assert browser.find_elements(By.CSS_SELECTOR, 'meta[name="discussions-token"]') == []
    assert wait_for_comment(browser, "Visible to all.")
    # Exports are still offered, and the page still follows the file.
    assert browser.find_elements(By.CSS_SELECTOR, "#controls a[download]")
    mark_page(browser)
    assert code(run("comment", NAME, "Still live.", "--author", "Bob")) == 0
    wait_for_comment(browser, "Still live.")
    assert not_reloaded(browser)
    # A wrong token in the address is not taken.
    browser.get(f"{server.url}/d/{NAME}?token=wrong")
    assert browser.find_elements(By.ID, "comment-form") == []
    assert console_errors(browser) == []


# -- phase and status ------------------------------------------------------------------------


def test_advance_close_and_reopen_from_the_page_update_it_live(
    browser: WebDriver, server: LiveServer, project: Path
) -> None:
    open_page(browser, server, f"/d/{NAME}")
    mark_page(browser)
    phase = browser.find_element(By.ID, "phase")
    status = browser.find_element(By.ID, "status")
    assert (phase.text, status.text) == ("initial_feedback", "OPEN")
    before_title = browser.find_element(By.ID, "phase-title").text

    browser.find_element(By.ID, "advance-button").click()
    wait_for(lambda: phase.text == "detailed_review")
    assert Discussion.load(path_of(project), Workspace.discover()).phase == "detailed_review"
    wait_for(lambda: "detailed_review" in browser.find_element(By.ID, "panel-phase").text)
    title = browser.find_element(By.ID, "phase-title").text
    assert title and title != before_title  # the phase's title follows the phase
    wait_for(lambda: "detailed_review" in browser.find_element(By.ID, "notice").text)

    Select(browser.find_element(By.ID, "close-status")).select_by_visible_text("DECIDED")
    browser.find_element(By.ID, "close-button").click()
    wait_for(lambda: status.text == "DECIDED")
    assert "status-decided" in status.get_attribute("class")
    assert Discussion.load(path_of(project), Workspace.discover()).status == "DECIDED"
    wait_for(lambda: "DECIDED" in browser.find_element(By.ID, "panel-status").text)

    browser.find_element(By.ID, "reopen-button").click()
    wait_for(lambda: status.text == "OPEN")
    assert "status-open" in status.get_attribute("class")
    # A change made elsewhere shows too.
    done = cli_subprocess(project, "advance", NAME)
    assert done.returncode == 0, done.stderr
    wait_for(lambda: phase.text != "detailed_review")
    assert not_reloaded(browser)
    assert console_errors(browser) == []


# -- the list: consensus, a new discussion; the way back; screenshots ------------------------


def screenshot(browser: WebDriver, folder: Path, name: str, *, full: bool = True) -> Path:
    """The whole page (`full`) or what the window shows, as a PNG in the test's own output
    folder (not the repository)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    if not full:
        assert browser.save_screenshot(str(path))
        return path
    height = browser.execute_script("return document.documentElement.scrollHeight")
    width = browser.execute_script("return window.innerWidth")
    browser.execute_cdp_cmd(  # type: ignore[attr-defined]
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": min(int(height), 4000), "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        assert browser.save_screenshot(str(path))
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})  # type: ignore[attr-defined]
    assert path.stat().st_size > 1000
    return path


def test_the_list_says_where_each_vote_stands_and_makes_new_discussions(
    browser: WebDriver, server: LiveServer, project: Path, tmp_path: Path
) -> None:
    assert code(run("new", "Billing retries", "--context", "Retry failed charges.")) == 0
    assert code(run("comment", NAME, "Fine.", "--author", "Ann", "--vote", "READY")) == 0
    open_page(browser, server, "/")
    cells = {
        row.find_element(By.CSS_SELECTOR, "td a").text: row.find_elements(By.TAG_NAME, "td")[3].text
        for row in browser.find_elements(By.CSS_SELECTOR, "#discussions tbody tr")
    }
    assert cells == {"Auth": "READY, not reached", "Billing retries": "no votes"}, cells
    shots = tmp_path / "screenshots"
    # A new discussion from the list: title, template, context.
    browser.find_element(By.CSS_SELECTOR, "#new-discussion summary").click()
    screenshot(browser, shots, "list-desktop")
    browser.find_element(By.ID, "new-title").send_keys("Rate limits")
    Select(browser.find_element(By.ID, "new-template")).select_by_value("adr")
    browser.find_element(By.ID, "new-context").send_keys("Clients hammer the API.\nWe need limits.")
    browser.find_element(By.ID, "new-button").click()
    wait_for(lambda: browser.current_url.endswith("/d/rate-limits.md"), 15)
    wait_for(lambda: browser.find_element(By.ID, "title").text == "ADR: Rate limits")
    assert "Clients hammer the API." in browser.find_element(By.ID, "preamble").text
    d = Discussion.load(path_of(project, "rate-limits.md"), Workspace.discover())
    assert d.template is not None and d.template.name == "adr"
    screenshot(browser, shots, "discussion-desktop")
    # Back to the list: the new one is there.
    browser.find_element(By.ID, "to-list").click()
    wait_for(lambda: browser.find_element(By.ID, "title").text == "Discussions")
    assert "ADR: Rate limits" in browser.find_element(By.ID, "discussions").text
    # A name that is taken: the server's message, nothing written, still on the list.
    browser.find_element(By.CSS_SELECTOR, "#new-discussion summary").click()
    browser.find_element(By.ID, "new-title").send_keys("Auth")
    browser.find_element(By.ID, "new-button").click()
    notice = browser.find_element(By.ID, "notice")
    wait_for(lambda: "already exists" in notice.text)
    assert browser.current_url.rstrip("/") == server.url
    assert len(console_errors(browser)) == 1  # the refused request
    with phone_viewport(browser):
        open_page(browser, server, "/")
        browser.find_element(By.CSS_SELECTOR, "#new-discussion summary").click()
        width = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= 390
        form = browser.find_element(By.ID, "new-form").rect
        assert form["x"] >= 0 and form["x"] + form["width"] <= 390
        screenshot(browser, shots, "list-phone")
        open_page(browser, server, f"/d/{NAME}")
        assert browser.find_element(By.ID, "to-list").is_displayed()
        screenshot(browser, shots, "discussion-phone")
    assert console_errors(browser) == []
