"""The terminal app's personas screen: view, create, edit and remove participants."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import (
    DataTable,
    Footer,
    Static,
)

from ..errors import DiscussionsError
from ..settings.workspace import Workspace
from .common import Confirm, Message, run_editor


class ParticipantsScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("n", "new", "New"),
        Binding("e", "edit", "Edit"),
        Binding("d", "remove", "Remove"),
        Binding("question_mark", "app.help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, ws: Workspace) -> None:
        super().__init__()
        self.ws = ws

    def compose(self) -> ComposeResult:
        yield Static("Participants — Enter views, n new, e edit, d remove", id="title")
        yield DataTable(id="people", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Alias", "Name", "Type", "From", "Role")
        self.refill()
        table.focus()

    def refill(self) -> None:
        from ..settings.personas import origin

        self.ws = Workspace(self.ws.config)
        table = self.query_one(DataTable)
        table.clear()
        for p in self.ws.participants:
            table.add_row(
                f"@{p.alias}", p.name, p.type, origin(p, self.ws), p.role[:40], key=p.alias
            )

    def current(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return str(key) if key else None

    def action_back(self) -> None:
        self.app.pop_screen()

    @on(DataTable.RowSelected)
    def _view(self, event: DataTable.RowSelected) -> None:
        from ..settings.personas import origin, to_yaml

        p = self.ws.participants.get(str(event.row_key.value))
        where = origin(p, self.ws)
        self.app.push_screen(Message(f"# from {where}: {p.source}\n\n" + to_yaml(p.to_dict())))

    def action_new(self) -> None:
        from ..settings.personas import template_data, to_yaml

        self._edit(to_yaml(template_data("new-persona")), replace=False)

    def action_edit(self) -> None:
        from ..settings.personas import to_yaml

        alias = self.current()
        if alias:
            self._edit(to_yaml(self.ws.participants.get(alias).to_dict()), replace=True)

    def _edit(self, text: str, replace: bool) -> None:
        """Edit persona YAML in $EDITOR; validate; write to the project (a bundled persona
        gets a project override)."""
        import tempfile

        from ..settings import personas

        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write(text)
            tmp = Path(f.name)
        try:
            run_editor(self.app, tmp)
            edited = tmp.read_text(encoding="utf-8")
        finally:
            tmp.unlink(missing_ok=True)
        if edited == text:
            self.notify("Unchanged; nothing written.")
            return
        try:
            raw = personas.parse_yaml(edited)
            p = personas.validate(raw)
            existing = next((x for x in self.ws.participants if x.alias == p.alias), None)
            scope = "project"
            if existing is not None and personas.origin(existing, self.ws) == "user":
                scope = "user"
            target = personas.folder_for(scope, self.ws) / f"{p.alias}.yaml"
            if target.exists() and not replace:
                raise personas.PersonaError(f"{target} exists; use e to edit it")
            _, path = personas.write(dict(raw), scope, self.ws, replace=replace)
        except DiscussionsError as exc:
            self.notify(f"Not saved: {exc}", severity="error", timeout=10)
            return
        self.notify(f"Saved {path}.")
        self.refill()

    def action_remove(self) -> None:
        from ..settings import personas

        alias = self.current()
        if not alias:
            return
        try:
            path = personas.removable_path(alias, self.ws)
        except DiscussionsError as exc:
            self.notify(str(exc), severity="warning", timeout=8)
            return

        def done(yes: bool | None) -> None:
            if yes:
                path.unlink(missing_ok=True)
                self.notify(f"Removed {path}.")
                self.refill()

        self.app.push_screen(Confirm(f"Remove {path}? (y/n)"), done)


# --------------------------------------------------------------------------- the app
