"""The `discussions ui` app: a browser, a discussion view, a composer, live turns, personas.

Everything slow (loading 500 discussions, running a turn) happens in worker threads; results
come back to the app with `App.call_from_thread`, so the screen never blocks on a provider.
The discussion view follows its file: it polls size and modification time twice a second and
reloads when either changes (another process, an editor, a turn). A file that stops parsing
shows the error in the side panel instead of crashing.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.binding import Binding

from ..settings.workspace import Workspace
from .browser import BrowserScreen
from .common import HelpScreen
from .discussion import DiscussionScreen


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
