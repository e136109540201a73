"""`discussions serve`: the discussions folder in the browser, live."""

from __future__ import annotations

import click

from .common import default_author, say, workspace


@click.command("serve")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port to listen on (0 picks a free one).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. Beyond loopback, reading needs the token too.",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a browser.")
def serve_command(port: int, host: str, open_browser: bool) -> None:
    """Serve the discussions folder as a live web page and a JSON API.

    The first line printed is the address with the server's token; open it
    to read and write. Comments appended by anyone (editor, CLI, git) show
    up without reloading; turns started from the page stream in as they are
    written. Everything is an append to the discussion files. Needs the web
    extra: pip install 'discussions[web]'. Ctrl-C stops it.

    \b
    Examples:
      discussions serve
      discussions serve --open
      discussions serve --port 0
      discussions serve --host 0.0.0.0 --port 8080   # LAN: reading needs the token
    """
    from ..web import serve

    ws = workspace()

    def ready(url: str) -> None:
        say(url)
        folder = ws.config.output_directory
        say(f"Serving {folder} (Ctrl-C to stop)", err=True)
        if open_browser:
            import webbrowser

            webbrowser.open(url)

    serve(ws, host, port, author=default_author(), on_ready=ready)
