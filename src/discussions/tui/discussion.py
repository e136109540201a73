"""The terminal app's view of one discussion: comments, side panel, and the comment composer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import (
    Collapsible,
    Footer,
    Label,
    Markdown,
    Select,
    Static,
    TextArea,
)

from .. import ops
from ..errors import DiscussionsError, EmptyComment
from ..model.discussion import Discussion
from ..ops.grounds import resolve
from ..settings.workspace import Workspace
from ..views.evidence import evidence_markdown
from ..views.rendering import comment_parser, preamble_markdown
from . import data
from .common import POLL, Confirm, run_editor
from .personas import ParticipantsScreen
from .turn import TurnScreen

if TYPE_CHECKING:
    from ..ops.comments import Commented


class DiscussionScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("c", "compose", "Comment"),
        Binding("t", "turn", "Turn"),
        Binding("a", "advance", "Advance"),
        Binding("x", "toggle_context", "Context"),
        Binding("v", "toggle_evidence", "Evidence"),
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
                with Collapsible(title="Evidence", id="evidence-box", collapsed=True):
                    yield Markdown("", id="evidence", parser_factory=comment_parser)
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
            d = resolve(Discussion.load(self.path, self.ws))
            body, side = data.comments_markdown(d), data.side_panel(d)
        except (DiscussionsError, OSError, ValueError) as exc:
            panel.update(f"[b red]Cannot read this file[/b red]\n\n{data.escape(str(exc))}")
            return
        self.discussion = d
        self.show_context(d)
        self.query_one("#body", Markdown).update(body)
        self.show_evidence(d)
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

    def show_evidence(self, d: Discussion) -> None:
        """The evidence read from the repository, in a box collapsed until `v` opens it."""
        text = evidence_markdown(d)
        box = self.query_one("#evidence-box", Collapsible)
        box.display = bool(text)
        box.title = f"Evidence ({len(d.evidence)})"
        shown = self.query_one("#evidence", Markdown)
        if shown.source != text:
            shown.update(text)

    def action_toggle_evidence(self) -> None:
        box = self.query_one("#evidence-box", Collapsible)
        box.collapsed = not box.collapsed

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
                self.notify(f"Advanced to {ops.advance(self.ws, self.path).phase}.")
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
        self.posted: Commented | None = None
        """What the comment op returned once posted (its notification is made from it)."""

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
        text = self.query_one(TextArea).text
        vote = str(self.query_one(Select).value or "") or None
        try:
            posted = ops.comment(self.ws, self.path, self.author, text, vote=vote)
        except EmptyComment:
            self.notify("Write a comment or choose a vote.", severity="warning")
            return
        except DiscussionsError as exc:
            self.notify(str(exc), severity="error", timeout=8)
            return
        self.posted = posted
        said = f" with VOTE: {posted.vote}" if posted.vote else ""
        self.app.notify(f"Posted as {posted.author}{said}.")
        self.dismiss(True)


# --------------------------------------------------------------------------- turns
