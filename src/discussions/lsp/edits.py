"""Edits the server asks the editor to make: a vote typed for the user, and the text the
engine appended to the file, brought into a clean buffer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..ops.comments import comment_block
from ..syntax.render import analyse_tail, join_blocks
from .diagnostics import document_edit

if TYPE_CHECKING:
    from pygls.workspace import PositionCodec

    from .buffer import Buffer


def end_of(text: str, codec: PositionCodec | None = None) -> types.Position:
    """The position just after the last character of `text`, in the editor's units (`codec`:
    the encoding the server and the editor agreed on; None: UTF-16, the protocol's default).
    A last line without a newline after it may hold characters outside the BMP, two UTF-16
    units each: counted in characters, an edit there landed inside that line."""
    lines = text.split("\n")
    last = lines[-1]
    if last.isascii():
        return types.Position(len(lines) - 1, len(last))
    units = codec.client_num_units(last) if codec else len(last.encode("utf-16-le")) // 2
    return types.Position(len(lines) - 1, units)


def vote_edit(
    uri: str,
    version: int | None,
    b: Buffer,
    author: str,
    value: str,
    codec: PositionCodec | None = None,
) -> types.WorkspaceEdit:
    """A comment by `author` voting `value`, appended to the buffer as `discussions comment
    --vote` appends it to the file (`ops.comments.comment_block`: separator, ``Name:`` line,
    its time, ``VOTE:`` line); typed into the buffer, never saved by us. `InvalidVote` or
    `ReservedName` for an author who cannot comment."""
    block = comment_block(b.discussion, author, vote=value)
    added = join_blocks(analyse_tail(b.text, at_file_start=True), [block])
    at = end_of(b.text, codec)
    return document_edit(uri, version, [types.TextEdit(types.Range(at, at), added)])


def catch_up_edit(
    uri: str, version: int | None, before: str, after: str, codec: PositionCodec | None = None
) -> types.WorkspaceEdit:
    """The edit that turns the buffer `before` (the file as it was saved) into the file as the
    engine left it, `after`: the appended text at the end, else (the engine rewrote it, which
    it does not do) the whole text."""
    if after.startswith(before):
        at = end_of(before, codec)
        edit = types.TextEdit(types.Range(at, at), after[len(before) :])
    else:
        edit = types.TextEdit(types.Range(types.Position(0, 0), end_of(before, codec)), after)
    return document_edit(uri, version, [edit])
