"""A long discussion's page is served with its newest comments; the older ones follow (the
page's script fetches them) or are one link away (without scripts). Nothing is lost, and what
arrives later is escaped exactly as what came first."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace
from discussions.views.html import comment_html
from discussions.web.app import ALL_COMMENTS, FIRST_VIEW

from ..conftest import code, run
from ..support.browser import console_errors
from ..support.waiting import wait_for
from ..support.web import TOKEN, LiveServer

NAME = "long.md"
OLDER = 30
HOSTILE = (
    "Hostile: <script>window.__pwned=1</script> and "
    '<img src=x onerror="window.__pwned=2"> and [link](javascript:window.__pwned=3)'
)


@pytest.fixture
def project(isolated: Path) -> Path:
    """A discussion of `FIRST_VIEW` + `OLDER` comments: the second a hostile one with a
    question (an item the panel links to), the rest numbered."""
    assert code(run("new", "Long", "--context", "Many comments.")) == 0
    d = Discussion.load(isolated / "discussions" / NAME, Workspace.discover())
    for n in range(FIRST_VIEW + OLDER):
        text = f"{HOSTILE}\n\nQ: is this escaped?" if n == 1 else f"Comment number {n}."
        d.add_comment("Robin", text)
    d.save()
    return isolated


@pytest.fixture
def server(project: Path) -> Iterator[LiveServer]:
    s = LiveServer(Workspace.discover())
    try:
        yield s
    finally:
        s.stop()


def articles(page: str) -> list[str]:
    return re.findall(r'<article class="comment" id="(L\d+)"', page)


def test_the_page_has_the_newest_comments_and_a_link_to_all(
    server: LiveServer, project: Path
) -> None:
    d = Discussion.load(project / "discussions" / NAME)
    lines = [f"L{c.line}" for c in d.comments]
    page = server.get(f"/d/{NAME}").text
    assert articles(page) == lines[OLDER:]
    first = d.comments[OLDER].line
    assert (
        f'<p id="older" data-before="{first}" data-count="{OLDER}">'
        f'<a id="older-link" href="{ALL_COMMENTS}">Show the {OLDER} older comments</a></p>'
    ) in page
    # The panel's link to the question asked in an older comment leads to the page with all.
    assert f'href="{ALL_COMMENTS}#{lines[1]}">is this escaped?</a>' in page
    assert f'<span id="comment-count">{OLDER + FIRST_VIEW}</span>' in page

    every = server.get(f"/d/{NAME}{ALL_COMMENTS}").text
    assert articles(every) == lines
    assert 'id="older"' not in every and f'href="#{lines[1]}">is this escaped?</a>' in every


def test_the_older_comments_come_rendered_and_escaped_as_on_the_page(
    server: LiveServer, project: Path
) -> None:
    d = Discussion.load(project / "discussions" / NAME)
    first = d.comments[OLDER].line
    reply = server.get(f"/api/discussions/{NAME}/comments?before={first}")
    assert reply.status == 200
    got = reply.json()["comments"]
    assert [c["line"] for c in got] == [c.line for c in d.comments[:OLDER]]
    assert [c["html"] for c in got] == [comment_html(c) for c in d.comments[:OLDER]]
    hostile = got[1]["html"]
    assert "&lt;script&gt;" in hostile and "<script" not in hostile
    assert "<img" not in hostile and 'href="javascript' not in hostile
    assert server.get(f"/api/discussions/{NAME}/comments?before=x").status == 400
    assert server.get("/api/discussions/nope.md/comments?before=1").status == 404


def test_a_short_discussion_is_served_whole(server: LiveServer, project: Path) -> None:
    assert code(run("new", "Short", "--context", "Few.")) == 0
    assert code(run("comment", "short.md", "One.", "--author", "Robin")) == 0
    page = server.get("/d/short.md").text
    assert len(articles(page)) == 1 and 'id="older"' not in page


def test_in_the_browser_the_older_comments_arrive_inert_and_the_links_stay(
    browser: object, server: LiveServer, project: Path
) -> None:
    pytest.importorskip("selenium")
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver

    assert isinstance(browser, WebDriver)
    console_errors(browser)
    d = Discussion.load(project / "discussions" / NAME)
    lines = [f"L{c.line}" for c in d.comments]
    try:
        # Opened at an older comment: it arrives, and the page goes to it.
        browser.get(f"{server.url}/?token={TOKEN}")
        browser.get(f"{server.url}/d/{NAME}#{lines[3]}")

        def shown() -> list[str]:
            found = browser.find_elements(By.CSS_SELECTOR, "#comments article.comment")
            return [a.get_attribute("id") or "" for a in found]

        wait_for(lambda: shown() == lines, 15, message="every comment, in order")
        assert browser.find_elements(By.ID, "older") == []
        in_view = (
            "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
            "return r.top > -2 && r.top < window.innerHeight / 2"
        )
        wait_for(lambda: browser.execute_script(in_view, lines[3]), 5, message="at the comment")
        assert browser.execute_script("return typeof window.__pwned") == "undefined"
        body = browser.find_element(By.ID, lines[1]).find_element(By.CLASS_NAME, "body")
        assert "<script>window.__pwned=1</script>" in body.text
        assert body.find_elements(By.CSS_SELECTOR, "script, img, iframe, [onerror]") == []
        question = browser.find_element(By.LINK_TEXT, "is this escaped?")
        assert question.get_attribute("href") == f"{server.url}/d/{NAME}#{lines[1]}"
        for link in body.find_elements(By.CSS_SELECTOR, "a"):
            link.click()
        assert browser.execute_script("return typeof window.__pwned") == "undefined"
        assert console_errors(browser) == []
    finally:
        browser.get("about:blank")


def test_the_older_comments_are_read_afresh_after_the_file_changed(
    server: LiveServer, project: Path
) -> None:
    path = project / "discussions" / NAME
    d = Discussion.load(path)
    first = d.comments[OLDER].line
    assert "Comment number 0." in server.get(f"/d/{NAME}{ALL_COMMENTS}").text
    server.get(f"/d/{NAME}")  # the page, parsed: kept for the older comments' request
    path.write_text(path.read_text().replace("Comment number 0.", "Edited zero."))
    got = server.get(f"/api/discussions/{NAME}/comments?before={first}").json()["comments"]
    assert "Edited zero." in got[0]["html"]


def test_the_page_s_event_stream_reuses_the_page_s_parse(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page asks for its events as soon as it is loaded: while the file is unchanged, the
    discussion the page was rendered from serves (a long one is not parsed again), and the
    stream brings a comment appended after it."""
    from discussions.web import app

    loads: list[str] = []

    class Counted(Discussion):
        @classmethod
        def load(cls, *args: Any, **kwargs: Any) -> Discussion:
            if threading.current_thread().name != "discussions-warm":  # not rendering ahead
                loads.append(str(args[0]))
            return Discussion.load(*args, **kwargs)

    monkeypatch.setattr(app, "Discussion", Counted)
    s = LiveServer(Workspace.discover())
    try:
        page = s.get(f"/d/{NAME}").text
        count = re.search(r'name="discussions-count" content="(\d+)"', page)
        size = re.search(r'name="discussions-size" content="(\d+)"', page)
        assert count and size
        stream = s.events(f"/api/discussions/{NAME}/events?count={count[1]}&size={size[1]}&hash=x")
        assert stream.status == 200
        assert len(loads) == 1
        d = Discussion.load(project / "discussions" / NAME, Workspace.discover())
        d.add_comment("Robin", "After the page.")
        d.save()
        sent = stream.next("comment")["comments"]
        assert "After the page." in sent[-1]["html"]
        stream.close()
    finally:
        s.stop()
