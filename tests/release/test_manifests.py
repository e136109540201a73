"""The agent-ecosystem manifests: the MCP registry's server.json and the Claude Code plugin
(.claude-plugin/), each against its published schema (vendored, see schemas/README.md), and
both saying what the package and its documentation say."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

import discussions
from discussions.cli import cli

from ..documentation import page
from .schemas import SCHEMAS, problems

ROOT = Path(__file__).resolve().parents[2]
VERSION = discussions.__version__
README = page("README.md")  # what reaches PyPI as the package's description
MCP_PAGE = page("mcp.md")  # the MCP server's page of the documentation (it was the README's)
PLUGIN = ROOT / ".claude-plugin"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_vendored_schemas_are_the_recorded_copies() -> None:
    """Each schema file is byte for byte the copy schemas/README.md names, by its digest."""
    notes = (SCHEMAS / "README.md").read_text(encoding="utf-8")
    recorded = dict(re.findall(r"^- `([\w.-]+\.json)`: sha256 `([0-9a-f]{64})`", notes, flags=re.M))
    files = {p.name for p in SCHEMAS.glob("*.json")}
    assert set(recorded) == files
    for name, digest in recorded.items():
        assert hashlib.sha256((SCHEMAS / name).read_bytes()).hexdigest() == digest, name


# --------------------------------------------------------------------------- MCP registry


def test_server_json_follows_the_registry_schema() -> None:
    server = load(ROOT / "server.json")
    assert problems("mcp-server-2025-12-11", server) == []
    assert server["$schema"].endswith("/2025-12-11/server.schema.json")
    server["packages"][0]["version"] = "latest"
    server["description"] = "x" * 101
    assert len(problems("mcp-server-2025-12-11", server)) == 2


def test_server_json_describes_this_release_of_the_mcp_command() -> None:
    server = load(ROOT / "server.json")
    [package] = server["packages"]
    assert server["version"] == package["version"] == VERSION
    assert (package["registryType"], package["identifier"]) == ("pypi", "discussions")
    assert package["transport"] == {"type": "stdio"}
    assert [a["value"] for a in package["packageArguments"]] == ["mcp"]
    [extra] = package["runtimeArguments"]
    assert (extra["name"], extra["value"]) == ("--with", "mcp>=2")  # the mcp extra's pin
    assert '"mcp>=2"' in (ROOT / "pyproject.toml").read_text()
    assert CliRunner().invoke(cli, ["mcp", "--help"]).exit_code == 0


def test_the_readme_carries_the_registry_ownership_line() -> None:
    name = load(ROOT / "server.json")["name"]
    assert f"<!-- mcp-name: {name} -->" in README
    repository = load(ROOT / "server.json")["repository"]["url"]
    assert repository == load(PLUGIN / "plugin.json")["repository"]
    owner = repository.removeprefix("https://github.com/").split("/")[0]
    assert name == f"io.github.{owner}/discussions"


# --------------------------------------------------------------------------- Claude Code plugin


def test_plugin_and_marketplace_follow_their_schemas() -> None:
    assert problems("claude-code-plugin-manifest", load(PLUGIN / "plugin.json")) == []
    assert problems("claude-code-marketplace", load(PLUGIN / "marketplace.json")) == []
    broken = load(PLUGIN / "plugin.json")
    broken["commands"] = "commands-without-dot-slash"
    assert problems("claude-code-plugin-manifest", broken)


def test_the_plugin_registers_the_server_as_the_readme_does() -> None:
    plugin = load(PLUGIN / "plugin.json")
    assert plugin["version"] == VERSION
    gemini = re.search(r'```json\n(\{\n  "mcpServers".*?)```', MCP_PAGE, flags=re.S)
    assert gemini
    assert plugin["mcpServers"] == json.loads(gemini[1])["mcpServers"]
    [entry] = load(PLUGIN / "marketplace.json")["plugins"]
    assert (entry["name"], entry["version"], entry["source"]) == (plugin["name"], VERSION, "./")


def commands() -> dict[str, tuple[dict[str, Any], str]]:
    folder = ROOT / load(PLUGIN / "plugin.json")["commands"]
    found = {}
    for path in sorted(folder.glob("*.md")):
        _, front, body = path.read_text(encoding="utf-8").split("---\n", 2)
        found[path.stem] = (yaml.safe_load(front), body)
    return found


def test_the_plugin_has_turn_status_and_check_commands() -> None:
    found = commands()
    assert set(found) == {"turn", "status", "check"}
    for name, (front, body) in found.items():
        assert front["description"] and len(front["description"]) < 80, name
        assert "argument-hint" in front, name
        assert "$ARGUMENTS" in body, name


def test_the_commands_use_tools_the_server_has() -> None:
    """The MCP tools a command names are rows of docs/mcp.md's tool table (which
    tests/mcp keeps equal to the server's tools); check runs the CLI, allowed by name."""
    tools = set(re.findall(r"^\| `(\w+)` \|", MCP_PAGE.split("\n## ", 1)[0], flags=re.M))
    assert {"start_turn", "turn_result", "discussion_status", "list_discussions"} <= tools
    for name, (_front, body) in commands().items():
        for tool in re.findall(r"`(\w+_\w+)`", body):
            assert tool in tools, (name, tool)
    check_front, check_body = commands()["check"]
    assert check_front["allowed-tools"] == "Bash(discussions check:*)"
    assert "`discussions check $ARGUMENTS`" in check_body
