"""Parsing a text again after an edit, from the comment the edit is in: an editor's buffer.

A language server parses the same long file on every pause in typing, and almost every edit
is in the last comment. `reparse` keeps what the previous parse found above the edit and
parses only from the start of the comment the edit is in (its ``---`` line): the header, the
preamble and the comments above are the previous parse's, the rest is `parse_document` of
the tail, its line numbers moved down.

Why that is the same as parsing the whole text (`parse_document`): every finding of the
parser depends only on the lines of one comment's segment, or on the lines above a point
(a boundary's ``---`` run, the heading check of the line above a ``---``, which stops at a
blank line or a ``---``, so never above the boundary it is in). A boundary that ends (its
``Name:`` line's newline included) before the first changed character is still a boundary,
with the same separator run: its ``---`` line is a place to start again. A bare ``Name:``
line (no ``---`` above it) is not, since whether it starts a comment depends on the markdown
of the segment above it. Text with a carriage return or a byte-order mark, where the parser
moves characters before counting lines, is parsed whole.

The one difference: the result's warnings are in line order (stable: on one line, in the
order the parser finds them), where `parse_document` lists them pass by pass; `derive`
sorts them the same way, so the derived state is the same (``tests/lsp/test_reparse.py``
compares the two on random edits).
"""

from __future__ import annotations

import copy

from .document import CommentBlock, Document, EngineMarker, ParseWarning
from .parse import parse_document
from .text import BOM

_BLOCK = 1 << 16
"""Characters compared at a time when looking for the first change."""


def reparse(old: Document, old_text: str, text: str) -> Document:
    """The parse of `text`, given `old`, the parse of `old_text` (by `parse_document` or
    by `reparse`): parsed again only from the comment the first difference is in."""
    at = _first_difference(old_text, text)
    if at < 0:
        return _in_line_order(old)
    start = None if _moves_lines(old_text) or _moves_lines(text) else _restart(old, text, at)
    if start is None:
        return _in_line_order(parse_document(text))
    index, offset = start
    tail = parse_document(text[offset:])
    return _joined(old, index, tail, text)


def _moves_lines(text: str) -> bool:
    """Whether the parser changes characters of `text` before counting lines (newlines, BOMs)."""
    return "\r" in text or BOM in text


def _first_difference(a: str, b: str) -> int:
    """The offset of the first character where `a` and `b` differ (one may end there), -1
    when they are equal. Compares blocks of `_BLOCK`, then halves the one that differs."""
    if a == b:
        return -1
    n = min(len(a), len(b))
    lo = 0
    while lo < n and a[lo : lo + _BLOCK] == b[lo : lo + _BLOCK]:
        lo += _BLOCK
    lo = min(lo, n)
    hi = min(lo + _BLOCK, n)
    while lo < hi:  # a[:lo] == b[:lo]; the first difference is in a[lo:hi] or at hi
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _restart(old: Document, text: str, at: int) -> tuple[int, int] | None:
    """(index of the comment to parse from, offset of its first ``---`` line in `text`) for
    a first change at offset `at`; None when no comment with a ``---`` line ends its
    ``Name:`` line before it (then the whole text is parsed)."""
    line = text.count("\n", 0, at) + 1
    for index in range(len(old.comments) - 1, -1, -1):
        c = old.comments[index]
        if c.line < line and c.separator_line < c.line:
            return index, _line_start(text, at, line - c.separator_line)
    return None


def _line_start(text: str, at: int, up: int) -> int:
    """The offset of the start of the line `up` lines above the line holding offset `at`."""
    start = text.rfind("\n", 0, at) + 1
    for _ in range(up):
        start = text.rfind("\n", 0, start - 1) + 1
    return start


def _joined(old: Document, index: int, tail: Document, text: str) -> Document:
    """`old` up to its comment `index`, then `tail` (the parse from that comment's ``---``
    line) moved down to where it starts."""
    first = old.comments[index].separator_line
    down = first - 1
    warnings = [w for w in old.warnings if w.line <= first]  # at `first`: its heading check
    warnings.sort(key=_line)
    warnings += sorted((w.moved(down) for w in tail.warnings), key=_line)
    return Document(
        header=dict(old.header),
        header_fields=list(old.header_fields),
        is_discussion=old.is_discussion,
        preamble=old.preamble,
        preamble_line=old.preamble_line,
        comments=old.comments[:index] + [_moved_comment(c, down) for c in tail.comments],
        engine_markers=[m for m in old.engine_markers if m.line < first]
        + [EngineMarker(m.kind, m.line + down, m.source, m.target) for m in tail.engine_markers],
        warnings=warnings,
        newline="\n",
        line_count=text.count("\n") + (0 if text.endswith("\n") or not text else 1),
    )


def _moved_comment(c: CommentBlock, down: int) -> CommentBlock:
    return CommentBlock(
        c.author,
        c.separator_line + down,
        c.line + down,
        c.body,
        c.body_line + down,
        c.end_line + down,
    )


def _in_line_order(doc: Document) -> Document:
    """A copy of `doc` with its warnings in line order (as `reparse` gives them)."""
    out = copy.copy(doc)
    out.warnings = sorted(doc.warnings, key=_line)
    return out


def _line(w: ParseWarning) -> int:
    return w.line
