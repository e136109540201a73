"""The terminal app's turn screen: choose participants, start a turn, watch answers stream in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import (
    Footer,
    Input,
    Label,
    SelectionList,
    Static,
)

from ..errors import DiscussionsError
from ..model.discussion import Discussion
from ..settings.workspace import Workspace
from . import data


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
        from ..ops.turns import asked

        d = Discussion.load(self.path, self.ws)
        try:
            default = [p.alias for p in asked(self.ws, self.path)]
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
        from ..engine.turn.outcomes import TurnEvent
        from ..ops.turns import turn

        def on_event(ev: TurnEvent) -> None:
            self.app.call_from_thread(self.show_event, ev)

        try:
            result = turn(
                self.ws, self.path, who, callout=callout, provider=self.provider, on_event=on_event
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
            from ..engine.turn.outcomes import outcome_text

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
