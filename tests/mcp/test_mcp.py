"""`discussions mcp`: a real stdio MCP server, driven by the official SDK's own client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from discussions.cli import cli

from ..support.subprocesses import server_env as _env


def _payload(result: Any) -> Any:
    """A tool result's JSON: structured content when given, else the text."""
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if set(content) == {"result"} else content
    return json.loads(result.content[0].text)


def test_print_config_needs_no_sdk() -> None:
    code = (
        "import sys\n"
        "from discussions.cli import cli\n"
        "try:\n"
        "    cli(['mcp', '--print-config', 'codex'], prog_name='discussions')\n"
        "except SystemExit:\n"
        "    pass\n"
        "assert 'mcp' not in sys.modules, 'the SDK was imported'\n"
        "assert 'discussions.mcp.server' not in sys.modules\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_env(), check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("codex mcp add discussions -- /")
    assert out.stdout.endswith(" mcp\n")
    assert "[mcp_servers.discussions]" in out.stderr


@pytest.mark.parametrize(
    ("client", "expected"),
    [
        ("claude", "claude mcp add --scope project discussions -- /"),
        ("gemini", '"mcpServers"'),
        ("json", '"args": [\n        "mcp"\n      ]'),
    ],
)
def test_print_config(client: str, expected: str) -> None:
    r = CliRunner().invoke(cli, ["mcp", "--print-config", client])
    assert r.exit_code == 0, r.output
    assert expected in r.stdout
    if client != "claude":
        entry = json.loads(r.stdout)["mcpServers"]["discussions"]
        assert Path(entry["command"]).is_absolute()
        assert entry["args"][-1] == "mcp"


def test_print_config_command_runs_without_path(tmp_path: Path) -> None:
    """An agent started outside the virtual environment has no `discussions` on its PATH: the
    printed command is absolute and starts this installation by itself."""
    r = CliRunner().invoke(cli, ["mcp", "--print-config", "json"])
    entry = json.loads(r.stdout)["mcpServers"]["discussions"]
    env = {k: v for k, v in _env().items() if k != "PATH"} | {"PATH": str(tmp_path)}
    out = subprocess.run(
        [entry["command"], *entry["args"], "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "Serve this project's discussions" in out.stdout


def test_other_commands_do_not_import_the_server() -> None:
    code = (
        "import sys\n"
        "from discussions.cli import cli\n"
        "try:\n"
        "    cli(['list'], prog_name='discussions')\n"
        "except SystemExit:\n"
        "    pass\n"
        "assert 'discussions.mcp.server' not in sys.modules\n"
        "assert 'mcp' not in sys.modules\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_env(), check=False
    )
    assert out.returncode == 0, out.stderr


def test_missing_sdk_message(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a)
    )
    r = CliRunner().invoke(cli, ["mcp"])
    assert r.exit_code == 1
    assert "Error: the MCP server needs the `mcp` package: pip install 'discussions[mcp]'" in (
        r.output
    )


@pytest.mark.slow
def test_server_over_stdio(isolated: Path) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "discussions", "mcp"], env=_env(), cwd=isolated
    )
    cli_error = CliRunner().invoke(cli, ["status", "nope.md"]).output.strip()
    assert cli_error.startswith("Error: ")
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                tools = await session.list_tools()
                seen["tools"] = sorted(t.name for t in tools.tools)
                seen["descriptions"] = {t.name: t.description or "" for t in tools.tools}

                created = await session.call_tool(
                    "new_discussion",
                    {"title": "Cache layer", "participants": ["architect"]},
                )
                assert not created.is_error, created.content
                seen["created"] = _payload(created)
                file = seen["created"]["file"]

                added = await session.call_tool(
                    "add_comment",
                    {"file": file, "author": "Rob", "text": "Use Redis?", "vote": "changes"},
                )
                assert not added.is_error, added.content
                seen["added"] = _payload(added)

                started = await session.call_tool("start_turn", {"file": file, "provider": "mock"})
                assert not started.is_error, started.content
                ticket = _payload(started)["ticket"]
                outcome: dict[str, Any] = {"state": "running"}
                for _ in range(10):
                    got = await session.call_tool("turn_result", {"ticket": ticket, "wait": 10})
                    outcome = _payload(got)
                    if outcome["state"] != "running":
                        break
                seen["outcome"] = outcome

                read_back = await session.call_tool("read_discussion", {"file": file})
                seen["read"] = _payload(read_back)
                resources = await session.list_resources()
                seen["resources"] = [str(r.uri) for r in resources.resources]
                markdown = await session.read_resource(seen["resources"][0])
                seen["markdown"] = markdown.contents[0].text  # type: ignore[union-attr]

                missing = await session.call_tool("discussion_status", {"file": "nope.md"})
                seen["error"] = (missing.is_error, missing.content[0].text)  # type: ignore[union-attr]

    anyio.run(scenario)

    assert seen["tools"] == sorted(
        [
            "add_comment",
            "advance",
            "council_memory",
            "discussion_status",
            "drift",
            "handoff",
            "list_discussions",
            "new_discussion",
            "outcome",
            "read_discussion",
            "start_turn",
            "turn_result",
        ]
    )
    assert all("Args:" in d or "file" in d for d in seen["descriptions"].values())
    assert seen["created"]["file"] == "discussions/cache-layer.md"
    assert seen["added"]["vote"] == "CHANGES"
    assert seen["outcome"]["state"] == "done", seen["outcome"]
    assert seen["outcome"]["result"]["posted"] == 1
    text = (isolated / "discussions" / "cache-layer.md").read_text(encoding="utf-8")
    assert "Name: Rob" in text and "Use Redis?" in text and "VOTE: CHANGES" in text
    authors = [c["author"] for c in seen["read"]["comments"]]
    assert authors[0] == "Rob" and len(authors) == 2
    assert seen["resources"] == ["discussion://files/cache-layer.md"]
    assert seen["markdown"] == text
    # The SDK puts "Error executing tool NAME: " before the message; the message is the CLI's.
    is_error, message = seen["error"]
    assert is_error
    assert message == "Error executing tool discussion_status: " + cli_error.removeprefix("Error: ")


