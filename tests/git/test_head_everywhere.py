"""The commit a comment's citations are read at (issue 37, item 2), in a real git repository:
every door a comment comes in by records ``head:`` when it cites the code (the web API's POST,
the MCP tool, the language server's command, the contrarian's answer), and a comment typed by
hand, which records none, is resolved at the commit that introduced it (`git.commented`), so
its citations go stale as the code moves on, like an engine-written one's."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from discussions.git.grounding import current_head, ground
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace
from discussions.syntax.render import render_comment

from ..conftest import code, out, run
from ..support.contrarian import advocate_comments, contrarian_council
from ..support.git import commit_all, commit_files, git_line
from ..support.quorum import ALIASES, open_vote

NET = "".join(f"x{n} = {n}\n" for n in range(1, 21)).replace("x12 = 12", "while True: retry()")
CITES = "It spins at src/net.py:12 `while True: retry()`."


@pytest.fixture
def project(repo: Path) -> Path:
    """A committed repository holding src/net.py and a discussion."""
    commit_files(repo, {"src/net.py": NET, "discussions.yaml": "providers:\n  detect: false\n"})
    assert code(run("new", "Talk", "--participants", "architect,security")) == 0
    commit_all(repo, "talk")
    return repo


def _talk(root: Path) -> Path:
    return root / "discussions" / "talk.md"


def _last(path: Path) -> dict[str, str]:
    return Discussion.load(path).comments[-1].meta


def _verdict(path: Path) -> tuple[str, str]:
    d = Discussion.load(path, Workspace.discover(path.parent))
    ground(d)
    assert d.grounding is not None
    [(_, v)] = [(k, v) for k, v in d.grounding.items() if k[1] == "src/net.py:12"]
    return v.status, v.against


def _move_the_code(root: Path) -> None:
    (root / "src" / "net.py").write_text(NET.replace("while True: retry()", "for _ in range(3):"))
    commit_all(root, "bounded")


def test_a_hand_typed_comment_is_read_at_the_commit_that_introduced_it(project: Path) -> None:
    path = _talk(project)
    with path.open("a", encoding="utf-8") as f:  # as an editor saves it: no metadata line
        f.write("\n" + render_comment("Rob", CITES))
    assert _verdict(path) == ("grounded", "the working tree")  # not committed yet
    commit_all(project, "Rob's comment")
    commented = current_head(project)
    _move_the_code(project)
    status, against = _verdict(path)
    assert status == "stale"
    assert against == f"commit {commented[:7]} (where the comment was committed)"
    r = run("status", str(path), "--json")
    assert code(r) == 0, out(r)
    [cited] = json.loads(out(r))["grounds"]["citations"]
    assert cited["verdict"]["status"] == "stale"


def test_a_buffer_that_is_not_the_file_on_disk_is_read_against_the_work_tree(
    project: Path,
) -> None:
    path = _talk(project)
    with path.open("a", encoding="utf-8") as f:
        f.write("\n" + render_comment("Rob", CITES))
    commit_all(project, "Rob's comment")
    d = Discussion.load(path, Workspace.discover(project))
    shifted = d.text.replace("\nName: Rob\n", "\nA line typed above.\n\nName: Rob\n")
    edited = d.seen_as(shifted)  # an editor's unsaved buffer
    ground(edited)
    assert {v.against for v in (edited.grounding or {}).values()} == {"the working tree"}


def test_the_web_api_records_head(project: Path) -> None:
    from ..support.web import LiveServer

    server = LiveServer(Workspace.discover(project))
    try:
        reply = server.post("/api/discussions/talk.md/comments", {"author": "Rob", "text": CITES})
    finally:
        server.stop()
    assert reply.status == 201, reply.text
    assert _last(_talk(project))["head"] == git_line(project, "rev-parse", "HEAD")


@pytest.mark.slow
def test_the_mcp_tool_records_head(project: Path) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from ..support.subprocesses import server_env

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "discussions", "mcp"], env=server_env(), cwd=project
    )

    async def scenario() -> Any:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                args = {"file": "talk.md", "author": "Rob", "text": CITES}
                return await session.call_tool("add_comment", args)

    added = anyio.run(scenario)
    assert not added.is_error, added.content
    assert _last(_talk(project))["head"] == git_line(project, "rev-parse", "HEAD")


@pytest.mark.slow
def test_the_language_servers_comment_command_records_head(project: Path) -> None:
    from lsprotocol import types

    from ..lsp.support import TIMEOUT, editor

    path = _talk(project)

    async def scenario() -> Any:
        async with editor(project) as ed:
            uri = ed.open(path)
            await ed.diagnostics(uri)
            command = types.ExecuteCommandParams("discussions.comment", [uri, {"text": CITES}])
            return await asyncio.wait_for(
                ed.client.workspace_execute_command_async(command), TIMEOUT
            )

    done = asyncio.run(scenario())
    assert "error" not in done, done
    assert _last(path)["head"] == git_line(project, "rev-parse", "HEAD")


def test_the_contrarians_answer_records_head(repo: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    challenge = json.dumps({"comment": "CONCERN: it spins, see src/net.py:12."})
    commit_files(repo, {"src/net.py": NET})
    contrarian_council(repo, providers_file, challenge=challenge)
    path = open_vote()
    assert code(run("turn", "auth.md", *(f"@{a}" for a in ALIASES))) == 0
    d = Discussion.load(path)
    assert advocate_comments(d.text) == 1
    [advocate] = [c for c in d.comments if c.author == "AI-Advocate"]
    assert advocate.meta["head"] == git_line(repo, "rev-parse", "HEAD")
