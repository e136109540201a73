"""`discussions mcp`: serve the discussions as a local MCP server, or print a client's config."""

from __future__ import annotations

import importlib.util
import json
import shlex
import shutil
import sys
from pathlib import Path

import click

from .. import __version__

CLIENTS = ("claude", "codex", "gemini", "json")

MISSING_SDK = (
    "the MCP server needs the `mcp` package: pip install 'discussions[mcp]' "
    "(or: pipx inject discussions mcp)"
)


def server_command() -> list[str]:
    """The absolute command that starts this installation's server: the `discussions` script
    beside this interpreter, else the interpreter with `-m discussions`. An agent started
    outside the virtual environment finds either, where a bare `discussions` is not on its PATH."""
    script = shutil.which("discussions", path=str(Path(sys.executable).parent))
    if script:
        return [str(Path(script).absolute()), "mcp"]
    return [str(Path(sys.executable).absolute()), "-m", "discussions", "mcp"]


def client_config(client: str) -> tuple[str, str]:
    """The snippet that registers `discussions mcp` with `client`, and where it goes (see
    docs/mcp.md). The server works on the folder it starts in."""
    command = server_command()
    if client == "claude":
        return (
            f"claude mcp add --scope project discussions -- {shlex.join(command)}\n",
            "Run it in the project folder: it writes .mcp.json there.",
        )
    if client == "codex":
        toml_args = json.dumps(command[1:])
        return (
            f"codex mcp add discussions -- {shlex.join(command)}\n",
            "Or add to ~/.codex/config.toml: [mcp_servers.discussions] with "
            f"command = {json.dumps(command[0])} and args = {toml_args}.",
        )
    entry = {"command": command[0], "args": command[1:]}
    snippet = json.dumps({"mcpServers": {"discussions": entry}}, indent=2) + "\n"
    if client == "gemini":
        return snippet, "Merge into .gemini/settings.json (project) or ~/.gemini/settings.json."
    return snippet, "The mcpServers entry most MCP clients read (e.g. .mcp.json)."


@click.command("mcp")
@click.option(
    "--print-config",
    "client",
    type=click.Choice(CLIENTS, case_sensitive=False),
    help="Print how to register the server with this client, and exit.",
)
def mcp_command(client: str | None) -> None:
    """Serve this project's discussions to AI coding agents over MCP (stdio).

    Tools: list_discussions, discussion_status, read_discussion, handoff,
    new_discussion, add_comment, start_turn, turn_result, advance, outcome, drift,
    council_memory. Resources: each discussion's markdown (discussion://files/NAME). The agent
    starts the server itself; register it once from the project folder.

    \b
    Examples:
      discussions mcp --print-config claude
      claude mcp add --scope project discussions -- discussions mcp
      codex mcp add discussions -- discussions mcp
      discussions mcp --print-config gemini
      discussions mcp            # serve on stdin/stdout (what the agent runs)
    """
    if client:
        snippet, where = client_config(client.lower())
        click.echo(snippet, nl=False)
        click.echo(where, err=True)
        return
    if importlib.util.find_spec("mcp") is None:
        raise click.ClickException(MISSING_SDK)
    from ..mcp.handshake import open_connection

    # The client's `initialize` is answered before the SDK (most of a second) is imported.
    opening = open_connection(__version__)
    from ..mcp.server import serve

    serve(opening)
