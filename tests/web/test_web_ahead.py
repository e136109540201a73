"""Rendering ahead: the server's background render of every discussion, and of the older
comments of a page just sent. It renders what the pages show, and a chunk at a time, each
chunk after any page being made (a page asked for meanwhile shares the processor with one
chunk at most, not with the rest of a long discussion)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from discussions.model.discussion import Comment, Discussion
from discussions.settings.workspace import Workspace
from discussions.views import html
from discussions.web.app import AHEAD_CHUNK, FIRST_VIEW, Settings, Site, create_app

from ..support.web import TOKEN

NAME = "long.md"
COUNT = 2 * AHEAD_CHUNK + FIRST_VIEW + 3


def long_discussion(folder: Path, count: int, word: str) -> Path:
    d = Discussion.create("Long", directory=folder)
    for n in range(count):
        d.add_comment("Robin", f"Comment {n} about {word} (rendered **once**).")
    d.save()
    return d.path


def record(monkeypatch: pytest.MonkeyPatch, site: Site) -> list[str | int]:
    """What rendering ahead does, in order: ``look`` for each wait for no page being made,
    the number of comments for each call of `render_bodies`."""
    events: list[str | int] = []
    wait_idle: Callable[[], None] = site.wait_idle
    render_bodies: Callable[[Sequence[Comment]], None] = html.render_bodies

    def look() -> None:
        events.append("look")
        wait_idle()

    def render(comments: Sequence[Comment]) -> None:
        events.append(len(comments))
        render_bodies(comments)

    monkeypatch.setattr(site, "wait_idle", look)
    monkeypatch.setattr(html, "render_bodies", render)
    return events


def assert_chunked(events: list[str | int], count: int) -> None:
    renders = [e for e in events if isinstance(e, int)]
    assert sum(renders) == count
    assert all(0 < n <= AHEAD_CHUNK for n in renders), renders
    assert all(events[i - 1] == "look" for i, e in enumerate(events) if isinstance(e, int))


def test_the_background_render_renders_a_chunk_at_a_time_after_any_page_being_made(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_discussion(isolated / "discussions", COUNT, isolated.name)
    app = create_app(Workspace.discover(), Settings(TOKEN), warm_cache=False)
    site: Site = app.state.site
    events = record(monkeypatch, site)
    site.warm()
    assert_chunked(events, COUNT)


def test_the_older_comments_of_a_page_are_rendered_a_chunk_at_a_time(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = long_discussion(isolated / "discussions", COUNT, isolated.name + " older")
    app = create_app(Workspace.discover(), Settings(TOKEN), warm_cache=False)
    events = record(monkeypatch, app.state.site)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert client.get(f"/d/{NAME}").status_code == 200
        first = Discussion.load(path).comments[COUNT - FIRST_VIEW].line
        older = client.get(f"/api/discussions/{NAME}/comments?before={first}")  # joins it
    assert len(older.json()["comments"]) == COUNT - FIRST_VIEW
    assert_chunked(events, COUNT - FIRST_VIEW)


def test_a_comment_rendered_ahead_is_not_rendered_again_for_its_card(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A comment the engine appended a block to (its evidence, read as part of the comment
    above: the block has no ``Name:`` line) is rendered ahead as its card shows it."""
    d = Discussion.create("Talk", directory=isolated / "discussions")
    d.add_comment("Rob", f"Let me look at **{isolated.name}**.")
    d.save()
    with d.path.open("a", encoding="utf-8") as f:
        f.write(
            "<!-- EVIDENCE: 1 | request: read nothing | by: Rob | status: refused | "
            "reason: test -->\n\n*Evidence 1 for Rob, refused: read nothing (test)*\n\n---\n"
        )
    [comment] = Discussion.load(d.path).comments
    assert "<!-- EVIDENCE: 1" in comment.body
    rendered: list[str] = []
    render_markdown = html.render_markdown

    def counted(text: str) -> str:
        rendered.append(text)
        return render_markdown(text)

    monkeypatch.setattr(html, "render_markdown", counted)
    html.render_bodies([comment])
    assert len(rendered) == 1
    card = html.comment_html(comment)
    assert len(rendered) == 1  # the card's body is the one rendered ahead
    assert f"<strong>{isolated.name}</strong>" in card
