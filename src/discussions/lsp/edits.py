"""Edits the server asks the editor to make: a vote typed for the user, and the text the
engine appended to the file, brought into a clean buffer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..ops.comments import comment_block
from ..syntax.render import analyse_tail, join_blocks
from .diagnostics import document_edit

if TYPE_CHECKING:
    from .buffer import Buffer


def end_of(text: str) -> types.Position:
    """The position just after the last character of `text` (in characters)."""
    lines = text.split("\n")
    return types.Position(len(lines) - 1, len(lines[-1]))


def vote_edit(
    uri: str, version: int | None, b: Buffer, author: str, value: str
) -> types.WorkspaceEdit:
    """A comment by `author` voting `value`, appended to the buffer as `discussions comment
    --vote` appends it to the file (`ops.comments.comment_block`: separator, ``Name:`` line,
    its time, ``VOTE:`` line); typed into the buffer, never saved by us. `InvalidVote` or
    `ReservedName` for an author who cannot comment."""
    block = comment_block(b.discussion, author, vote=value)
    added = join_blocks(analyse_tail(b.text, at_file_start=True), [block])
    at = end_of(b.text)
    return document_edit(uri, version, [types.TextEdit(types.Range(at, at), added)])


def catch_up_edit(uri: str, version: int | None, before: str, after: str) -> types.WorkspaceEdit:
    """The edit that turns the buffer `before` (the file as it was saved) into the file as the
    engine left it, `after`: the appended text at the end, else (the engine rewrote it, which
    it does not do) the whole text."""
    if after.startswith(before):
        at = end_of(before)
        edit = types.TextEdit(types.Range(at, at), after[len(before) :])
    else:
        edit = types.TextEdit(types.Range(types.Position(0, 0), end_of(before)), after)
    return document_edit(uri, version, [edit])