@pytest.mark.slow
def test_tools_without_the_sdk(isolated: Path) -> None:
    """The library layer: bounded reads, unknown tickets, the CLI's messages."""
    from discussions.errors import DiscussionsError
    from discussions.mcp.server import DiscussionTools
    from discussions.ops.comments import comment
    from discussions.ops.lifecycle import advance, create

    tools = DiscussionTools()
    with pytest.raises(DiscussionsError, match="no discussions folder at discussions"):
        tools.list_discussions()
    created = create(tools.workspace, "Bounded", participants=["architect"]).to_dict()
    file = created["file"]
    with pytest.raises(DiscussionsError, match="already exists; choose another name"):
        create(tools.workspace, "Bounded")
    for i in range(5):
        comment(tools.workspace, tools.served(file), "Rob", f"comment {i} " + "x" * 100)
    read = tools.read_discussion(file, comments=3, max_chars=150)
    assert read["total_comments"] == 5
    assert [c["text"][:9] for c in read["comments"]] == ["comment 4"]
    assert read["truncated"]
    with pytest.raises(DiscussionsError, match="give comment text, a vote, or both"):
        comment(tools.workspace, tools.served(file), "Rob")
    with pytest.raises(DiscussionsError, match="no turn with ticket 'turn-9'"):
        tools.turn_result("turn-9", wait=0)
    ticket = tools.start_turn(file, ["architect"], provider="mock")["ticket"]
    outcome = tools.turn_result(ticket, wait=30)
    assert outcome["state"] == "done" and outcome["result"]["posted"] == 1
    assert any(e["kind"] == "done" for e in outcome["progress"])
    assert advance(tools.workspace, tools.served(file)).phase != created["phase"]
    assert [r["file"] for r in tools.list_discussions()] == [file]


