"""When each comment was said: every writer records it (``at:`` in the comment's metadata
line), the parser reads it back, and the terminal app, the web view and the exports show it.
A hand-typed comment has none, and nothing complains."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from discussions import Discussion
from discussions.settings.workspace import Workspace

from ..conftest import code, out, result_of, run, script_command, write

STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
FILE = Path("discussions") / "auth.md"


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def disc(isolated: Path) -> Path:
    assert code(run("new", "Auth", "--context", "Log in with passkeys.")) == 0
    return isolated / FILE


def written_between(c: object, before: datetime, after: datetime) -> str:
    """The comment's time, checked to lie in [before, after]; returned as the file shows it."""
    at = getattr(c, "at", None)
    assert isinstance(at, datetime), at
    assert at.tzinfo is not None and at.utcoffset() == UTC.utcoffset(None)
    assert before <= at <= after
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------- writers


def test_cli_comment_records_when_it_was_written(disc: Path) -> None:
    before = now()
    r = run("comment", "auth.md", "Looks right.", "--author", "Rob", "--vote", "ready")
    after = now()
    assert code(r) == 0, out(r)
    d = Discussion.load(disc)
    stamp = written_between(d.comments[-1], before, after)
    # One metadata line right under the Name: line; nothing else of the comment changed.
    assert f"Name: Rob\n\n<!-- at: {stamp} -->\n\nLooks right.\n\nVOTE: READY\n" in (
        disc.read_text(encoding="utf-8")
    )
    assert d.comments[-1].vote == "READY" and d.warnings == []
    data = result_of(run("status", "auth.md", "--json"))
    assert data["comments"][-1]["at"] == stamp  # type: ignore[index]
    assert code(run("check", "auth.md")) == 0


def test_a_person_cannot_forge_the_time_through_the_tool(disc: Path) -> None:
    before = now()
    d = Discussion.load(disc)
    d.add_comment("Rob", "<!-- at: 1999-01-01T00:00:00Z -->\n\nBack-dated?")
    d.save()
    c = Discussion.load(disc).comments[-1]
    written_between(c, before, now())
    assert "&lt;!-- at: 1999" in c.body


def test_a_hand_typed_comment_has_no_time_and_nothing_complains(isolated: Path) -> None:
    path = write(
        isolated / "discussions" / "hand.md",
        """
        <!-- DISCUSSION -->
        <!-- Title: Hand -->
        <!-- Phase: initial_feedback -->
        <!-- Status: OPEN -->

        # Hand

        ---

        Name: Rob

        Typed in an editor.

        ---

        Name: Ann

        <!-- at: last tuesday -->

        A time nobody can read is no time.

        ---
        """,
    )
    d = Discussion.load(path)
    assert [c.at for c in d.comments] == [None, None]
    assert d.warnings == []
    assert [c["at"] for c in d.to_dict()["comments"]] == [None, None]
    r = run("check", str(path))
    assert code(r) == 0, out(r)


def test_an_ai_turn_records_when_each_answer_was_written(disc: Path) -> None:
    before = now()
    r = run("turn", "auth.md", "@architect", "@security", "--provider", "mock")
    after = now()
    assert code(r) == 0, out(r)
    d = Discussion.load(disc)
    assert len(d.comments) == 2
    for c in d.comments:
        stamp = written_between(c, before, after)
        assert c.meta["provider"] == "mock" and "at" not in c.meta
        assert f"| at: {stamp} -->" in disc.read_text(encoding="utf-8")
    # The digest still covers the text alone: no integrity warning.
    assert d.warnings == []
    assert code(run("check", "auth.md")) == 0


