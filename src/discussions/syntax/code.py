"""Which lines of markdown are code: fenced and indented blocks, open fences, hidden HTML."""

from __future__ import annotations

import re
from bisect import bisect_right

from .fences import FENCE_LINE as _FENCE
from .fences import FencePairs
from .fences import open_fence_at_end as open_fence_at_end
from .lazyre import Lazy

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (see __main__)
if TYPE_CHECKING:
    from markdown_it import MarkdownIt


def fenced_line_ranges(text: str) -> list[tuple[int, int]]:
    """0-based, inclusive line ranges of fenced code blocks in `text` (fences included).

    CommonMark fence rules at the top level (`FencePairs`), a fence indented at most three
    spaces. An unclosed fence runs to the end of `text`.
    """
    pairs = FencePairs()
    line = pos = 0
    for m in _FENCE.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        pairs.fence(line, m.group(1), m.group(2))
    return pairs.end(text.count("\n"))


# Lines whose meaning for fences depends on more than the line itself: a fence after
# anything (spaces, ``>``, a list marker: it is in a container, and ends with it), or an HTML
# block start (a fence inside one is no fence). Possessive: no backtracking on long runs.
_NEEDS_MARKDOWN = Lazy(r"^(?:[ \t>*+\-.)0-9]++(?:`{3}|~{3})|[ \t>*+\-.)0-9]*+<[A-Za-z!?/])", re.M)


# An indented line that is not blank: `_INDENTED` from a newline (the search skips from newline
# to newline, where ``^`` with re.M is tried at every character), `_INDENTED_AT` at the start.
_INDENTED_AT = Lazy(r"(?: {4}|\t)[ \t]*+\S")
_INDENTED = Lazy(r"\n(?: {4}|\t)[ \t]*+\S")


def _indented(text: str) -> bool:
    """Whether a line of `text` that is not blank is indented four spaces or a tab."""
    return _INDENTED_AT.match(text) is not None or _INDENTED.search(text) is not None


def code_line_ranges(text: str) -> list[tuple[int, int]]:
    """0-based inclusive line ranges of code blocks (fenced and indented) in `text`, which
    starts at the top level (a comment body, a preamble); sorted and disjoint.

    Fast path: fences at column 0 with no HTML block around are top-level fences, exactly as
    CommonMark reads them, and `fenced_line_ranges` finds them without a markdown parse.
    Otherwise (indented lines, indented fences, HTML blocks) markdown-it-py decides."""
    if _indented(text) or (("```" in text or "~~~" in text) and _NEEDS_MARKDOWN.search(text)):
        ranges = [
            (t.map[0], t.map[1] - 1)
            for t in block_parser().parse(text)
            if t.type in ("fence", "code_block") and t.map is not None
        ]
        ranges.sort()
        return ranges
    if "```" in text or "~~~" in text:
        return fenced_line_ranges(text)
    return []


# After a newline, a line that may open or close a fence at the top level (indent, run, info),
# or that starts an HTML block in any container (its text from the ``<``). Searched in the text
# with a newline before it: a literal start lets the search skip from newline to newline.
# (The lookahead, what such a line may start with, fails most lines of prose at once.)
_TOP_LINE = Lazy(
    r"\n(?=[ \t>*+\-.)0-9<`~])"
    r"(?:([ ]{0,3})(`{3,}|~{3,})([^\n]*)|[ \t>*+\-.)0-9]*+(<[A-Za-z!?/][^\n]*))(?=\n|\Z)"
)


def top_fences(text: str) -> list[tuple[int, int]] | None:
    """0-based inclusive line ranges of the fenced code blocks at the top level of `text` (not
    in a list item or a quote) when its lines alone tell them, as markdown-it finds them; None
    when only a markdown parse can (an HTML block other than a one-line comment, or a fence
    opened with one to three spaces before it, which a list item may hold).

    Why lines suffice: a line at column 0 that is not blank and not quoted (`_plain_line`) ends
    every list item, quote and indented block before it (a fence in an item ends there too),
    so it is code only inside a top-level fence; and a fence run at column 0, outside one,
    opens one, whatever came before. A long discussion's comments hold nested lists and code
    under list items, which `code_line_ranges` needs markdown-it for (three parses of each
    such comment were most of `status` on a large file); the questions asked of them
    (markers, mentions, engine markers at column 0; an open fence at the end) need only this.
    """
    return _top_fences(text)[0]


