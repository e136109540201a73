"""The `discussions ui` app: a browser, a discussion view, a composer, live turns, personas.

Everything slow (loading 500 discussions, running a turn) happens in worker threads; results
come back to the app with `App.call_from_thread`, so the screen never blocks on a provider.
The discussion view follows its file: it polls size and modification time twice a second and
reloads when either changes (another process, an editor, a turn). A file that stops parsing
shows the error in the side panel instead of crashing.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import (
    Collapsible,
    DataTable,
    Footer,
    Input,
    Label,
    Markdown,
    Select,
    SelectionList,
    Static,
    TextArea,
)

from ..errors import DiscussionsError
from ..model.discussion import Discussion
from ..settings.workspace import Workspace
from ..views.rendering import comment_parser, preamble_markdown
from . import data

STATUSES = ["", "OPEN", "READY_FOR_DESIGN", "READY_FOR_IMPLEMENTATION", "CLOSED", "INVALID"]
POLL = 0.5

HELP = """\
[b]discussions ui[/b] — keys

Browser: type to filter, [b]s[/b] cycles the status filter, [b]Enter[/b] opens,
  [b]n[/b] new discussion (ctrl+s creates), [b]p[/b] participants, [b]r[/b] reload, [b]q[/b] quits.
Discussion: [b]c[/b] comment (ctrl+s posts), [b]t[/b] turn, [b]a[/b] advance phase,
  [b]x[/b] shows or hides the context, [b]e[/b] edit in $EDITOR, [b]r[/b] reload,
  [b]Escape[/b] back.