def test_ai_output_cannot_forge_the_time(
    disc: Path,
    isolated: Path,
    providers_file,  # type: ignore[no-untyped-def]
) -> None:
    answer = (
        "<!-- provider: forged | at: 1999-01-01T00:00:00Z -->\n"
        "<!-- at: 1999-01-01T00:00:00Z -->\n"
        "    <!-- at: 1999-01-01T00:00:00Z -->\n\nMy answer."
    )
    providers_file({"tricky": script_command("answer.py", json.dumps({"comment": answer}), "0")})
    write(isolated / "discussions.yaml", "providers:\n  default: tricky\n  fallback: []\n")
    before = now()
    r = run("turn", "auth.md", "@architect")
    assert code(r) == 0, out(r)
    c = Discussion.load(disc).comments[-1]
    written_between(c, before, now())
    assert c.meta["provider"] == "tricky"


def test_mcp_add_comment_records_and_reads_back_the_time(disc: Path) -> None:
    from discussions.ops.comments import comment
    from discussions.ops.service import DiscussionTools

    tools = DiscussionTools()
    before = now()
    comment(tools.workspace, tools.served(str(FILE)), "Rob", "Through MCP.")
    after = now()
    stamp = written_between(Discussion.load(disc).comments[-1], before, after)
    read = tools.read_discussion(str(FILE))
    assert read["comments"][-1]["at"] == stamp
    assert read["comments"][-1]["text"] == "Through MCP."  # what was said, without machine data


# --------------------------------------------------------------------------- readers


def readable(stamp: str) -> str:
    """How the views show a time: ``2026-11-23 20:10 UTC``."""
    return stamp[:10] + " " + stamp[11:16] + " UTC"


def test_exports_carry_the_time(disc: Path) -> None:
    assert code(run("comment", "auth.md", "Exported.", "--author", "Rob")) == 0
    stamp = Discussion.load(disc).comments[-1].to_dict()["at"]
    assert STAMP.fullmatch(stamp)
    r = run("export", "auth.md", "--format", "json", "--out", "-")
    assert code(r) == 0, out(r)
    data = json.loads(out(r))
    assert data["comments"][-1]["at"] == stamp
    r = run("export", "auth.md", "--format", "html", "--out", "-")
    assert code(r) == 0, out(r)
    assert f'<time datetime="{stamp}">{readable(stamp)}</time>' in out(r)


def test_a_comment_without_a_time_shows_none(isolated: Path) -> None:
    from discussions.views.html import comment_html

    path = write(
        isolated / "discussions" / "hand.md",
        """
        <!-- DISCUSSION -->
        <!-- Title: Hand -->

        ---

        Name: Rob

        Typed in an editor.

        ---
        """,
    )
    assert "<time" not in comment_html(Discussion.load(path).comments[0])


@pytest.fixture
def server(disc: Path) -> Iterator[object]:
    from ..support.web import LiveServer

    s = LiveServer(Workspace.discover())
    yield s
    s.stop()


def test_the_web_view_shows_when_a_comment_was_written(server, disc: Path) -> None:  # type: ignore[no-untyped-def]
    before = now()
    reply = server.post("/api/discussions/auth.md/comments", {"author": "Rob", "text": "Web."})
    assert reply.status == 201, reply.text
    stamp = written_between(Discussion.load(disc).comments[-1], before, now())
    page = server.get("/d/auth.md")
    assert page.status == 200
    assert f'<time datetime="{stamp}">{readable(stamp)}</time>' in page.text
    status = server.get("/api/discussions/auth.md").json()
    assert status["comments"][-1]["at"] == stamp


@pytest.mark.slow
@pytest.mark.asyncio
async def test_the_terminal_app_shows_when_a_comment_was_written(disc: Path) -> None:
    from ..support.tui import app_for, markdown_text, screen_lines, until

    d = Discussion.load(disc)
    d.add_comment("Rob", "Said at a time.")
    d.save()
    stamp = Discussion.load(disc).to_dict()["comments"][-1]["at"]
    app = app_for(FILE)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "Said at a time." in markdown_text(app))
        assert readable(stamp) in markdown_text(app)
        await pilot.press("x")  # the context folded away: the comment is on the screen
        await until(pilot, lambda: any(readable(stamp) in line for line in screen_lines(app)))
