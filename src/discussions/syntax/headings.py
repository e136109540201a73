"""Separator lines that render as headings: a ``---`` right below a line of text is, to
CommonMark and GitHub, a setext heading's underline, so the line above it shows as a large
heading and no rule is drawn. The engine always leaves a blank line above the separators it
writes; a comment typed by hand may not. Pure."""

from __future__ import annotations

import re

# Lines a `---` below cannot turn into a heading (it is then a rule), as cmark-gfm renders
# them: an indented code line, a list item, an ATX heading, a quote, a fence, an HTML
# comment (an engine marker) or a lone tag (an HTML block), a rule.
_NOT_PARAGRAPH = re.compile(
    r"(?: {4}|\t| {0,3}(?:[-*+][ \t]|\d{1,9}[.)][ \t]|#{1,6}(?:[ \t]|$)|>|```|~~~|<!--"
    r"|</?[A-Za-z][^>]*>[ \t]*$|[-*_=][-*_= \t]*$))"
    r"|.*-->[ \t]*$"
)


_TABLE_ROW = re.compile(r" {0,3}\|")


def underlines(above: str, before: str = "") -> bool:
    """Whether a ``---`` line right below the line `above` (itself below `before`) makes it a
    heading (setext). A ``|`` line under another is a table's row (a rule follows a table);
    alone it is a paragraph."""
    if not above.strip() or _NOT_PARAGRAPH.match(above):
        return False
    return not (_TABLE_ROW.match(above) and _TABLE_ROW.match(before))
