"""Separator lines that render as headings: a ``---`` right below a line of text is, to
CommonMark and GitHub, a setext heading's underline, so the line above it shows as a large
heading and no rule is drawn. The engine always leaves a blank line above the separators it
writes; a comment typed by hand may not. Pure.

Whether the line above is a paragraph's depends on the lines above it too (up to a blank
line): an indented line or ``2.`` goes on a paragraph, a line after a list item or a quote
goes on the item (a ``---`` below is a rule), and ``|`` lines are a table only with a
delimiter row. `underlines` follows those lines as cmark-gfm (GitHub's renderer) reads them:
the blocks that start, end or go on at each."""

from __future__ import annotations

import re
from collections.abc import Sequence

_NONE, _PARA, _ITEM, _EMPTY_ITEM, _CODE, _TABLE, _HTML, _COMMENT = (
    "none", "para", "item", "empty item", "code", "table", "html", "comment",
)  # fmt: skip
"""What the last line read belongs to: nothing open (a heading, a rule, a closed block), a
paragraph, a list item or quote (one with nothing on its first line), indented code, a table,
an HTML block (until a blank line),
an HTML comment (until ``-->``); a fence is ``fence:`` and its marker."""

_INDENTED = re.compile(r" {0,3}\t| {4}")
_FENCE = re.compile(r"(`{3,}|~{3,})")
_ATX = re.compile(r"#{1,6}(?:[ \t]|$)")
_RULE = re.compile(r"(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_SETEXT = re.compile(r"(?:=+|-+)[ \t]*$")
_BULLET = re.compile(r"[-*+](?:[ \t]+(\S)?|$)")
_ORDERED = re.compile(r"(\d{1,9})[.)](?:[ \t]+(\S)?|$)")
_DELIMITER_ROW = re.compile(r"\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_HTML_START = re.compile(
    r"<(?:script|pre|style|textarea)(?:[\s>]|$)|<\?|<![A-Za-z]|<!\[CDATA\[|</?(?:address|"
    r"article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|"
    r"dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|"
    r"header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|"
    r"p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)"
    r"(?:[\s/>]|$)",
    re.IGNORECASE,
)
"""HTML blocks that may interrupt a paragraph (CommonMark's kinds 1 and 3 to 6)."""
_LONE_TAG = re.compile(r"</?[A-Za-z][^>]*>[ \t]*$")
"""A line that is one tag: an HTML block (kind 7), which cannot interrupt a paragraph."""


def underlines(lines: Sequence[str]) -> bool:
    """Whether a ``---`` line right below `lines` (the lines above it up to a blank line or a
    separator, oldest first) makes the last of them a heading (setext): whether that line is
    in a paragraph at the top level."""
    state, previous = _NONE, ""
    for line in lines:
        state, previous = _after(state, line, previous), line
    return state == _PARA


def _cells(row: str) -> int:
    """How many cells a table row has (its outer pipes optional)."""
    return len(row.strip().removeprefix("|").removesuffix("|").split("|"))


def _after(state: str, line: str, previous: str) -> str:
    """What `line` belongs to, after `previous`, a line that belonged to `state`."""
    if state.startswith(_EMPTY_ITEM):  # a list item with nothing on its first line: what
        width = int(state.rsplit(":", 1)[1])  # is indented past its marker goes in it
        columns = line.expandtabs(4)
        state = _ITEM if len(columns) - len(columns.lstrip(" ")) > width else _NONE
    if state.startswith("fence:"):
        return _NONE if line.lstrip(" ").startswith(state[6:]) else state
    if state == _COMMENT:
        return _NONE if "-->" in line else state
    if state == _HTML:
        return state
    if _INDENTED.match(line):  # code, except where it goes on what is open
        return state if state in (_PARA, _ITEM, _TABLE, _CODE) else _CODE
    text = line.lstrip(" ")
    if state == _PARA and _SETEXT.match(text):
        return _NONE  # the paragraph was a heading
    delimiter = state == _PARA and "|" in text and _DELIMITER_ROW.match(text)
    if delimiter and _cells(text) == _cells(previous):  # else the paragraph goes on
        return _TABLE
    started = _starts(text, state == _PARA)
    if started is not None:
        return started
    return state if state in (_PARA, _ITEM, _TABLE) else _PARA


def _starts(text: str, in_paragraph: bool) -> str | None:
    """The block `text` (a line indented less than four spaces) starts, if any; under a
    paragraph only those that may interrupt one."""
    fence = _FENCE.match(text)
    if fence:
        return "fence:" + fence.group(1)
    if _ATX.match(text) or _RULE.match(text):
        return _NONE
    if text.startswith(">"):
        return _ITEM
    item = _BULLET.match(text) or _ORDERED.match(text)
    if item:
        ordered = item.re is _ORDERED
        empty = item.group(2 if ordered else 1) is None
        first = not ordered or int(item.group(1)) == 1
        if in_paragraph and (empty or not first):
            return None
        return f"{_EMPTY_ITEM}:{len(item.group(0).rstrip())}" if empty else _ITEM
    if text.startswith("<!--"):
        return _NONE if "-->" in text[4:] else _COMMENT
    if _HTML_START.match(text) or (not in_paragraph and _LONE_TAG.match(text)):
        return _HTML
    return None
