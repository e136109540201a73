"""The terminal app's list of discussions, and the dialog that starts a new one."""

from __future__ import annotations

import time
from pathlib import Path

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import (
    DataTable,
    Footer,
    Input,
    Label,
    Select,
    Static,
    TextArea,
)

from .. import ops
from ..errors import DiscussionsError
from ..model.catalog import briefs
from ..settings.workspace import Workspace
from . import data
from .discussion import DiscussionScreen
from .personas import ParticipantsScreen

HAND_OVER_EVERY = 0.2
"""Seconds at least between two handovers of rows while the list loads (50 rows at least
each): the first 50 show at once, and a fast folder is not repainted 20 times per 1,000."""


class BrowserScreen(Screen[None]):
    BINDINGS = [
        Binding("q", "app.quit", "Quit"),
        Binding("s", "cycle_status", "Status filter"),
        Binding("n", "new", "New"),
        Binding("p", "participants", "Participants"),
        Binding("r", "reload", "Reload"),
        Binding("question_mark", "app.help", "Help"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
        Binding("slash", "filter", "Filter"),
    ]

    def __init__(self, folder: Path, ws: Workspace) -> None:
        super().__init__()
        self.folder = folder
        self.ws = ws
        self.rows: list[data.Summary] = []
        self.status_filter = ""
        self.generation = 0  # of the latest load: what older ones hand over is dropped

    def compose(self) -> ComposeResult:
        yield Static(f"Discussions in {self.folder}", id="title")
        yield Input(placeholder="filter (type, then Enter or ↓)", id="filter")
        table: DataTable[str] = DataTable(id="table", cursor_type="row", zebra_stripes=True)
        yield table
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Title", "Phase", "Status", "Consensus", "Q", "@", "Changed")
        table.focus()
        # No load here: the screen's ScreenResume, which comes when it is first shown too,
        # starts it; loading here as well read every file twice, in two threads at once.

    def action_reload(self) -> None:
        self.load()

    def load(self) -> None:
        """Read the folder again, in a thread; an older load still running is dropped."""
        self.generation += 1
        self._read(self.generation)

    @work(thread=True, exclusive=True, group="browser")
    def _read(self, generation: int) -> None:
        rows: list[data.Summary] = []
        batch: list[data.Summary] = []
        handed = float("-inf")  # when rows were last handed over: each repaints the table
        with briefs(self.ws, self.folder) as cache:
            for path in data.discussion_files(self.folder, self.ws):
                s = data.summarise(path, self.ws, cache)
                if s is not None:
                    rows.append(s)
                    batch.append(s)
                if len(batch) >= 50 and time.monotonic() - handed >= HAND_OVER_EVERY:
                    self.app.call_from_thread(self._show, generation, list(rows))
                    batch = []
                    handed = time.monotonic()
        self.app.call_from_thread(self._show, generation, rows)

    def _show(self, generation: int, rows: list[data.Summary]) -> None:
        """Show `rows`, all load `generation` has read so far, unless a newer load started
        (a thread's cancelled worker runs on: its rows of the folder as it was are dropped).
        The next batch of the same load (the rows shown are the start of `rows`, the very
        same objects) only adds its own rows: refilling the table per batch re-added and
        re-measured every row (quadratic)."""
        if generation != self.generation:
            return
        known = len(self.rows)
        grows = len(rows) >= known and all(a is b for a, b in zip(self.rows, rows, strict=False))
        self.rows = rows
        if not grows:
            self.refill()
            return
        self._add(rows[known:])
        self._update_title()

    def refill(self) -> None:
        """The table again from `rows`, under the filter; the cursor stays on its line."""
        table = self.query_one(DataTable)
        selected = table.cursor_row
        table.clear()
        self._add(self.rows)
        if table.row_count:
            table.move_cursor(row=min(selected, table.row_count - 1))
        self._update_title()

    def _add(self, rows: list[data.Summary]) -> None:
        """Add the rows that pass the filter, in their order, below those shown."""
        table = self.query_one(DataTable)
        text = self.query_one("#filter", Input).value
        for s in rows:
            if s.matches(text, self.status_filter):
                table.add_row(
                    s.title[:40],
                    s.phase,
                    s.status,
                    s.consensus or s.problem[:30],
                    str(s.questions),
                    str(s.mentions),
                    data.ago(s.changed),
                    key=str(s.path),
                )

    def _update_title(self) -> None:
        count = self.query_one(DataTable).row_count
        label = f" status={self.status_filter}" if self.status_filter else ""
        self.query_one("#title", Static).update(
            f"Discussions in {self.folder} — {count} shown{label}"
        )

    @on(Input.Changed, "#filter")
    def _filter(self) -> None:
        self.refill()

    def on_key(self, event: events.Key) -> None:
        """A letter or digit typed in the list (one no key is bound to: those keep their
        command) starts the filter with it; no Tab to the box first."""
        box = self.query_one("#filter", Input)
        char = event.character or ""
        if box.has_focus or len(char) != 1 or not char.isalnum():
            return
        if event.key in self.active_bindings:  # `s`, `n`, `q`...: their commands
            return
        event.stop()
        box.focus()
        box.value += char
        box.cursor_position = len(box.value)

    def action_filter(self) -> None:
        """Type into the filter (`/`: also for the letters bound to commands)."""
        self.query_one("#filter", Input).focus()

    @on(Input.Submitted, "#filter")
    def _to_table(self) -> None:
        self.query_one(DataTable).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#filter", Input).value = ""
        self.query_one(DataTable).focus()

    def action_cycle_status(self) -> None:
        """All, then each status the listed discussions have (never one that matches none)."""
        statuses = ["", *sorted({s.status for s in self.rows if s.status})]
        i = statuses.index(self.status_filter) if self.status_filter in statuses else 0
        self.status_filter = statuses[(i + 1) % len(statuses)]
        self.refill()

    def action_participants(self) -> None:
        self.app.push_screen(ParticipantsScreen(self.ws))

    def action_new(self) -> None:
        def opened(path: Path | None) -> None:
            if path is not None:
                self.app.push_screen(DiscussionScreen(path, self.ws))

        self.app.push_screen(NewDiscussion(self.folder, self.ws), opened)

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            self.app.push_screen(DiscussionScreen(Path(event.row_key.value), self.ws))

    def on_screen_resume(self) -> None:
        self.load()


class NewDiscussion(ModalScreen[Path | None]):
    """Title, template and context for a new discussion; ctrl+s creates it."""

    BINDINGS = [
        Binding("ctrl+s", "create", "Create", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, folder: Path, ws: Workspace) -> None:
        super().__init__()
        self.folder = folder
        self.ws = ws

    def compose(self) -> ComposeResult:
        names = [t.name for t in self.ws.templates]
        with Vertical(id="dialog"):
            yield Input(placeholder="title", id="new-title")
            yield Select([(n, n) for n in names], prompt="template (default)", id="template")
            yield Label("Context (what is being discussed and why)")
            yield TextArea(id="context")
        yield Footer()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_create(self) -> None:
        title = self.query_one("#new-title", Input).value.strip()
        if not title:
            self.notify("A discussion needs a title.", severity="warning")
            return
        template = self.query_one("#template", Select).value
        context = self.query_one("#context", TextArea).text.strip() or None

        chosen = str(template) if isinstance(template, str) else None
        try:
            made = ops.create(
                self.ws, title, template=chosen, context=context, directory=self.folder
            )
        except DiscussionsError as exc:
            self.notify(str(exc), severity="error", timeout=8)
            return
        self.dismiss(made.discussion.path)


# --------------------------------------------------------------------------- discussion
