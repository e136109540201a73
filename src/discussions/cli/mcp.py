"""`discussions mcp`: serve the discussions as a local MCP server, or print a client's config."""

from __future__ import annotations

import importlib.util
import json

import click

CLIENTS = ("claude", "codex", "gemini", "json")

MISSING_SDK = (
    "the MCP server needs the `mcp` package: pip install 'discussions[mcp]' "
    "(or: pipx inject discussions mcp)"
)


def client_config(client: str) -> tuple[str, str]:
    """The snippet that registers `discussions mcp` with `client`, and where it goes (see
    README, "Use from AI coding agents"). The server works on the folder it starts in."""
    if client == "claude":
        return (
            "claude mcp add --scope project discussions -- discussions mcp\n",
            "Run it in the project folder: it writes .mcp.json there.",
        )
    if client == "codex":
        return (
            "codex mcp add discussions -- discussions mcp\n",
            "Or add to ~/.codex/config.toml: [mcp_servers.discussions] with "
            'command = "discussions" and args = ["mcp"].',
        )
    entry = {"command": "discussions", "args": ["mcp"]}
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

    Tools: list_discussions, discussion_status, read_discussion, new_discussion,
    add_comment, start_turn, turn_result, advance. Resources: each discussion's
    markdown (discussion://files/NAME). The agent starts the server itself;
    register it once from the project folder.

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
    from ..mcp_server import serve

    serve()