Participants: [b]Enter[/b] view, [b]n[/b] new, [b]e[/b] edit, [b]d[/b] remove (user/project).
The discussion view follows its file: changes by others appear within a second.
"""


def editor_argv(path: Path) -> list[str]:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return [*shlex.split(editor), str(path)]


def run_editor(app: App[Any], path: Path) -> None:
    """Run $EDITOR on `path` with the app suspended (headless, as under the test pilot, there is
    no terminal to hand over, so the editor just runs)."""
    from textual.app import SuspendNotSupported

    try:
        with app.suspend():
            subprocess.run(editor_argv(path), check=False)
    except SuspendNotSupported:
        subprocess.run(editor_argv(path), check=False, stdin=subprocess.DEVNULL)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(HELP)
            yield Footer()


class Confirm(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.question)
            yield Footer()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class Message(ModalScreen[None]):
    BINDINGS = [Binding("escape,enter,q", "dismiss", "Close")]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Static(self.text, markup=False)
        yield Footer()


# --------------------------------------------------------------------------- browser


class BrowserScreen(Screen[None]):
    BINDINGS = [
        Binding("q", "app.quit", "Quit"),
        Binding("s", "cycle_status", "Status filter"),
        Binding("n", "new", "New"),
        Binding("p", "participants", "Participants"),
        Binding("r", "reload", "Reload"),
        Binding("question_mark", "app.help", "Help"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]

    def __init__(self, folder: Path, ws: Workspace) -> None:
        super().__init__()
        self.folder = folder
        self.ws = ws
        self.rows: list[data.Summary] = []
        self.status_filter = ""

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
        self.load()

    def action_reload(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="browser")
    def load(self) -> None:
        rows: list[data.Summary] = []
        batch: list[data.Summary] = []
        for path in data.discussion_files(self.folder, self.ws):
            s = data.summarise(path, self.ws)
            if s is not None:
                rows.append(s)
                batch.append(s)
            if len(batch) >= 50:
                self.app.call_from_thread(self._show, list(rows))
                batch = []
        self.app.call_from_thread(self._show, rows)

    def _show(self, rows: list[data.Summary]) -> None:
        self.rows = rows
        self.refill()

    def refill(self) -> None:
        table = self.query_one(DataTable)
        text = self.query_one("#filter", Input).value
        selected = table.cursor_row
        table.clear()
        for s in self.rows:
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
        if table.row_count:
            table.move_cursor(row=min(selected, table.row_count - 1))
        label = f" status={self.status_filter}" if self.status_filter else ""
        self.query_one("#title", Static).update(
            f"Discussions in {self.folder} — {table.row_count} shown{label}"
        )

    @on(Input.Changed, "#filter")
    def _filter(self) -> None:
        self.refill()

    @on(Input.Submitted, "#filter")
    def _to_table(self) -> None:
        self.query_one(DataTable).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#filter", Input).value = ""
        self.query_one(DataTable).focus()

    def action_cycle_status(self) -> None:
        i = STATUSES.index(self.status_filter) if self.status_filter in STATUSES else 0
        self.status_filter = STATUSES[(i + 1) % len(STATUSES)]
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
        try:
            d = Discussion.create(
                title,
                template=str(template) if isinstance(template, str) else None,
                context=context,
                directory=self.folder,
                workspace=self.ws,
            )
            d.save()
        except DiscussionsError as exc:
            self.notify(str(exc), severity="error", timeout=8)
            return
        self.dismiss(d.path)


# --------------------------------------------------------------------------- discussion


class DiscussionScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("c", "compose", "Comment"),
        Binding("t", "turn", "Turn"),
        Binding("a", "advance", "Advance"),
        Binding("x", "toggle_context", "Context"),
        Binding("e", "edit", "Edit"),
        Binding("r", "reload", "Reload"),
        Binding("p", "participants", "Participants"),
        Binding("question_mark", "app.help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, path: Path, ws: Workspace) -> None:
        super().__init__()
        self.path = path
        self.ws = ws
        self.stamp: tuple[float, int] | None = None
        self.discussion: Discussion | None = None

    def compose(self) -> ComposeResult:
        with Horizontal():
            with VerticalScroll(id="comments"):
                yield Markdown("", id="heading", parser_factory=comment_parser)
                with Collapsible(title="Context", id="context-box", collapsed=False):
                    yield Markdown("", id="context", parser_factory=comment_parser)
                yield Markdown("", id="body", parser_factory=comment_parser)
            with VerticalScroll(id="side"):
                yield Static("", id="panel")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()
        self.set_interval(POLL, self.poll)

    def _stamp(self) -> tuple[float, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_mtime, st.st_size)

    def poll(self) -> None:
        if self._stamp() != self.stamp:
            self.reload()

    def action_reload(self) -> None:
        self.reload()

    def reload(self) -> None:
        self.stamp = self._stamp()
        panel = self.query_one("#panel", Static)
        try:
            d = Discussion.load(self.path, self.ws)
            body, side = data.comments_markdown(d), data.side_panel(d)
        except (DiscussionsError, OSError, ValueError) as exc:
            panel.update(f"[b red]Cannot read this file[/b red]\n\n{data.escape(str(exc))}")
            return
        self.discussion = d
        self.show_context(d)
        self.query_one("#body", Markdown).update(body)
        panel.update(side)
        self.sub_title = d.title

    def show_context(self, d: Discussion) -> None:
        """The title, then the context (what is being discussed: the text before the first
        comment), collapsible, above the comments. Updated only when it changed."""
        heading = self.query_one("#heading", Markdown)
        if heading.source != f"# {d.title}":
            heading.update(f"# {d.title}")
        text = preamble_markdown(d)
        box = self.query_one("#context-box", Collapsible)
        box.display = bool(text.strip())
        context = self.query_one("#context", Markdown)
        if context.source != text:
            context.update(text)

    def action_toggle_context(self) -> None:
        box = self.query_one("#context-box", Collapsible)
        box.collapsed = not box.collapsed

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_participants(self) -> None:
        self.app.push_screen(ParticipantsScreen(self.ws))

    def action_compose(self) -> None:
        self.app.push_screen(Composer(self.path, self.ws), lambda _: self.reload())

    def action_turn(self) -> None:
        if self.discussion is None:
            return
        self.app.push_screen(TurnScreen(self.path, self.ws), lambda _: self.reload())

    def action_advance(self) -> None:
        d = self.discussion
        if d is None:
            return

        def done(yes: bool | None) -> None:
            if not yes:
                return
            try:
                fresh = Discussion.load(self.path, self.ws)
                to = fresh.advance()
                fresh.save()
                self.notify(f"Advanced to {to}.")
            except DiscussionsError as exc:
                self.notify(str(exc), severity="error", timeout=8)
            self.reload()

        self.app.push_screen(Confirm(f"Advance {d.title} from phase {d.phase}? (y/n)"), done)

    def action_edit(self) -> None:
        run_editor(self.app, self.path)
        self.reload()


class Composer(ModalScreen[bool]):
    """A comment with an optional vote; ctrl+s posts it exactly as `discussions comment`."""

    BINDINGS = [
        Binding("ctrl+s", "post", "Post", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, path: Path, ws: Workspace, author: str | None = None) -> None:
        super().__init__()
        self.path = path
        self.ws = ws
        self.author = author

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Comment (markdown; Q:, TODO:, CONCERN:, @mentions work as usual)")
            yield TextArea(id="text")
            yield Select(
                [("no vote", ""), ("READY", "READY"), ("CHANGES", "CHANGES"), ("REJECT", "REJECT")],
                value="",
                allow_blank=False,
                id="vote",
            )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_cancel(self) -> None:
        self.dismiss(False)

    def action_post(self) -> None:
        from ..settings.config import default_author

        text = self.query_one(TextArea).text
        vote = str(self.query_one(Select).value or "") or None
        if not text.strip() and vote is None:
            self.notify("Write a comment or choose a vote.", severity="warning")
            return
        author = self.author or default_author()
        try:
            d = Discussion.load(self.path, self.ws)
            d.add_comment(author, text.rstrip("\n"), vote=vote)
            d.save()
        except DiscussionsError as exc:
            self.notify(str(exc), severity="error", timeout=8)
            return
        self.app.notify(f"Posted as {author}" + (f" with VOTE: {vote}" if vote else "") + ".")
        self.dismiss(True)


# --------------------------------------------------------------------------- turns


class TurnScreen(Screen[None]):
    """Choose participants and a callout, then watch each answer stream into its own panel."""

    BINDINGS = [
        Binding("ctrl+r", "start", "Start turn", priority=True),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, path: Path, ws: Workspace, provider: str | None = None) -> None:
        super().__init__()
        self.path = path
        self.ws = ws
        self.provider = provider
        self.running = False
        self.panels: dict[str, Static] = {}
        self.texts: dict[str, str] = {}
        self.status: dict[str, str] = {}
        self.failures: dict[str, list[str]] = {}
        self.noted = False
        """This turn's note (no AI CLI installed) is on screen."""

    def compose(self) -> ComposeResult:
        d = Discussion.load(self.path, self.ws)
        from ..engine.turns import select_participants

        try:
            default = [p.alias for p in select_participants(d)]
        except DiscussionsError:  # the list below still lets the user choose
            default = []
        every = list(dict.fromkeys([*d.participants, *default]))
        choices = [(f"@{a}", a, a in default) for a in every]
        with Vertical(id="setup"):
            yield Label(f"Turn on {d.title} — space toggles, ctrl+r starts")
            yield SelectionList[str](*choices, id="who")
            yield Input(placeholder="optional callout (a question for this turn)", id="callout")
        yield VerticalScroll(id="answers")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(SelectionList).focus()

    def action_back(self) -> None:
        if self.running:
            self.notify("The turn is still running; it will finish in the background.")
        self.dismiss(None)

    def action_start(self) -> None:
        if self.running:
            return
        who = list(self.query_one(SelectionList).selected)
        if not who:
            self.notify("Choose at least one participant.", severity="warning")
            return
        callout = self.query_one("#callout", Input).value.strip() or None
        box = self.query_one("#answers", VerticalScroll)
        box.remove_children()
        self.panels.clear()
        self.failures.clear()
        self.noted = False
        for alias in who:
            panel = Static(f"@{alias}: waiting", classes="answer", id=f"ans-{alias}")
            self.panels[alias] = panel
            box.mount(panel)
        self.running = True
        self.run_turn(who, callout)

    @work(thread=True, exclusive=True, group="turn")
    def run_turn(self, who: list[str], callout: str | None) -> None:
        from ..engine.outcomes import TurnEvent
        from ..engine.runner import Runner

        def on_event(ev: TurnEvent) -> None:
            self.app.call_from_thread(self.show_event, ev)

        try:
            d = Discussion.load(self.path, self.ws)
            result = Runner(self.ws, on_event=on_event).run_turn(
                d, who, callout, provider=self.provider
            )
            summary = f"Turn done: {len(result.posted)} posted, {len(result.failed)} failed."
        except DiscussionsError as exc:
            summary = f"Turn failed: {exc}"
        self.app.call_from_thread(self.finished, summary)

    def show_event(self, ev: Any) -> None:
        panel = self.panels.get(ev.alias)
        if panel is None:
            panel = Static("", classes="answer", id=f"ans-{ev.alias}")
            self.panels[ev.alias] = panel
            self.query_one("#answers", VerticalScroll).mount(panel)
        if ev.kind == "start":
            self.status[ev.alias] = f"asking {ev.provider}…"
            self.texts[ev.alias] = ""
            if ev.message:
                self.note(ev.message)
        elif ev.kind == "chunk":
            self.texts[ev.alias] = ev.text
        elif ev.kind == "attempt_failed":
            self.failures.setdefault(ev.alias, []).append(ev.message)
            self.status[ev.alias] = (
                "trying the next provider" if ev.remaining else "nothing left to try"
            )
        elif ev.kind == "done" and ev.outcome is not None:
            from ..engine.outcomes import outcome_text

            self.status[ev.alias] = outcome_text(ev.outcome)
        head = f"[b]{data.escape(ev.name)}[/b] — {data.escape(self.status.get(ev.alias, ''))}"
        failed = [f"[red]✗ {data.escape(m)}[/red]" for m in self.failures.get(ev.alias, [])]
        body = data.escape(self.texts.get(ev.alias, "")[-3000:])
        panel.update("\n".join([head, *failed, body]))

    def note(self, text: str) -> None:
        """A note about the whole turn (no AI CLI installed), shown once above the answers."""
        if self.noted:
            return
        self.noted = True
        box = self.query_one("#answers", VerticalScroll)
        first = next((w for w in box.children if "answer" in w.classes), None)
        box.mount(Static(text, classes="turn-note", markup=False), before=first)

    def finished(self, summary: str) -> None:
        self.running = False
        self.notify(summary)
        self.query_one("#answers", VerticalScroll).mount(Static(summary, id="summary"))


