"""The `discussions ui` app, driven with Textual's pilot at 80x24."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from textual.widgets import DataTable, Static

from discussions.cli import cli
from discussions.model.discussion import Discussion
from discussions.tui.app import DiscussionsApp
from discussions.tui.browser import BrowserScreen
from discussions.tui.common import HelpScreen
from discussions.tui.discussion import Composer, DiscussionScreen
from discussions.tui.personas import ParticipantsScreen
from discussions.tui.turn import TurnScreen

from ..conftest import script_command, write
from ..support.tui import app_for, markdown_text, screen_lines, until

pytestmark = pytest.mark.asyncio
SIZE = (80, 24)


def new(title: str, *extra: str) -> Path:
    r = CliRunner().invoke(cli, ["new", title, "--context", "Some context.", *extra])
    assert r.exit_code == 0, r.output
    return Path("discussions") / (title.lower().replace(" ", "-") + ".md")


def title_text(app: DiscussionsApp) -> str:
    return str(app.screen.query_one("#title", Static).render())


def comments_column(app: DiscussionsApp) -> list[str]:
    """The rows of the left column (comments), without the side panel."""
    return [line.split("│")[0].rstrip() for line in screen_lines(app)]


def is_heading(row: str, author: str) -> bool:
    """Whether a screen row is the heading of a comment by `author` (the author, then maybe
    the provider and the time in brackets)."""
    row = row.strip()
    return row == author or row.startswith(f"{author} (")


def panel_text(app: DiscussionsApp) -> str:
    return str(app.screen.query_one("#panel", Static).render())


@pytest.mark.slow
async def test_browser_lists_filters_and_opens(isolated: Path) -> None:
    new("Auth flow")
    new("Caching layer")
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(DataTable)
        await until(pilot, lambda: table.row_count == 2)
        assert isinstance(app.screen, BrowserScreen)
        titles = {str(table.get_row_at(i)[0]) for i in range(2)}
        assert titles == {"Auth flow", "Caching layer"}
        await pilot.click("#filter")
        await pilot.press(*"cach")
        await until(pilot, lambda: table.row_count == 1)
        await pilot.press("enter")  # to the table
        await pilot.press("enter")  # open
        await until(pilot, lambda: isinstance(app.screen, DiscussionScreen))
        assert "Caching layer" in markdown_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, BrowserScreen)
        await pilot.press("escape")  # clears the filter
        await until(pilot, lambda: table.row_count == 2)
        await pilot.press("s")  # status filter: OPEN, the one status the list has
        await until(pilot, lambda: table.row_count == 2 and "status=OPEN" in title_text(app))
        await pilot.press("s")  # back to every status: never a filter that matches nothing
        await until(pilot, lambda: table.row_count == 2 and "status=" not in title_text(app))
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.press("q")
    assert app.return_code in (0, None)


@pytest.mark.slow
async def test_typing_in_the_list_filters_without_tab_first(isolated: Path) -> None:
    new("Auth flow")
    new("Caching layer")
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(DataTable)
        await until(pilot, lambda: table.row_count == 2)
        assert table.has_focus
        await pilot.press(*"cach")  # a letter no key is bound to starts the filter
        await until(pilot, lambda: table.row_count == 1)
        await pilot.press("escape")  # clears the filter, back to the list
        await until(pilot, lambda: table.row_count == 2 and table.has_focus)
        await pilot.press("slash", "r")  # `/` first for a letter bound to a command (reload)
        await until(pilot, lambda: table.row_count == 1)
        assert str(table.get_row_at(0)[0]) == "Caching layer"


@pytest.mark.slow
async def test_view_follows_the_file_and_survives_an_invalid_one(isolated: Path) -> None:
    path = new("Auth flow")
    app = app_for(path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DiscussionScreen))
        assert "Phase" in panel_text(app)
        d = Discussion.load(path)
        d.add_comment("Rob", "Written elsewhere.\n\nQ: Which database?", vote="READY")
        d.save()
        await until(pilot, lambda: "Written elsewhere" in markdown_text(app), timeout=3)
        await until(pilot, lambda: "Which database?" in panel_text(app))
        assert "Rob: READY" in panel_text(app)
        path.write_bytes(b"\xff\xfe not utf-8 <!-- DISCUSSION -->\n")
        await until(pilot, lambda: "Cannot read" in panel_text(app) or "line" in panel_text(app))
        assert isinstance(app.screen, DiscussionScreen)


@pytest.mark.slow
async def test_composer_posts_a_comment_with_a_vote(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = new("Auth flow")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(isolated / "gitconfig"))
    (isolated / "gitconfig").write_text("[user]\n\tname = Composer Person\n", encoding="utf-8")
    app = app_for(path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DiscussionScreen))
        await pilot.press("c")
        assert isinstance(app.screen, Composer)
        await pilot.press(*"Posted from the TUI", "tab")
        app.screen.query_one("#vote").value = "CHANGES"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, DiscussionScreen))
        await until(pilot, lambda: "Posted from the TUI" in markdown_text(app))
    text = path.read_text(encoding="utf-8")
    assert "Posted from the TUI" in text and "VOTE: CHANGES" in text
    d = Discussion.load(path)
    assert d.comments[-1].author == "Composer Person"
    assert d.votes.get("Composer Person") == "CHANGES"


@pytest.mark.slow
async def test_turn_streams_each_answer_into_its_panel(
    isolated: Path,
    providers_file,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    gate = tmp_path / "gate"
    monkeypatch.setenv("SLOW_PRINT_GATE", str(gate))
    providers_file(
        {
            "slow": script_command(
                "slow_print.py", "0.1", "Reading the proposal.", "STREAMING-LINE", "VOTE: READY"
            ),
            "broken": script_command("fail.py", "2", "overloaded\n"),
        }
    )
    write(isolated / "discussions.yaml", "providers:\n  default: slow\n  fallback: [slow]\n")
    for alias, hint in (("architect", "slow"), ("security", "broken")):
        write(
            isolated / "participants" / f"{alias}.yaml",
            f"name: AI-{alias.title()}\nalias: {alias}\nrole: r\npersonality: p\n"
            f"provider_hint: {hint}\n",
        )
    path = new("Auth flow", "--participants", "architect,security")
    app = app_for(path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DiscussionScreen))
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TurnScreen))
        await pilot.press("ctrl+r")
        screen = app.screen
        assert isinstance(screen, TurnScreen)

        def shown(alias: str) -> str:
            panel = screen.panels.get(alias)
            return str(panel.render()) if panel else ""

        # the streamed line is on screen while the provider is still running
        await until(pilot, lambda: "STREAMING-LINE" in shown("architect"))
        assert not screen.query("#summary")
        assert "STREAMING-LINE" not in path.read_text(encoding="utf-8")
        await until(pilot, lambda: "exited with status 2" in shown("security"))
        gate.touch()
        await until(pilot, lambda: bool(screen.query("#summary")), timeout=20)
        assert "posted via slow" in shown("architect")
        assert "posted via slow after broken failed" in shown("security")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, DiscussionScreen))
        await until(pilot, lambda: "STREAMING-LINE" in markdown_text(app))
    assert path.read_text(encoding="utf-8").count("STREAMING-LINE") == 2  # once per participant


@pytest.mark.slow
async def test_advance_asks_first(isolated: Path) -> None:
    path = new("Auth flow")
    before = Discussion.load(path).phase
    app = app_for(path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DiscussionScreen))
        await pilot.press("a")
        await pilot.press("n")
        assert Discussion.load(path).phase == before
        await pilot.press("a")
        await pilot.press("y")
        await until(pilot, lambda: Discussion.load(path).phase != before)
        await until(pilot, lambda: Discussion.load(path).phase in panel_text(app))


@pytest.mark.slow
async def test_editor_key_runs_editor_and_reloads(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = new("Auth flow")
    script = tmp_path / "ed.sh"
    script.write_text(
        '#!/bin/sh\nprintf "\\n---\\n\\nName: Ed\\n\\nEdited in an editor.\\n\\n---\\n" >> "$1"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(script))
    monkeypatch.delenv("VISUAL", raising=False)
    app = app_for(path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DiscussionScreen))
        await pilot.press("e")
        await pilot.pause(0.5)
        assert "Edited in an editor" in path.read_text(encoding="utf-8")
        await until(pilot, lambda: "Edited in an editor" in markdown_text(app))


@pytest.mark.slow
async def test_participant_manager_lists_origins_edits_and_removes(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        isolated / "participants" / "reviewer.yaml",
        "name: AI-Reviewer\nalias: reviewer\nrole: Reviews\npersonality: p\n",
    )
    script = tmp_path / "ed.sh"
    script.write_text('#!/bin/sh\nsed -i "s/^role: .*/role: Edited role/" "$1"\n', encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(script))
    monkeypatch.delenv("VISUAL", raising=False)
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, ParticipantsScreen))
        table = app.screen.query_one(DataTable)
        rows = {str(table.get_row_at(i)[0]): table.get_row_at(i) for i in range(table.row_count)}
        assert rows["@reviewer"][3] == "project"
        assert "bundled" in {str(r[3]) for r in rows.values()}
        keys = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        table.move_cursor(row=keys.index("@reviewer"))
        await pilot.press("enter")
        await pilot.pause(0.1)
        await pilot.press("escape")
        await pilot.press("e")
        await until(
            pilot,
            lambda: "Edited role" in (isolated / "participants" / "reviewer.yaml").read_text(),
        )
        bundled = next(k for k, r in rows.items() if str(r[3]) == "bundled")
        table = app.screen.query_one(DataTable)
        table.move_cursor(row=keys.index(bundled))
        await pilot.press("d")  # bundled: refused
        await pilot.pause(0.1)
        assert isinstance(app.screen, ParticipantsScreen)
        table.move_cursor(row=keys.index("@reviewer"))
        await pilot.press("d", "y")
        await until(pilot, lambda: not (isolated / "participants" / "reviewer.yaml").exists())
        await pilot.press("escape")
        assert isinstance(app.screen, BrowserScreen)
    assert os.environ.get("NO_COLOR") == "1"


@pytest.mark.slow
async def test_new_discussion_from_the_browser(isolated: Path) -> None:
    new("Existing one")
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.screen.query_one(DataTable).row_count == 1)
        await pilot.press("n")
        await pilot.press(*"Rate limits")
        app.screen.query_one("#context").text = "Clients hammer the API."  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, DiscussionScreen))
        assert "Rate limits" in markdown_text(app)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen.query_one(DataTable).row_count == 2)
    d = Discussion.load(Path("discussions") / "rate-limits.md")
    assert d.title == "Rate limits"
    assert "Clients hammer the API." in d.text


MARKED = "Some thoughts:\n- point one\nQ: Is it safe?\nCONCERN: Costs too much\nTODO: Ask ops"


@pytest.mark.slow
async def test_every_marker_line_shows_as_its_own_line(isolated: Path) -> None:
    path = new("Auth flow")
    assert CliRunner().invoke(cli, ["comment", str(path), MARKED, "--author", "Rob"]).exit_code == 0
    app = app_for(path)
    async with app.run_test(size=(80, 40)) as pilot:
        await until(pilot, lambda: "Rob" in markdown_text(app))
        await pilot.press("x")  # the context folds away: the comment is in view
        await until(pilot, lambda: any(is_heading(x, "Rob") for x in comments_column(app)))
        rows = [x.strip() for x in comments_column(app)]
        at = next(i for i, x in enumerate(rows) if is_heading(x, "Rob"))
        shown = [r for r in rows[at + 1 :] if r][:5]
        assert shown == [
            "Some thoughts:",
            "• point one",
            "Q: Is it safe?",
            "CONCERN: Costs too much",
            "TODO: Ask ops",
        ], rows


@pytest.mark.slow
async def test_the_context_shows_above_the_comments_and_folds(isolated: Path) -> None:
    context = "Users need to log in.\nWith passkeys, not passwords.\n\nSecond paragraph."
    r = CliRunner().invoke(cli, ["new", "Auth flow", "--context", context])
    assert r.exit_code == 0, r.output
    path = Path("discussions") / "auth-flow.md"
    posted = CliRunner().invoke(cli, ["comment", str(path), "First!", "--author", "Rob"])
    assert posted.exit_code == 0
    app = app_for(path)
    async with app.run_test(size=(80, 40)) as pilot:
        await until(pilot, lambda: "Rob" in markdown_text(app))
        await pilot.pause(0.2)
        rows = [x.strip() for x in comments_column(app)]
        assert "Users need to log in." in rows and "With passkeys, not passwords." in rows
        assert "Second paragraph." in rows
        title = rows.index("Auth flow")
        toggle = next(i for i, x in enumerate(rows) if x.endswith("Context") and "▼" in x)
        assert title < toggle < rows.index("Users need to log in.")
        await pilot.press("x")
        await until(pilot, lambda: "Users need to log in." not in comments_column(app)[0:40])
        rows = [x.strip() for x in comments_column(app)]
        assert any(x.endswith("Context") and "▶" in x for x in rows)
        assert any(is_heading(x, "Rob") for x in rows)
        await pilot.press("x")
        await until(
            pilot,
            lambda: "Users need to log in." in [x.strip() for x in comments_column(app)],
        )


@pytest.mark.slow
async def test_a_turn_without_any_ai_cli_says_so_once(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_dir), os.path.dirname(sys.executable)]))
    path = new("Auth flow")
    app = app_for(path)
    async with app.run_test(size=(80, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DiscussionScreen))
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TurnScreen))
        await pilot.press("ctrl+r")
        screen = app.screen
        assert isinstance(screen, TurnScreen)
        await until(pilot, lambda: bool(screen.query("#summary")), timeout=20)
        panels = [str(p.render()) for p in screen.panels.values()]
        assert len(panels) == 3 and all("posted via mock in" in p for p in panels), panels
        assert not any("not installed" in p or "✗" in p for p in panels), panels
        notes = screen.query(".turn-note")
        assert len(notes) == 1
        text = str(notes.first(Static).render())
        assert "No AI CLI is installed" in text and "install Claude Code" in text
        box = screen.query_one("#answers")
        assert "turn-note" in box.children[0].classes  # above the answers
