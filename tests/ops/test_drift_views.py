"""Drift on the decision (issue 38, item 1): the language server's diagnostic at the
decision's line and the web page's side panel, both from `ops.drift.drifted`, in a real
repository whose later commits depart from its decisions."""

from __future__ import annotations

import asyncio
import html
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from ..support.drift import AUTH, RETRY, drifted_repository
from ..support.git import commit_files


@pytest.mark.slow
def test_the_language_server_shows_drift_on_the_decisions_line(repo: Path) -> None:
    from ..lsp.support import editor

    d = drifted_repository(repo)

    async def scenario() -> None:
        async with editor(repo) as ed:
            uri = ed.open(repo / AUTH)
            [found] = [x for x in await ed.diagnostics(uri) if x.code == "drift"]
            assert found.range.start.line == d.auth_line - 1
            assert found.severity == types.DiagnosticSeverity.Warning
            assert found.message.startswith(
                "drift: 3 commits changed the code this decision governs since it was "
                f"recorded ({d.recorded[:7]}): {d.touches[:7]} move the signing helper ("
            )
            assert found.message.endswith("; 1 of them neither touch nor reference this discussion")
            ed.type(uri, ed.texts[uri] + "\nName: Rob\n\nStill right?\n")  # unsaved: still shown
            assert [x.code for x in await ed.diagnostics(uri)].count("drift") == 1

    asyncio.run(scenario())


def test_the_web_panel_shows_drift_under_the_decision(repo: Path) -> None:
    from discussions.settings.workspace import Workspace

    from ..support.web import LiveServer

    d = drifted_repository(repo)
    commit_files(repo, {"src/auth/jwt.py": "ALGORITHM = '<none>'\n"}, "drop <signing> & go")
    server = LiveServer(Workspace.discover())
    try:
        page = server.get("/d/" + Path(AUTH).name).text
        quiet = server.get("/d/" + Path(RETRY).name).text
    finally:
        server.stop()
    decisions = page[page.index('<section id="panel-decisions"') :]
    decisions = decisions[: decisions.index("</section>")]
    assert f'<li data-line="{d.auth_line}">' in decisions
    note = decisions[decisions.index('<p class="drift">') :]
    note = html.unescape(note[len('<p class="drift">') : note.index("</p>")])
    assert note.startswith("drift: 4 commits changed the code this decision governs since it")
    assert "drop <signing> & go (Test User," in note  # escaped in the page, shown as written
    assert "<signing>" not in page
    assert note.endswith("; 2 of them neither touch nor reference this discussion")
    assert '<p class="drift">drift: 1 commit changed' in quiet


@pytest.mark.slow
def test_the_mcp_drift_tool_answers_as_the_command_does(repo: Path) -> None:
    pytest.importorskip("mcp")
    import json

    import anyio

    from discussions.mcp.server import build_server
    from discussions.ops.service import DiscussionTools

    from ..support.git import run_cli

    d = drifted_repository(repo)
    server = build_server(DiscussionTools())

    async def calls() -> tuple[Any, Any, Any]:
        every = await server.call_tool("drift", {})
        one = await server.call_tool("drift", {"files": ["auth-tokens"]})
        try:
            refused = await server.call_tool("drift", {"files": ["../elsewhere.md"]})
        except Exception as exc:  # an SDK that raises the tool's error
            return every, one, exc
        return every, one, refused

    every, one, refused = anyio.run(calls)
    expected = json.loads(run_cli("drift", "--json").stdout)
    assert json.loads(every.content[0].text) == expected
    [auth] = json.loads(one.content[0].text)["decisions"]
    assert auth["line"] == d.auth_line and auth["departures"] == 1
    assert isinstance(refused, Exception) or refused.is_error  # out of the folder: refused
