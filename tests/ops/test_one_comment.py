"""A person's comment is written through one function (`ops.comments.comment`) from every
interface: the CLI, the MCP server, the web API, the terminal app's composer and the language
server's command each append the same record and answer with the same JSON."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from discussions.settings.workspace import Workspace

from ..conftest import code, out, result_of, run

TEXT = "Ship it, @architec.\n\nQ: What about key rotation?"
"""The comment every interface posts: a question, and a mention that matches no one."""
INTERFACES = ("cli", "mcp", "web", "tui", "lsp")
STAMP = re.compile(r"at: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def appended(path: Path, before: bytes) -> bytes:
    """What was added to the file, its time stamp (the only part that may differ) blanked."""
    after = path.read_bytes()
    assert after.startswith(before)
    return STAMP.sub("at: T", after[len(before) :].decode("utf-8")).encode("utf-8")


def by_cli(path: Path) -> dict[str, Any]:
    r = run("comment", str(path), TEXT, "--vote", "ready", "--author", "Rob", "--json")
    assert code(r) == 0, out(r)
    return result_of(r)


def by_mcp(path: Path) -> dict[str, Any]:
    args = {"file": path.name, "author": "Rob", "text": TEXT, "vote": "ready"}
    is_error, answer = mcp_call("add_comment", args)
    assert not is_error, answer
    return dict(answer)


def mcp_call(tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
    """Call `tool` on a real `discussions mcp` over stdio: (is_error, its JSON or message)."""
    pytest.importorskip("mcp")
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    src = str(Path(__file__).parents[2] / "src")
    env = {k: v for k, v in os.environ.items() if k.startswith(("DISCUSSIONS_", "HOME", "GIT_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "discussions", "mcp"], env=env, cwd=Path.cwd()
    )
    seen: list[tuple[bool, Any]] = []

    async def scenario() -> None:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                result = await session.call_tool(tool, args)
                text = getattr(result.content[0], "text", "") if result.content else ""
                seen.append((result.is_error, result.structured_content or text))

    anyio.run(scenario)
    return seen[0]


def by_web(path: Path) -> dict[str, Any]:
    pytest.importorskip("starlette")
    from ..support.web import LiveServer

    server = LiveServer(Workspace.discover())
    try:
        body = {"author": "Rob", "text": TEXT, "vote": "ready"}
        reply = server.post(f"/api/discussions/{path.name}/comments", body)
        assert reply.status == 201, reply.text
        return dict(reply.json())
    finally:
        server.stop()


def by_tui(path: Path) -> dict[str, Any]:
    from discussions.tui.app import DiscussionsApp
    from discussions.tui.discussion import Composer, DiscussionScreen

    ws = Workspace.discover()
    app = DiscussionsApp(ws.config.output_directory, path, ws)

    async def scenario() -> dict[str, Any]:
        async with app.run_test(size=(80, 24)) as pilot:
            while not isinstance(app.screen, DiscussionScreen):
                await pilot.pause(0.05)
            await pilot.press("c")
            composer = app.screen
            assert isinstance(composer, Composer)
            composer.query_one("#text").load_text(TEXT)  # type: ignore[attr-defined]
            composer.query_one("#vote").value = "READY"  # type: ignore[attr-defined]
            await pilot.press("ctrl+s")
            while composer.posted is None:
                await pilot.pause(0.05)
            return composer.posted.to_dict()

    return asyncio.run(scenario())


def by_lsp(path: Path) -> dict[str, Any]:
    pytest.importorskip("pytest_lsp")
    from lsprotocol import types

    from ..lsp.support import TIMEOUT, editor

    async def scenario() -> dict[str, Any]:
        async with editor(Path.cwd()) as ed:
            uri = ed.open(path)
            await ed.diagnostics(uri)
            command = types.ExecuteCommandParams(
                "discussions.comment", [uri, {"text": TEXT, "vote": "ready"}]
            )
            done = await asyncio.wait_for(
                ed.client.workspace_execute_command_async(command), TIMEOUT
            )
            assert ed.texts[uri] == path.read_text(encoding="utf-8")  # brought into the buffer
            return dict(done)

    return asyncio.run(scenario())


def test_every_interface_writes_the_same_record_and_answers_the_same_json(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The terminal app and the editor sign with git's user.name, as `comment` without --author.
    (isolated / "gitconfig").write_text("[user]\n\tname = Rob\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(isolated / "gitconfig"))
    assert code(run("new", "Tokens", "--participants", "architect,security")) == 0
    folder = isolated / "discussions"
    for name in INTERFACES:
        shutil.copyfile(folder / "tokens.md", folder / f"{name}.md")
    drivers = {"cli": by_cli, "mcp": by_mcp, "web": by_web, "tui": by_tui, "lsp": by_lsp}
    records: dict[str, bytes] = {}
    answers: dict[str, dict[str, Any]] = {}
    for name, drive in drivers.items():
        path = folder / f"{name}.md"
        before = path.read_bytes()
        answer = drive(path)
        records[name] = appended(path, before)
        assert answer.pop("file") == f"discussions/{name}.md", name
        answers[name] = answer
    assert b"Name: Rob\n" in records["cli"] and b"VOTE: READY" in records["cli"]
    assert answers["cli"]["unknown_mentions"] == [
        {"alias": "architec", "did_you_mean": "architect"}
    ]
    for name in INTERFACES[1:]:
        assert records[name] == records["cli"], name
        assert answers[name] == answers["cli"], name


def test_every_interface_refuses_a_comment_alike(isolated: Path) -> None:
    """The checks live in the operation: a person signing with a participant's name, and a
    comment with nothing in it, are refused with the same message by the CLI, the MCP server
    and the web API, and the file is left as it was."""
    assert code(run("new", "Tokens", "--participants", "architect,security")) == 0
    path = isolated / "discussions" / "tokens.md"
    before = path.read_bytes()
    r = run("comment", str(path), "I am the architect.", "--author", "Architect")
    assert code(r) == 1
    said = out(r).removeprefix("Error: ").strip()
    assert said
    is_error, message = mcp_call(
        "add_comment", {"file": path.name, "author": "Architect", "text": "I am the architect."}
    )
    assert is_error and message.endswith(said)
    pytest.importorskip("starlette")
    from ..support.web import LiveServer

    server = LiveServer(Workspace.discover())
    try:
        body = {"author": "Architect", "text": "I am the architect."}
        reply = server.post(f"/api/discussions/{path.name}/comments", body)
        assert reply.status == 400 and reply.json()["error"] == said
        empty = server.post(f"/api/discussions/{path.name}/comments", {"author": "Rob"})
        assert empty.status == 400
        assert empty.json()["error"] == "give comment text, a vote, or both"
    finally:
        server.stop()
    is_error, message = mcp_call("add_comment", {"file": path.name, "author": "Rob"})
    assert is_error and message.endswith("give comment text, a vote, or both")
    assert path.read_bytes() == before
