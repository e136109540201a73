"""`discussions lsp`: serve discussion files to an editor over the Language Server Protocol,
or print an editor's configuration."""

from __future__ import annotations

import gc
import importlib.util

import click

from .. import __version__
from ..lsp.config import EDITORS, editor_config

MISSING_PYGLS = (
    "the language server needs the `pygls` package: pip install 'discussions[lsp]' "
    "(or: pipx inject discussions pygls)"
)


@click.command("lsp")
@click.option(
    "--print-config",
    "editor",
    type=click.Choice(EDITORS, case_sensitive=False),
    help="Print how to register the server with this editor, and exit.",
)
@click.option(
    "-p",
    "--provider",
    metavar="NAME",
    help='Provider that answers "Ask the mentioned participants now" (default: each '
    "participant's own).",
)
@click.option(
    "--debounce",
    type=click.FloatRange(0, 10),
    default=0.15,
    show_default=True,
    help="Seconds of quiet after typing before the document is checked again.",
)
def lsp_command(editor: str | None, provider: str | None, debounce: float) -> None:
    """Serve discussion files to an editor (the Language Server Protocol, stdio).

    Diagnostics as you type (what `discussions check` reports), completion of
    @mentions, markers and vote values, hover on votes, mentions and engine
    lines, an outline, the comments answering a Q:, and commands: ask the
    mentioned participants now, advance the phase, insert my vote. The editor
    starts the server itself; register it once.

    \b
    Examples:
      discussions lsp --print-config nvim
      discussions lsp --print-config helix
      discussions lsp --print-config vscode
      discussions lsp            # serve on stdin/stdout (what the editor runs)
    """
    if editor:
        snippet, where = editor_config(editor.lower())
        click.echo(snippet, nl=False)
        click.echo(where, err=True)
        return
    if importlib.util.find_spec("pygls") is None:
        raise click.ClickException(MISSING_PYGLS)
    serve_stdio(provider, debounce)


def serve_stdio(provider: str | None, debounce: float) -> None:
    """Answer the editor's ``initialize`` first, and the first document's diagnostics, then
    load pygls (with the collector off, its objects then frozen out of later collections)
    and hand it the connection."""
    from ..lsp.early import first_diagnostics
    from ..lsp.handshake import open_connection

    opening = open_connection(__version__)
    first_diagnostics(opening)
    gc.disable()
    try:
        from ..lsp.features import build
        from ..lsp.takeover import serve

        server = build(provider, debounce)
    finally:
        gc.freeze()
        gc.enable()
    serve(server, opening)
