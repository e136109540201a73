"""The language server's "Insert my vote" types into the buffer exactly what
`discussions comment --vote` appends to the file: one writer of a person's comment."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from discussions.lsp.buffer import analyse
from discussions.lsp.edits import vote_edit
from discussions.ops.comments import comment
from discussions.settings.workspace import Workspace
from discussions.syntax import clock

from ..conftest import code, run


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
