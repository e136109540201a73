"""The editor shows a comment header typed with formatting and offers the plain form."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from ..conftest import code, run
from .support import editor


@pytest.mark.slow
def test_a_formatted_name_header_gets_a_diagnostic_and_a_quick_fix(isolated: Path) -> None:
    assert code(run("new", "Feature", "--participants", "security")) == 0
    path = isolated / "discussions" / "feature.md"

    async def scenario() -> None:
        async with editor(isolated) as ed:
            uri = ed.open(path)
            assert await ed.diagnostics(uri) == []
            ed.type(uri, ed.texts[uri] + "\n---\n\n**Name:** Rob\n\nVOTE: READY\n")
            [found] = [d for d in await ed.diagnostics(uri) if d.code == "header-formatting"]
            assert found.severity == types.DiagnosticSeverity.Warning
            actions = await ed.client.text_document_code_action_async(
                types.CodeActionParams(
                    types.TextDocumentIdentifier(uri), found.range, types.CodeActionContext([found])
                )
            )
            fix = next(a for a in actions or [] if isinstance(a, types.CodeAction) and a.edit)
            assert fix.title == "Change to Name: Rob" and fix.edit is not None
            ed.apply(types.ApplyWorkspaceEditParams(fix.edit))
            assert "\nName: Rob\n\nVOTE: READY\n" in ed.texts[uri]
            assert [d for d in await ed.diagnostics(uri) if d.code == "header-formatting"] == []

    asyncio.run(scenario())
