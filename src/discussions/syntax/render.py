"""The file format, written: neutralised text, comments, engine blocks, and appends to a tail."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass
from .code import HTML_OPEN, block_parser, fence_closer, open_fence
from .document import BOUNDARY
from .lazyre import Lazy
from .record import Record
from .text import detect_newline, normalise_newlines, strip_line_start_boms

VOTE_VALUES = ("READY", "CHANGES", "REJECT")


_SEPARATOR_LINE = Lazy(r"^---[ \t]*$", re.M)


# Neutralising. A line is looked at after its container prefix (spaces, tabs, ``>``) and,
# for the block starts below, after any list markers too (``- 1. ---`` is a rule in a list).
_CONTAINER = Lazy(r"[ \t>]*")


_LIST_MARKER = Lazy(r"(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")


_RULE_CHARS = frozenset("-*_= \t")


_FENCE_OPEN = Lazy(r"`{3,}|~{3,}")


# ``Name:``, and the spellings GitHub shows as ``Name:`` too (``Name\:``, ``Name&#58;``).
_NAME_START = Lazy(r"Name[ \t]*(?::|\\:|&colon;|&#0*58;|&#[xX]0*3[aA];)")


_NEUTRAL_ROUNDS = 4  # rounds that leave code blocks alone before escaping everywhere


def neutralise(text: str) -> str:
    r"""Make untrusted text (an AI's answer, a person's comment) unable to forge file structure
    or to render on GitHub as something other than one comment's text.

    Outside code blocks (as CommonMark sees them):

    * a ``Name:`` line is shown in inline code (`` `Name: X` ``): never a comment boundary,
      and never read as another author's comment header;
    * a line that would be a horizontal rule or a setext underline (``---``, ``***``,
      ``___``, ``- - -``, ``===``, also after ``>`` or a list marker) gets a backslash before
      it (``\---``, shown as ``---``);
    * a line that would open an HTML block that only an end tag closes (``<script``,
      ``<style``, ``<pre``, ``<textarea``, ``<!--``, ``<?``, ``<!X``, ``<![CDATA[``) starts
      with ``&lt;`` instead: shown as written, never an engine marker or comment metadata.
      Other HTML blocks (``<div>``, ``<details>``) end at the next blank line and stay.

    Inside code blocks, a ``Name:`` line at column 0 gets one space in front and an
    ``<!--`` line is indented four spaces (the parser reads neither there; code is shown as
    written otherwise). A top-level fenced code block left open is closed. Byte-order marks
    at line starts are removed, newlines become ``\n``, other control characters (NUL...)
    become U+FFFD; a line that reads as a merge-conflict marker (``<<<<<<<``, ``=======``,
    ``>>>>>>>``) is escaped (a space in front inside code). Markers (``VOTE:``, ``Q:``,
    ``@alias``) are left alone. ``neutralise(neutralise(x)) == neutralise(x)``.
    """
    text, _ = strip_line_start_boms(normalise_newlines(text))
    text = _CONTROL.sub("\ufffd", text)  # a NUL would make the file look binary
    for round_no in range(_NEUTRAL_ROUNDS + 3):
        changed = _neutralise_round(text, aware=round_no < _NEUTRAL_ROUNDS)
        if changed == text:
            break
        text = changed
    return text


def _neutralise_round(text: str, *, aware: bool) -> str:
    """One pass: rewrite the dangerous lines of `text` as the markdown structure of `text`
    shows them (or all of them when not `aware`), and close a fence left open. Rewriting can
    change the structure (an escaped ``<script`` line no longer hides what follows), so
    `neutralise` repeats this until nothing changes; after a few rounds it stops sparing code
    blocks, which makes the next round final."""
    lines = text.split("\n")
    code = bytearray(len(lines))  # 1: in a code block, 2: in an HTML block of types 1-5
    closer = ""
    for t in block_parser().parse(text):
        if t.map is None:
            continue
        a, b = t.map
        if t.type in ("fence", "code_block"):
            code[a:b] = b"\1" * (b - a)
            if t.type == "fence" and t.level == 0 and b >= len(lines) - 1:
                closer = fence_closer(t.markup, lines, a, b)
        elif t.type == "html_block" and HTML_OPEN.match(t.content.lstrip(" \t")):
            code[a:b] = b"\2" * (b - a)
    out = [_neutral_line(line, code[i] if aware else 0) for i, line in enumerate(lines)]
    if closer:
        while out and not out[-1].strip(" \t"):
            out.pop()
        out += [closer, ""]
    return "\n".join(out)


_CONFLICT_LINE = Lazy(r"(?:<{7,}|>{7,}|\|{7,})(?: |$)|={7}[ \t]*$")
"""A line `conflicts` could read as a conflict's: a longer run of ``=`` (an underline) is one only
beside its ``<`` and ``>`` lines, which are neutralised."""


_CONTROL = Lazy(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _neutral_line(line: str, context: int) -> str:
    if _CONFLICT_LINE.match(line):
        # A quoted merge conflict must not read as an unresolved one (writers refuse those).
        return (" " if context == 1 else "\\") + line
    if context == 1:  # code: shown as written; only what our own parser would read changes
        if line.startswith("Name:"):
            return " " + line
        stripped = line.lstrip(" ")
        if stripped.startswith("<!--") and len(line) - len(stripped) <= 3:
            return "    " + stripped
        return line
    pos = _CONTAINER.match(line).end()  # type: ignore[union-attr]
    if _NAME_START.match(line, pos):
        return line[:pos] + _inline_code(line[pos:].rstrip(" \t"))
    # Where the rest of the line is made of rule characters only (a rule or an underline).
    rule_from = len(line)
    while rule_from > 0 and line[rule_from - 1] in _RULE_CHARS:
        rule_from -= 1
    while True:
        if pos >= rule_from and pos < len(line):
            return line[:pos] + "\\" + line[pos:]
        if HTML_OPEN.match(line, pos):
            return line[:pos] + "&lt;" + line[pos + 1 :]
        if context == 2 and _FENCE_OPEN.match(line, pos):
            return line[:pos] + "\\" + line[pos:]
        m = _LIST_MARKER.match(line, pos)
        if m is None or m.end() == pos:
            return line
        pos = _CONTAINER.match(line, m.end()).end()  # type: ignore[union-attr]


def _inline_code(s: str) -> str:
    """`s` as an inline code span (a backtick run longer than any inside it)."""
    longest = max((len(r) for r in re.findall(r"`+", s)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{ticks}{pad}{s}{pad}{ticks}"


class _Tail(Record):
    """What an append needs to know about the end of a file (read without a full parse)."""

    __slots__ = (
        "empty",
        "ends_with_newline",
        "trailing_blank_lines",
        "ends_with_separator",
        "open_fence",
        "newline",
    )
    empty: bool
    """The file has no content at all."""
    ends_with_newline: bool
    """The last byte is a newline."""
    trailing_blank_lines: int
    """Blank lines at the very end (after the last newline-terminated text line)."""
    ends_with_separator: bool
    """The last non-blank line is a ``---`` separator (with a blank line or nothing above it)."""
    open_fence: str | None
    """A fence left open in the last comment (or preamble), to be closed before appending."""
    newline: str
    """The file's line ending."""

    def __init__(
        self,
        empty: bool,
        ends_with_newline: bool,
        trailing_blank_lines: int,
        ends_with_separator: bool,
        open_fence: str | None,
        newline: str,
    ) -> None:
        self.empty = empty
        self.ends_with_newline = ends_with_newline
        self.trailing_blank_lines = trailing_blank_lines
        self.ends_with_separator = ends_with_separator
        self.open_fence = open_fence
        self.newline = newline


def analyse_tail(tail_text: str, *, at_file_start: bool) -> _Tail:
    """Analyse the end of a file. `tail_text` must start at a line start and hold at least the
    last comment boundary, unless `at_file_start` says it is the whole file."""
    newline = detect_newline(tail_text) if "\n" in tail_text else "\n"
    text = normalise_newlines(tail_text)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the text ended with a newline
    # Blank as CommonMark means it: spaces and tabs only (a line of U+00A0 is text, and a
    # `---` under it would be a heading).
    last = len(lines) - 1
    while last >= 0 and not lines[last].strip(" \t"):
        last -= 1
    trailing = len(lines) - 1 - last
    ends_sep = (
        last >= 0
        and _SEPARATOR_LINE.fullmatch(lines[last]) is not None
        and ((last == 0 and at_file_start) or (last > 0 and not lines[last - 1].strip(" \t")))
    )
    # A stray BOM at a line start hides no boundary from the parser (see `parse_document`);
    # GitHub, though, shows a BOM-only line as text, so the fence question is asked of the
    # text as it is.
    stripped, _ = strip_line_start_boms(text)
    last_boundary = None
    for m in BOUNDARY.finditer(stripped):
        last_boundary = m
    body_line = stripped.count("\n", 0, last_boundary.end()) + 1 if last_boundary else 0
    segment = text
    if body_line:
        cut = 0
        for _ in range(body_line):
            cut = text.find("\n", cut) + 1
            if cut == 0:
                cut = len(text)
                break
        segment = text[cut:]
    fence = open_fence(segment)
    return _Tail(
        empty=not text and at_file_start,
        ends_with_newline=text.endswith("\n"),
        trailing_blank_lines=trailing,
        ends_with_separator=ends_sep,
        open_fence=fence[0] if fence else None,
        newline=newline,
    )


def join_for_append(tail: _Tail, block: str) -> str:
    """The exact text to append after a file whose end is `tail`, so that `block` (which starts
    with a ``Name:`` line or an engine marker and ends with a newline) becomes its own comment
    or follows the last one cleanly, ending with a ``---`` separator. Uses the file's newline."""
    parts: list[str] = []
    if tail.empty:
        prefix = "---\n\n"
    else:
        prefix = "" if tail.ends_with_newline else "\n"
        if tail.open_fence:
            prefix += tail.open_fence[0] * len(tail.open_fence) + "\n"
            trailing = 0
        else:
            trailing = tail.trailing_blank_lines
        if tail.ends_with_separator and not tail.open_fence:
            prefix += "" if trailing else "\n"
        else:
            prefix += ("" if trailing else "\n") + "---\n\n"
    parts.append(prefix)
    parts.append(block)
    if not block.endswith("\n"):
        parts.append("\n")
    parts.append("\n---\n")
    out = "".join(parts)
    if tail.newline != "\n":
        out = out.replace("\n", tail.newline)
    return out


def end_with_separator(text: str) -> str:
    """`text` (a whole file) ending with a ``---`` separator line, added when it has none (a
    fence left open is closed first), so that what is typed under it is a comment."""
    tail = analyse_tail(text, at_file_start=True)
    if tail.empty or (tail.ends_with_separator and not tail.open_fence):
        return text
    add = "" if tail.ends_with_newline else "\n"
    trailing = tail.trailing_blank_lines
    if tail.open_fence:
        add += tail.open_fence + "\n"
        trailing = 0
    add += ("" if trailing else "\n") + "---\n"
    return text + add.replace("\n", tail.newline)


def join_blocks(tail: _Tail, blocks: list[str]) -> str:
    """The text that appends `blocks`, one after another, to a file ending in `tail`."""
    out: list[str] = []
    for block in blocks:
        out.append(join_for_append(tail, block))
        # What join_for_append leaves behind: a newline-terminated `---` separator.
        tail = _Tail(False, True, 0, True, None, tail.newline)
    return "".join(out)


def render_comment(
    author: str, text: str, *, vote: str | None = None, meta: str | None = None
) -> str:
    """A comment block as the engine writes it: ``Name:`` line, optional metadata comment,
    body, optional ``VOTE:`` line. `text` must already be neutralised if untrusted."""
    lines = [f"Name: {author}", ""]
    if meta:
        lines += [f"<!-- {meta} -->", ""]
    body = normalise_newlines(text).strip("\n")
    if body:
        lines += [body, ""]
    if vote:
        lines += [f"VOTE: {vote}", ""]
    return "\n".join(lines)


def render_phase_transition(source: str, target: str) -> str:
    """The engine markers for moving from `source` to `target` (a transition and a vote
    reset), then a line saying so that a reader of the rendered file sees. That line is
    prose, not structure: the parser reads only the HTML comments."""
    return (
        f"<!-- PHASE-TRANSITION: {source} -> {target} -->\n<!-- VOTE-RESET: {target} -->\n\n"
        f"*Phase changed: {_visible(source)} → {_visible(target)}*\n"
    )


def render_status_change(source: str, target: str) -> str:
    """The engine marker for a status change, then a line a reader of the rendered file sees."""
    return (
        f"<!-- STATUS-CHANGE: {source} -> {target} -->\n\n"
        f"*Status changed: {_visible(source)} → {_visible(target)}*\n"
    )


def visible_name(name: str) -> str:
    """A name as plain text inside ``*...*`` (markdown characters and ``@`` escaped)."""
    return _visible(name).replace("@", "\\@")


def _visible(name: str) -> str:
    """A phase or status name as plain text inside ``*...*`` (markdown characters escaped)."""
    return _MARKDOWN_CHAR.sub(r"\\\g<0>", " ".join(name.split()))


# Characters that could start markup inside ``*...*``; ``_`` only where it is not inside a
# word (``initial_feedback`` stays readable; intraword ``_`` is never emphasis).
_MARKDOWN_CHAR = Lazy(r"[\\`*\[\]<>#|~&]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def render_header(fields: list[tuple[str, str]]) -> str:
    """A header block: ``<!-- DISCUSSION -->`` then one ``<!-- Key: Value -->`` per field."""
    lines = ["<!-- DISCUSSION -->"]
    for key, value in fields:
        value = value.replace("-->", "--&gt;").replace("\n", " ")
        lines.append(f"<!-- {key}: {value} -->")
    return "\n".join(lines) + "\n"
