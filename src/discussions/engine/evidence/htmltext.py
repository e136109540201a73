"""The readable text of an HTML page, for a ``web`` evidence block: headings (as ``#`` lines),
paragraphs, list items, table rows and preformatted text, each on its own lines; scripts,
styles and other parts nobody reads dropped. The standard library's parser: no page can make
it run anything, and what it cannot parse it skips."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_SKIPPED = frozenset(
    {"script", "style", "noscript", "template", "svg", "math", "iframe", "object", "head"}
)
"""Elements whose content is never text for a reader (``title`` is read from ``head``)."""
_BLOCKS = frozenset(
    {
        "p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "ul",
        "ol", "dl", "dt", "dd", "table", "tr", "blockquote", "figure", "figcaption", "form",
        "hr", "br", "li", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "title", "details",
        "summary",
    }
)  # fmt: skip
"""Elements that start a new line."""
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "source", "wbr", "area", "col"})
_SPACES = re.compile(r"[ \t\r\f\v\n]+")


class _TextParser(HTMLParser):
    """Collects lines of text; `skipping` counts the open elements whose text is dropped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.prefix = ""
        self.skipping = 0
        self.in_pre = 0
        self.in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self.in_title = True
        elif tag in _SKIPPED and tag not in _VOID:
            self.skipping += 1
        if tag in _BLOCKS:
            self.flush()
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.prefix = "#" * int(tag[1]) + " "
        elif tag == "li":
            self.prefix = "- "
        elif tag == "pre":
            self.in_pre += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
            self.flush("Title: ")
            return
        if tag in _SKIPPED and self.skipping:
            self.skipping -= 1
        if tag == "pre" and self.in_pre:
            self.flush_pre()
            self.in_pre -= 1
        elif tag in ("td", "th"):
            self.current.append(" | ")
        elif tag in _BLOCKS:
            self.flush()

    def handle_data(self, data: str) -> None:
        if self.skipping and not self.in_title:
            return
        self.current.append(data)

    def flush(self, prefix: str = "") -> None:
        """End the line being collected (white space collapsed; nothing when empty)."""
        text = _SPACES.sub(" ", "".join(self.current)).strip(" |")
        self.current = []
        if text:
            self.lines.append((prefix or self.prefix) + text)
        self.prefix = ""

    def flush_pre(self) -> None:
        """End a preformatted block: its lines as they are."""
        text = "".join(self.current).strip("\n")
        self.current = []
        if text.strip():
            self.lines.extend(text.split("\n"))


def html_text(html: str) -> str:
    """The readable text of `html` (see the module docstring), paragraphs separated by blank
    lines' worth of structure: one line each."""
    parser = _TextParser()
    try:
        parser.feed(html)
        parser.close()
    except (AssertionError, ValueError):  # a page the parser gives up on: what it read
        pass
    parser.flush()
    return "\n".join(parser.lines)
