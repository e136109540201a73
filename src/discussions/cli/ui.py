"""``discussions ui``: the terminal app (Textual, imported only here)."""

from __future__ import annotations

from pathlib import Path

import click

from .common import resolve_discussion, workspace
from .options import dir_option


@click.command("ui")
@click.argument("file", required=False)
@dir_option("Folder to browse (default: output.directory, ./discussions).")
def ui_command(file: str | None, directory: Path | None) -> None:
    """Browse, follow and take part in discussions in a terminal app.

    Without FILE it opens the browser of every discussion in the folder; with FILE
    it opens that discussion. Keys: c comment, t turn, a advance, e edit in $EDITOR,
    p participants, ? help, Escape back, q quit.

    \b
    Examples:
      discussions ui
      discussions ui feature-x.md
      discussions ui -d docs/decisions
    """
    ws = workspace()
    path = resolve_discussion(file, ws) if file else None
    folder = directory or (path.parent if path is not None else ws.config.output_directory)
    from ..tui.app import DiscussionsApp

    DiscussionsApp(folder, path, ws).run()