def _top_fences(text: str) -> tuple[list[tuple[int, int]] | None, str]:
    """`top_fences` of `text`, and the fence that closes the last of them if it is left open
    at the end (``""`` if it is closed; what `open_fence_at_end` finds, when lines tell)."""
    if "\r" in text:
        return None, ""  # markdown-it ends lines at a lone carriage return too
    lines = "\n" + text  # the n-th newline here starts line n
    if _too_deep(lines):
        return None, ""
    pairs = FencePairs()
    line = pos = 0
    for m in _TOP_LINE.finditer(lines):
        if m.group(2) is None:  # an HTML block start
            html = m.group(4)
            if not pairs.open_run and not (html.startswith("<!--") and "-->" in html):
                return None, ""  # it may run on over lines, fences and all
            continue
        line += lines.count("\n", pos, m.start())
        pos = m.start()
        if pairs.fence(line, m.group(2), m.group(3)) and m.group(1):
            return None, ""  # opened with spaces before it: a list item may hold it
    return (pairs.end(text.count("\n")) if pairs.open_run else pairs.ranges), pairs.open_run


# A line whose containers (quotes, list items, their indentation) may nest deep.
_DEEP = Lazy(r"\n([ \t>*+\-.)0-9]{8,})")
_NESTING = 16
"""How deep `_too_deep` lets containers go: markdown-it stops reading a document at 20 levels
(its ``maxNesting``), so what comes after is no code for it, fenced or not."""


def _too_deep(lines: str) -> bool:
    """Whether a line's containers may nest `_NESTING` levels deep or more (in `lines`, a text
    with a newline before it): each quote is one level, each list two (the list and its
    item), and a list nested in another is indented two columns more at least; so a quote
    counts two here, a column one."""
    for m in _DEEP.finditer(lines):
        prefix = m.group(1)
        if len(prefix.expandtabs(4)) + prefix.count(">") >= _NESTING:
            return True
    return False


# A list item whose text starts on its line with nothing that could be code (no fence, no
# indented code, no quote or list of its own, no HTML).
_PLAIN_ITEM = Lazy(r"(?:[-*+]|[0-9]{1,9}[.)])[ ]{1,4}[^\s`~>\-*+0-9<]")


def _plain_line(text: str, start: int) -> bool:
    """Whether the line of `text` starting at offset `start` is one `top_fences` answers for:
    it starts at column 0, not with a blank or a quote's ``>``, and if with a list marker,
    then one whose text is plainly no code (``- ```` opens a fence in the item)."""
    if start >= len(text) or text[start] in " \t\n>":
        return False
    if text[start] in "-*+0123456789":
        return _PLAIN_ITEM.match(text, start) is not None
    return True


def _no_fence_line(text: str) -> bool:
    """Whether no line of `text` is a fence at the top level (at most three spaces, then three
    backticks or tildes), and its lines end at newlines alone (markdown-it ends them at a lone
    carriage return too): found with string searches, each line with a run read up to its
    first run only (a fence line's run comes first). Most comments of AI answers hold no such
    line: their code stands under list items."""
    if "\r" in text:
        return False
    for run in ("```", "~~~"):
        at = text.find(run)
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            if at - start <= 3 and text.count(" ", start, at) == at - start:
                return False
            end = text.find("\n", at)
            at = -1 if end < 0 else text.find(run, end)
    return True


class CodeLines:
    """Which lines of `text` (which starts at the top level) are code, asked line by line: a
    `_plain_line` from `top_fences` when they tell, any other line (or every line, when they do
    not) from `code_line_ranges`, each found once and only when first needed."""

    __slots__ = ("text", "top_known", "top", "top_open", "top_starts", "all", "all_starts")

    def __init__(self, text: str) -> None:
        self.text = text
        self.top_known = False
        self.top: list[tuple[int, int]] | None = None
        self.top_open = ""
        """The fence that closes the last of `top` if it is left open at the end, else ``""``."""
        self.top_starts: list[int] = []
        self.all: list[tuple[int, int]] | None = None
        self.all_starts: list[int] = []

    def has(self, line: int, line_start: int) -> bool:
        """Whether 0-based `line`, which starts at offset `line_start`, is code."""
        if _plain_line(self.text, line_start):
            top = self.top if self.top_known else self.top_fences()
            if top is not None:
                return bool(top) and in_ranges(line, top, self.top_starts)
        return in_ranges(line, self.blocks(), self.all_starts)

    def top_fences(self) -> list[tuple[int, int]] | None:
        """`top_fences` of the text, found once: the parse asks it of a comment both for its
        engine markers and for a fence left open (`open_fence`). None of them, without a
        look at the lines, where no line opens with a fence (`_no_fence_line`): whatever
        else the text holds (HTML, containers nested deeper than markdown-it reads), only a
        fence at the top level makes a `_plain_line` code or is left open at the end."""
        if not self.top_known:
            self.top_known = True
            if _no_fence_line(self.text):
                self.top, self.top_open = [], ""
            else:
                self.top, self.top_open = _top_fences(self.text)
            self.top_starts = [a for a, _ in self.top or []]
        return self.top

    def blocks(self) -> list[tuple[int, int]]:
        """Every code block: `code_line_ranges`."""
        if self.all is None:
            self.all = code_line_ranges(self.text)
            self.all_starts = [a for a, _ in self.all]
        return self.all


