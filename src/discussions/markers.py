"""Markers in a comment body: ``VOTE:``, ``Q:``, ``TODO:``, ``DECISION:``, ``ASSIGNED:``,
``DONE:``, ``CONCERN:`` and ``@alias`` mentions.

Rules (DESIGN.md section 4):

* A marker keyword (upper case) stands at the start of a line, after optional whitespace, an
  optional list bullet or task box, and optional bold (``**VOTE:** READY``).
* Lines in fenced or indented code blocks, and text inside inline code spans, hold no markers.
  Quoted lines (``> ...``) are somebody else's words and hold no markers or mentions.
* A mention is ``@`` + a letter + letters, digits, ``-`` or ``_`` (any script), not preceded
  by a word character (so ``rob@example.com`` is not one) and not followed by ``.domain``.
* ``VOTE:`` values are READY, CHANGES or REJECT in any case; anything else is reported and not
  counted.

Fast path: most bodies have no backticks and no indented lines, and need no markdown parse at
all. markdown-it-py is used, block rules only, when a body has indented lines (whether they are
code depends on list context); fences alone are found by `format.fenced_line_ranges`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .format import VOTE_VALUES, ParseWarning, fenced_line_ranges

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

MARKER_KINDS = ("VOTE", "Q", "TODO", "DECISION", "ASSIGNED", "DONE", "CONCERN")

_MARKER = re.compile(
    r"^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)?"
    r"(\*\*|__)?(VOTE|Q|TODO|DECISION|ASSIGNED|DONE|CONCERN)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?"
    r"[ \t]*([^\n]*?)[ \t]*$",
    re.M,
)
_MENTION = re.compile(r"(?<![\w@./\\:`-])@([^\W\d_][\w-]*)")
_SKIP_LINE = re.compile(r"[ \t]*(?:>|<!--)")  # used with .match(body, line_start)
_INDENTED = re.compile(r"^(?: {4}|\t)", re.M)
_NONBLANK_RUN = re.compile(r"(?:[^\n]*\S[^\n]*(?:\n|$))+")
_BACKTICKS = re.compile(r"`+")
_VOTE_WORD = re.compile(r"[A-Za-z]+")


@dataclass(slots=True)
class Marker:
    """One marker line in a comment."""

    kind: str
    """``VOTE``, ``Q``, ``TODO``, ``DECISION``, ``ASSIGNED``, ``DONE`` or ``CONCERN``."""
    text: str
    """The text after the colon; for a vote, the normalised value (``READY``...)."""
    line: int
    """1-based line number in the file."""


@dataclass(slots=True)
class Mention:
    """One ``@alias`` in a comment."""

    alias: str
    """The alias, lower-cased, without ``@``."""
    line: int
    """1-based line number in the file."""


@dataclass(slots=True)
class BodyMarkers:
    """What `extract` found in one body."""

    markers: list[Marker] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    warnings: list[ParseWarning] = field(default_factory=list)

    @property
    def vote(self) -> str | None:
        """The last valid vote in the body, if any."""
        for m in reversed(self.markers):
            if m.kind == "VOTE":
                return m.text
        return None


def normalise_vote(value: str) -> str | None:
    """``ready``, ``**READY**``, ``Ready.`` -> ``READY``; anything else -> None."""
    m = _VOTE_WORD.search(value)
    if not m or value[: m.start()].strip("*_ \t"):
        return None
    word = m.group(0).upper()
    return word if word in VOTE_VALUES else None


def extract(body: str, first_line: int = 1) -> BodyMarkers:
    """Find markers and mentions in `body`, whose first line is line `first_line` of the file."""
    result = BodyMarkers()
    marker_hits = list(_MARKER.finditer(body))
    mention_hits = list(_MENTION.finditer(body)) if "@" in body else []
    if not marker_hits and not mention_hits:
        return result

    code_lines = _code_line_ranges(body)
    spans = _code_spans(body, code_lines) if "`" in body else []

    def line_of(pos: int) -> int:
        return body.count("\n", 0, pos)

    def in_code(pos: int, rel_line: int) -> bool:
        if code_lines and any(a <= rel_line <= b for a, b in code_lines):
            return True
        return any(s <= pos < e for s, e in spans)

    for m in marker_hits:
        rel = line_of(m.start())
        kw_pos = m.start(2)
        if in_code(kw_pos, rel):
            continue
        kind, value = m.group(2), m.group(3)
        if m.group(1):  # bold keyword: drop the closing ** of "**VOTE: READY**"
            value = value.rstrip("*_ \t")
        line = first_line + rel
        if kind == "VOTE":
            vote = normalise_vote(value)
            if vote is None:
                shown = value or "(empty)"
                result.warnings.append(
                    ParseWarning(
                        line,
                        f"invalid vote `{shown}` (expected READY, CHANGES or REJECT); not counted",
                    )
                )
                continue
            value = vote
        elif not value:
            continue
        result.markers.append(Marker(kind, value, line))

    for m in mention_hits:
        end = m.end()
        if end + 1 < len(body) and body[end] == "." and body[end + 1].isalnum():
            continue  # a domain or file name: @example.com, @types.ts
        rel = line_of(m.start())
        line_start = body.rfind("\n", 0, m.start()) + 1
        if _SKIP_LINE.match(body, line_start) or in_code(m.start(), rel):
            continue
        alias = m.group(1).rstrip("-_").lower()
        result.mentions.append(Mention(alias, first_line + rel))
    return result


def _code_line_ranges(body: str) -> list[tuple[int, int]]:
    """0-based inclusive line ranges of code blocks in `body`."""
    if _INDENTED.search(body):
        return _markdown_code_ranges(body)
    if "```" in body or "~~~" in body:
        return fenced_line_ranges(body)
    return []


_md: MarkdownIt | None = None


def _markdown_code_ranges(body: str) -> list[tuple[int, int]]:
    global _md
    if _md is None:
        from markdown_it import MarkdownIt

        _md = MarkdownIt("commonmark")
        _md.disable("inline")  # block structure is all we need; inline is most of the cost
    tokens: list[Any] = _md.parse(body)
    return [
        (t.map[0], t.map[1] - 1)
        for t in tokens
        if t.type in ("fence", "code_block") and t.map is not None
    ]


def _code_spans(body: str, code_lines: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Character ranges of inline code spans, paragraph by paragraph (CommonMark backtick
    runs: an opening run closes at the next run of the same length)."""
    if code_lines:
        # Backticks inside code blocks open no spans: blank those lines out (same offsets).
        lines = body.split("\n")
        for a, b in code_lines:
            for k in range(a, min(b, len(lines) - 1) + 1):
                lines[k] = " " * len(lines[k])
        body = "\n".join(lines)
    spans: list[tuple[int, int]] = []
    for chunk in _NONBLANK_RUN.finditer(body):
        text = chunk.group(0)
        if "`" not in text:
            continue
        base = chunk.start()
        runs: list[tuple[int, int]] = []
        for r in _BACKTICKS.finditer(text):
            s, e = r.start(), r.end()
            backslashes = 0
            while s - backslashes - 1 >= 0 and text[s - backslashes - 1] == "\\":
                backslashes += 1
            if backslashes % 2:
                s += 1  # the first backtick is escaped
            if s < e:
                runs.append((s, e))
        i = 0
        while i < len(runs):
            s, e = runs[i]
            n = e - s
            j = i + 1
            while j < len(runs) and runs[j][1] - runs[j][0] != n:
                j += 1
            if j < len(runs):
                spans.append((base + s, base + runs[j][1]))
                i = j + 1
            else:
                i += 1
    return spans
