"""How comment text is read for display: one rule for the terminal app (`tui`), the web view
and the HTML export (`htmlview`).

* Line breaks are kept. An answer's ``- point`` followed by ``Q: ...`` and ``CONCERN: ...`` on
  the next lines shows three lines, not one bullet that swallows the question and the concern:
  every marker line stays visible as its own line, wherever it stands. (Plain CommonMark joins
  such lines into one paragraph.)
* Raw HTML is text, never markup (comment text is untrusted), and lines that are a whole HTML
  comment (``<!-- provider: ... -->``, ``<!-- PHASE-TRANSITION: ... -->``) are machine data
  the reader does not see, as on GitHub.
* Tables and strikethrough work as on GitHub.
* When a comment was written shows as ``2026-11-23 20:10 UTC`` (`shown_time`) in every view.

    parser = comment_parser()          # a fresh markdown-it parser with these settings
    text = visible_markdown(body)      # what of `body` is shown
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import datetime

    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore

    from ..model.discussion import Discussion

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_MARGINS = ("", " ", "  ", "   ")  # indented less than a code block


def comment_parser() -> MarkdownIt:
    """A markdown-it parser with the display rule above: no raw HTML, tables and
    strikethrough, and every single newline inside a paragraph a hard line break (in the
    tokens, so renderers other than markdown-it's HTML one, such as Textual's, keep it too)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable(
        ["table", "strikethrough"]
    )
    md.core.ruler.push("keep_line_breaks", _keep_line_breaks)
    return md


def _keep_line_breaks(state: StateCore) -> None:
    for token in state.tokens:
        for child in token.children or ():
            if child.type == "softbreak":
                child.type = "hardbreak"
                child.tag = "br"


def visible_markdown(body: str) -> str:
    """`body` without lines that are a whole HTML comment (``<!-- provider: ... -->``,
    ``<!-- PHASE-TRANSITION: ... -->``): machine data the reader does not see on GitHub
    either. Lines in fenced code are kept. One pass over the lines."""
    if "<!--" not in body:
        return body
    kept: list[str] = []
    fence = ""
    for line in body.split("\n"):
        if fence:
            s = line.strip(" \t")
            if s and s == fence[0] * len(s) and len(s) >= len(fence):
                fence = ""
        elif m := _FENCE.match(line):
            fence = m.group(1)
        else:
            s = line.lstrip(" \t")
            lead = line[: len(line) - len(s)]
            s = s.rstrip(" \t")
            if s.startswith("<!--") and s.endswith("-->") and len(s) >= 7 and lead in _MARGINS:
                continue
        kept.append(line)
    return "\n".join(kept)


def preamble_markdown(d: Discussion) -> str:
    """What is being discussed: the text before the first comment, without the header lines
    (HTML comments) and without the title heading (every view shows the title already)."""
    text = visible_markdown(d.preamble)
    head, _, rest = text.lstrip("\n").partition("\n")
    if head.rstrip() == f"# {d.title}":
        text = rest
    return text.strip("\n")


def shown_time(at: datetime) -> str:
    """When a comment was written, for a reader: ``2026-11-23 20:10 UTC`` (the file records
    the second; the views show the minute, in UTC, so every reader sees the same words)."""
    return f"{at:%Y-%m-%d %H:%M} UTC"
