"""Pieces the terminal app's screens share: help, confirmation and message dialogs, the editor."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import (
    Footer,
    Static,
)

POLL = 0.5

HELP = """\
[b]discussions ui[/b] — keys

Browser: type to filter ([b]/[/b] first for a letter below), [b]s[/b] cycles the status
  filter, [b]Enter[/b] opens, [b]n[/b] new discussion (ctrl+s creates), [b]p[/b] participants,
  [b]r[/b] reload, [b]q[/b] quits.
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
