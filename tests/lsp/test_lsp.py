"""The language server over a real stdio connection: a test editor types, asks and hovers."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from ..conftest import code, run
from .support import TIMEOUT, editor


def _discussion(isolated: Path, title: str = "Feature") -> Path:
    assert code(run("new", title, "--participants", "security,architect")) == 0
    return isolated / "discussions" / f"{title.lower()}.md"


def test_a_misspelt_mention_typed_gets_a_diagnostic_with_a_quick_fix(isolated: Path) -> None:
    path = _discussion(isolated)

    async def scenario() -> None:
        async with editor(isolated) as ed:
            uri = ed.open(path)
            assert await ed.diagnostics(uri) == []
            typed = ed.texts[uri] + "\nName: Rob\n\nWhat do you think, @securty?\n"
            ed.type(uri, typed)
            [found] = [d for d in await ed.diagnostics(uri) if d.code == "mention-typo"]
            assert found.message == "@securty matches no participant; did you mean @security?"
            assert found.severity == types.DiagnosticSeverity.Warning
            line = typed.split("\n")[found.range.start.line]
            assert line[found.range.start.character : found.range.end.character] == "@securty"
            actions = await ed.client.text_document_code_action_async(
                types.CodeActionParams(
                    types.TextDocumentIdentifier(uri),
                    found.range,
                    types.CodeActionContext([found]),
                )
            )
            fix = next(a for a in actions or [] if isinstance(a, types.CodeAction) and a.edit)
            assert fix.title == "Change to @security" and fix.kind == "quickfix"
            assert fix.edit is not None
            ed.apply(types.ApplyWorkspaceEditParams(fix.edit))
            assert "What do you think, @security?" in ed.texts[uri]
            assert [d for d in await ed.diagnostics(uri) if d.code == "mention-typo"] == []
            assert path.read_text(encoding="utf-8") != ed.texts[uri]  # typed, never saved

    asyncio.run(scenario())