def open_fence(text: str, code: CodeLines | None = None) -> tuple[str, int] | None:
    """A top-level fenced code block left open at the end of `text` (which starts at the top
    level): the fence that closes it and its 0-based opening line; None if there is none.
    Agrees with `code_line_ranges`: what it calls code is what GitHub shows as code. Only the
    top-level fences count, so lines alone tell whenever they tell those (`top_fences`).
    `code`, the `CodeLines` of `text` where the caller has them, answers from the top-level
    fences it found (what `open_fence_at_end` and `fenced_line_ranges` find then)."""
    if "```" not in text and "~~~" not in text:
        return None
    if code is not None:
        top = code.top_fences()
        if top is not None:
            return (code.top_open, top[-1][0]) if code.top_open else None
    if not _NEEDS_MARKDOWN.search(text) or (code is None and top_fences(text) is not None):
        run = open_fence_at_end(text)
        if run is None:
            return None
        ranges = fenced_line_ranges(text)
        return run[0] * len(run), ranges[-1][0] if ranges else 0
    lines = text.split("\n")
    found: tuple[str, int] | None = None
    for t in block_parser().parse(text):
        if t.type == "fence" and t.level == 0 and t.map is not None:
            a, b = t.map
            closer = fence_closer(t.markup, lines, a, b) if b >= len(lines) - 1 else ""
            found = (closer, a) if closer else None
    return found


def in_ranges(line: int, ranges: list[tuple[int, int]], starts: list[int] | None = None) -> bool:
    """Whether `line` lies in one of `ranges` (sorted, disjoint, inclusive). Pass
    ``starts=[a for a, _ in ranges]`` when asking many times: each question is then O(log n)."""
    if starts is None:
        starts = [a for a, _ in ranges]
    i = bisect_right(starts, line) - 1
    return i >= 0 and line <= ranges[i][1]


def hidden_line_ranges(text: str) -> list[tuple[int, int]]:
    """0-based inclusive line ranges of `text` (which starts at the top level) whose lines the
    rendered markdown shows as code or hides: code blocks, and HTML blocks that only an end
    tag closes (``<!--``, ``<script`` ...). Sorted and disjoint."""
    if not _NEEDS_MARKDOWN.search(text):
        return code_line_ranges(text)
    ranges = []
    for t in block_parser().parse(text):
        if t.map is None:
            continue
        if t.type in ("fence", "code_block") or (
            t.type == "html_block" and HTML_OPEN.match(t.content.lstrip(" \t"))
        ):
            ranges.append((t.map[0], t.map[1] - 1))
    ranges.sort()
    return ranges


# HTML blocks of CommonMark types 1-5: they run to an end tag, ``-->``, ``?>``, ``>`` or
# ``]]>`` however many blank lines come first, so they can swallow everything after them.
HTML_OPEN = Lazy(
    # Also the end tags of those four: cmark-gfm starts a (type 7) HTML block at `</script>`
    # where markdown-it does not, and the two would then pair the fences after it differently.
    r"<(?:/?(?:script|pre|style|textarea)(?:[ \t>]|$)|!--|\?|![A-Za-z]|!\[CDATA\[)",
    re.I,
)


_block_md: MarkdownIt | None = None


def block_parser() -> MarkdownIt:
    """The markdown parser that decides what is code: CommonMark plus GFM tables, block rules
    only (inline parsing is most of the cost and says nothing about block structure)."""
    global _block_md
    if _block_md is None:
        from markdown_it import MarkdownIt

        md = MarkdownIt("commonmark")
        md.enable("table")
        md.disable("inline")
        _block_md = md
    return _block_md


def fence_closer(markup: str, lines: list[str], first: int, end: int) -> str:
    """The closing fence for a top-level fence on lines ``first..end-1`` if it is left open
    (it runs to the end of the text), else ``""``."""
    last = end - 1
    while last > first and not lines[last].strip(" \t"):
        last -= 1
    if last > first:
        s = lines[last].strip(" \t")
        indent = lines[last][: len(lines[last]) - len(lines[last].lstrip(" \t"))]
        if len(s) >= len(markup) and s == markup[0] * len(s) and indent in ("", " ", "  ", "   "):
            return ""  # closed by its last line
    return markup
