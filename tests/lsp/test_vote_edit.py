"""The language server's "Insert my vote" types into the buffer exactly what
`discussions comment --vote` appends to the file: one writer of a person's comment."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.workspace import PositionCodec, TextDocument

from discussions.lsp.buffer import analyse
from discussions.lsp.edits import catch_up_edit, vote_edit
from discussions.ops.comments import comment
from discussions.settings.workspace import Workspace
from discussions.syntax import clock

from ..conftest import code, run
from .support import editor


@pytest.mark.parametrize("value", ["READY", "CHANGES", "REJECT"])
def test_insert_my_vote_types_what_comment_vote_writes(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setattr(clock, "now_stamp", lambda: "2026-11-28T06:00:00Z")  # one second
    assert code(run("new", "Feature")) == 0
    path = isolated / "discussions" / "feature.md"
    ws = Workspace.discover()
    before = path.read_text(encoding="utf-8")
    edit = vote_edit(path.as_uri(), 1, analyse(ws, path, before), "Rob", value)
    change = (edit.document_changes or [])[0]
    assert isinstance(change, types.TextDocumentEdit)
    (typed,) = [e.new_text for e in change.edits]
    comment(ws, path, "Rob", vote=value)
    assert before + typed == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-8"])
def test_the_vote_goes_after_a_last_line_of_emoji_in_the_editors_units(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, encoding: str
) -> None:
    """A buffer whose last line (no newline after it) holds characters outside the BMP: the
    edit's position counts them as the editor does (two UTF-16 units each by default), or the
    vote lands inside that line, its last words pushed after the comment."""
    monkeypatch.setattr(clock, "now_stamp", lambda: "2026-11-28T06:00:00Z")
    assert code(run("new", "Feature")) == 0
    path = isolated / "discussions" / "feature.md"
    path.write_text(path.read_text(encoding="utf-8") + "Name: Ann\n\nhi 😀😀 there", "utf-8")
    ws = Workspace.discover()
    codec = PositionCodec(encoding)
    doc = TextDocument(path.as_uri(), path.read_text(encoding="utf-8"), position_codec=codec)
    edit = vote_edit(path.as_uri(), 1, analyse(ws, path, doc.source), "Rob", "READY", codec)
    change = (edit.document_changes or [])[0]
    assert isinstance(change, types.TextDocumentEdit)
    for e in change.edits:
        doc.apply_change(types.TextDocumentContentChangePartial(e.range, e.new_text))
    comment(ws, path, "Rob", vote="READY")
    assert doc.source == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_what_the_engine_appended_goes_after_a_last_line_of_emoji(encoding: str) -> None:
    before = "Name: Ann\n\nhi 😀😀 there"
    after = before + "\n\n---\n\nName: Rob\n"
    codec = PositionCodec(encoding)
    doc = TextDocument("file:///x.md", before, position_codec=codec)
    edit = catch_up_edit("file:///x.md", 1, before, after, codec)
    change = (edit.document_changes or [])[0]
    assert isinstance(change, types.TextDocumentEdit)
    for e in change.edits:
        doc.apply_change(types.TextDocumentContentChangePartial(e.range, e.new_text))
    assert doc.source == after


@pytest.mark.slow
def test_the_server_counts_the_insert_in_the_units_it_agreed_on(isolated: Path) -> None:
    """Through the server (UTF-16, the default a client gets): "Insert my vote" and its code
    action after an unsaved last line of emoji leave that line whole, the comment after it."""
    assert code(run("new", "Feature")) == 0
    path = isolated / "discussions" / "feature.md"
    typed = path.read_text(encoding="utf-8") + "Name: Ann\n\nhi 😀😀 there"

    async def scenario() -> list[str]:
        async with editor(isolated) as ed:
            uri = ed.open(path)
            ed.type(uri, typed)
            action = await ed.client.text_document_code_action_async(
                types.CodeActionParams(
                    types.TextDocumentIdentifier(uri),
                    types.Range(types.Position(0, 0), types.Position(0, 0)),
                    types.CodeActionContext([]),
                )
            )
            vote = next(a for a in action or [] if a.title == "Insert my vote: CHANGES")
            assert isinstance(vote, types.CodeAction) and vote.edit is not None
            await ed.client.workspace_execute_command_async(
                types.ExecuteCommandParams("discussions.insertVote", [uri, "ready"])
            )
            return [_in_utf16(typed, ed.edits[0].edit), _in_utf16(typed, vote.edit)]

    for result in asyncio.run(scenario()):
        assert result.startswith(typed + "\n\n---\n\nName: "), result[len(typed) - 20 :]


def _in_utf16(text: str, edit: types.WorkspaceEdit) -> str:
    """`text` with `edit` made as an editor counting UTF-16 units makes it."""
    doc = TextDocument("file:///x.md", text)
    for change in edit.document_changes or []:
        assert isinstance(change, types.TextDocumentEdit)
        for e in change.edits:
            doc.apply_change(types.TextDocumentContentChangePartial(e.range, e.new_text))
    return doc.source