def _mcp_session(isolated: Path, calls: Any) -> dict[str, Any]:
    """Run `calls(session, seen)` against a real `discussions mcp` over stdio."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "discussions", "mcp"], env=_env(), cwd=isolated
    )
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                await calls(session, seen)

    anyio.run(scenario)
    return seen


@pytest.mark.slow
def test_tools_and_resources_stay_in_the_discussions_folder(isolated: Path, tmp_path: Path) -> None:
    """Absolute paths elsewhere, `../`, links out of the project and links to files that are
    not discussions are refused by every tool and resource; the project's discussions work."""
    pytest.importorskip("mcp")
    assert CliRunner().invoke(cli, ["new", "Auth"]).exit_code == 0
    folder = isolated / "discussions"
    own = folder / "auth.md"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = elsewhere / "other.md"
    other.write_text(own.read_text().replace("Auth", "Elsewhere"), encoding="utf-8")
    secret = tmp_path / "home" / "secret.txt"
    secret.write_text("password=hunter2\n", encoding="utf-8")
    (folder / "notes.md").symlink_to(Path("..") / ".." / "home" / "secret.txt")
    (folder / "link.md").symlink_to(other)
    (folder / "readme.md").write_text("# Not a discussion\n", encoding="utf-8")
    (folder / "alias.md").symlink_to(secret)  # absolute link to a non-discussion
    before = {p: p.read_bytes() for p in (own, other, secret)}

    refused_files = [
        str(other),  # absolute, elsewhere
        "../elsewhere/other.md",
        "discussions/../../elsewhere/other.md",
        "link.md",  # a link out of the project
        "notes.md",  # a link to a secret file
        "alias",
        "readme.md",  # not a discussion
        "x" * 5000,
    ]

    async def calls(session: Any, seen: dict[str, Any]) -> None:
        refusals: dict[str, list[tuple[bool, str]]] = {}
        for file in refused_files:
            got = []
            for tool, args in [
                ("discussion_status", {}),
                ("read_discussion", {}),
                ("add_comment", {"author": "Rob", "text": "written", "vote": "READY"}),
                ("advance", {}),
                ("start_turn", {"provider": "mock"}),
                ("handoff", {}),
            ]:
                result = await session.call_tool(tool, {"file": file, **args})
                got.append((result.is_error, result.content[0].text))
            refusals[file] = got
        seen["refusals"] = refusals
        seen["resources"] = sorted(str(r.uri) for r in (await session.list_resources()).resources)
        seen["listed"] = _payload(await session.call_tool("list_discussions", {}))
        reads: dict[str, str] = {}
        for name in ("notes.md", "link.md", "alias.md", "readme.md", "..%2F..%2Fhome%2Fsecret.txt"):
            try:
                res = await session.read_resource(f"discussion://files/{name}")
                reads[name] = "served: " + res.contents[0].text  # type: ignore[union-attr]
            except Exception as exc:  # the SDK raises the server's error
                reads[name] = f"refused: {exc}"
        seen["reads"] = reads
        accepted = {}
        for file in ("auth", "auth.md", "discussions/auth.md", str(own)):
            result = await session.call_tool("discussion_status", {"file": file})
            accepted[file] = (result.is_error, result.content[0].text[:200])
        seen["accepted"] = accepted

    seen = _mcp_session(isolated, calls)

    for file, got in seen["refusals"].items():
        for is_error, message in got:
            assert is_error, (file, message)
            assert "hunter2" not in message and "Elsewhere" not in message
    assert "symbolic link out of the project" in seen["refusals"]["link.md"][0][1]
    assert "not a discussion" in seen["refusals"]["readme.md"][0][1]
    assert "discussions folder" in seen["refusals"][str(other)][0][1]
    assert {p: p.read_bytes() for p in (own, other, secret)} == before
    assert seen["resources"] == ["discussion://files/auth.md"]
    assert [r["file"] for r in seen["listed"]] == ["discussions/auth.md"]
    for name, outcome in seen["reads"].items():
        assert outcome.startswith("refused"), (name, outcome)
        assert "hunter2" not in outcome
    for file, (is_error, text) in seen["accepted"].items():
        assert not is_error, (file, text)


@pytest.mark.slow
def test_start_turn_refuses_a_replay_provider_like_the_web_api(isolated: Path) -> None:
    """A replay reads the file it names: no agent may choose one (one rule with the web API)."""
    pytest.importorskip("mcp")
    from discussions.errors import DiscussionsError
    from discussions.ops.service import DiscussionTools

    assert CliRunner().invoke(cli, ["new", "Auth", "--participants", "architect"]).exit_code == 0
    assert CliRunner().invoke(cli, ["turn", "auth.md", "--provider", "mock"]).exit_code == 0
    path = isolated / "discussions" / "auth.md"
    before = path.read_bytes()

    async def calls(session: Any, seen: dict[str, Any]) -> None:
        got = []
        for provider in (f"replay:{path}", "replay:discussions/auth.md", "nope"):
            result = await session.call_tool(
                "start_turn",
                {"file": "auth.md", "participants": ["architect"], "provider": provider},
            )
            got.append((result.is_error, result.content[0].text))
        seen["got"] = got

    seen = _mcp_session(isolated, calls)
    for is_error, message in seen["got"][:2]:
        assert is_error and "replay" in message and "command line" in message, message
    assert seen["got"][2][0] and "nope: no provider of that name" in seen["got"][2][1]
    assert path.read_bytes() == before
    tools = DiscussionTools()
    with pytest.raises(DiscussionsError, match="command line"):
        tools.start_run("auth.md", ["architect"], rounds=1, provider=f"replay:{path}")
    assert path.read_bytes() == before