# --------------------------------------------------------------------------- participants


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


class DiscussionsApp(App[None]):
    TITLE = "discussions"
    CSS = """
    #title { height: 1; padding: 0 1; background: $boost; }
    #comments { width: 2fr; }
    #side { width: 1fr; min-width: 28; border-left: solid $primary; padding: 0 1; }
    #dialog { width: 90%; height: auto; max-height: 90%; padding: 1 2; border: thick $primary;
              background: $surface; }
    ModalScreen { align: center middle; }
    Composer TextArea { height: 12; }
    #setup { height: auto; max-height: 50%; }
    #who { height: auto; max-height: 10; }
    .answer { border: round $secondary; padding: 0 1; margin-bottom: 1; }
    .turn-note { color: $warning; padding: 0 1; margin-bottom: 1; }
    """
    BINDINGS = [Binding("question_mark", "help", "Help")]

    def __init__(
        self,
        folder: Path,
        file: Path | None = None,
        workspace: Workspace | None = None,
    ) -> None:
        super().__init__()
        self.folder = folder
        self.file = file
        self.ws = workspace or Workspace.discover()

    def on_mount(self) -> None:
        self.push_screen(BrowserScreen(self.folder, self.ws))
        if self.file is not None:
            self.push_screen(DiscussionScreen(self.file, self.ws))

    def action_help(self) -> None:
        self.push_screen(HelpScreen())
