"""The browser fills its list in batches while it reads the folder (Textual's pilot, 80x24):
what it ends up showing is what one listing of the whole folder shows, filtered, each file
once, in the folder's order, with the cursor where the user put it while the list was loading."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from textual.widgets import DataTable

from discussions.cli import cli
from discussions.settings.workspace import Workspace
from discussions.tui import data

from ..support.tui import app_for, until

pytestmark = pytest.mark.asyncio
SIZE = (80, 24)
FILES = 130  # more than two of the browser's batches
HOLD_AT = 101  # the loader waits before this file: some batches shown, more to come


def folder_of(count: int) -> Path:
    """`count` discussions: every third titled "Alpha n", the others "Beta n"."""
    r = CliRunner().invoke(cli, ["new", "Template", "--context", "Some context."])
    assert r.exit_code == 0, r.output
    template = Path("discussions") / "template.md"
    text = template.read_text(encoding="utf-8")
    for i in range(count):
        title = f"Alpha {i}" if i % 3 == 0 else f"Beta {i}"
        (template.parent / f"d{i:04d}.md").write_text(text.replace("Template", title), "utf-8")
    template.unlink()
    return template.parent


def listing(text: str) -> list[str]:
    """The keys a listing of the whole folder at once shows for filter `text`."""
    ws = Workspace.discover()
    rows = [data.summarise(p, ws) for p in data.discussion_files(ws.config.output_directory, ws)]
    return [str(s.path) for s in rows if s is not None and s.matches(text, "")]


def shown(table: DataTable[str]) -> list[str]:
    return [str(row.key.value) for row in table.ordered_rows]


class Gate:
    """Holds each loader thread before its `at`-th file until `release` (while `holding`);
    logs, per thread, the files it summarised and whether its last step was handing rows to
    the app."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.holding = True
        self.go = threading.Event()
        self.held: set[threading.Thread] = set()
        self.files: dict[threading.Thread, int] = {}
        self.last: dict[threading.Thread, str] = {}

    def summarise(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def held(*args: Any, **kwargs: Any) -> Any:
            me = threading.current_thread()
            self.files[me] = self.files.get(me, 0) + 1
            if self.holding and self.files[me] == self.at:
                self.held.add(me)
                assert self.go.wait(timeout=30)
            self.last[me] = "summarise"
            return real(*args, **kwargs)

        return held

    def handing(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def handed(*args: Any, **kwargs: Any) -> Any:
            result = real(*args, **kwargs)
            self.last[threading.current_thread()] = "shown"
            return result

        return handed

    def all_held(self) -> bool:
        """Every loader that started is waiting (and one did)."""
        return bool(self.held) and self.held == set(self.files)

    def held_done(self, files: int) -> bool:
        """Every held loader read all `files` and handed its rows over last."""
        return all(self.files[t] == files and self.last.get(t) == "shown" for t in self.held)


@pytest.mark.slow
async def test_a_list_loaded_in_batches_is_the_whole_listing_filtered_cursor_kept(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder_of(FILES)
    everything, alphas = listing(""), listing("alpha")
    assert len(everything) == FILES and len(alphas) == 44
    gate = Gate(HOLD_AT)
    monkeypatch.setattr(data, "summarise", gate.summarise(data.summarise))
    app = app_for()
    monkeypatch.setattr(app, "call_from_thread", gate.handing(app.call_from_thread))
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(DataTable)
        await until(pilot, gate.all_held)
        assert 0 < table.row_count < FILES
        assert shown(table) == everything[: table.row_count]
        await pilot.press(*"alpha")  # the filter, typed while the list is loading
        await until(pilot, lambda: shown(table) == alphas[: table.row_count])
        await pilot.press("enter", "down", "down")  # to the list, the cursor two rows down
        assert table.cursor_row == 2
        gate.go.set()
        await until(pilot, lambda: table.row_count == len(alphas))
        await until(pilot, lambda: gate.held_done(FILES))
        assert shown(table) == alphas
        assert table.cursor_row == 2
        await pilot.press("escape")  # clears the filter: every file, once, in order
        await until(pilot, lambda: shown(table) == everything)
        assert table.cursor_row == 2


@pytest.mark.slow
async def test_a_reload_while_the_list_loads_shows_the_folder_as_it_is_now(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first load, held halfway, goes on after the reload and hands over the folder as it
    was: the list shows what the reload read, every file once."""
    folder = folder_of(FILES)
    gate = Gate(HOLD_AT)
    monkeypatch.setattr(data, "summarise", gate.summarise(data.summarise))
    app = app_for()
    monkeypatch.setattr(app, "call_from_thread", gate.handing(app.call_from_thread))
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(DataTable)
        await until(pilot, gate.all_held)
        gate.holding = False
        (folder / "d0001.md").unlink()
        (folder / "d9999.md").write_text(
            (folder / "d0000.md").read_text(encoding="utf-8").replace("Alpha 0", "Gamma"), "utf-8"
        )
        now = listing("")
        assert len(now) == FILES and now[-1].endswith("d9999.md")
        await pilot.press("r")  # a second load while the first is held halfway
        await until(pilot, lambda: shown(table) == now)
        gate.go.set()  # the first load goes on, and hands over what it read
        await until(pilot, lambda: gate.held_done(FILES))
        assert shown(table) == now
