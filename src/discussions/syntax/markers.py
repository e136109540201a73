"""Markers in a comment body: ``VOTE:``, ``Q:``, ``TODO:``, ``DECISION:``, ``ASSIGNED:``,
``DONE:``, ``CONCERN:`` and ``@alias`` mentions.

Rules (README, "The file format"):

* A marker keyword (upper case) stands at the start of a line, after optional whitespace, an
  optional list bullet or task box, and optional bold (``**VOTE:** READY``).
* Lines in fenced or indented code blocks, and text inside inline code spans, hold no markers.
  Quoted lines (``> ...``) are somebody else's words and hold no markers or mentions.
* A mention is ``@`` + a letter + letters, digits, ``-`` or ``_`` (any script), not preceded
  by a word character (so ``rob@example.com`` is not one) and not followed by ``.domain``.
* ``VOTE:`` values are READY, CHANGES or REJECT in any case; anything else is reported and not
  counted.
* The council's ``MOTION:``, ``SECOND:`` and ``BALLOT:`` are found like the others; their values
  are checked by the rule that reads them (`motions.rule_motions`).
* A participant's notes for its later discussions, ``REMEMBER:`` and ``REVISIT-WHEN:``, are
  found like the others (`derive.notes` reads them).

Fast path: most bodies have no backticks and no indented lines, and need no markdown parse at
all. markdown-it-py is used, block rules only, when a body has indented lines, indented fences
or HTML blocks (whether a line is code then depends on its context); fences at column 0 alone
are found by `format.fenced_line_ranges` (see `format.code_line_ranges`). Everything here is
linear in the body's length.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from .code import code_line_ranges, in_ranges
from .document import ParseWarning
from .render import VOTE_VALUES

MARKER_KINDS = (
    "VOTE", "Q", "TODO", "DECISION", "ASSIGNED", "DONE", "CONCERN", "SCORE", "PENDING",
    "MOTION", "SECOND", "BALLOT", "ROOT-CAUSE", "CONFIDENCE", "REMEMBER", "REVISIT-WHEN",
)

# Greedy to the end of the line, trimmed in code: ``([^\n]*?)[ \t]*$`` would backtrack
# quadratically on a marker line ending in a long run of spaces. Every scan here is linear.
# Runs of blanks are possessive (``*+``): what follows one is never a blank, so giving
# characters back cannot help a match, only cost time on a long run of spaces.
_MARKER = re.compile(
    r"^[ \t]*+(?:(?:[-*+]|\d{1,9}[.)])[ \t]++(?:\[[ xX]\][ \t]++)?)?"
    r"(\*\*|__)?(VOTE|Q|TODO|DECISION|ASSIGNED|DONE|CONCERN|SCORE|PENDING|MOTION|SECOND|BALLOT"
    r"|ROOT-CAUSE|CONFIDENCE|REMEMBER|REVISIT-WHEN)"
    r"(?:\*\*|__)?[ \t]*+:(?:\*\*|__)?"
    r"[ \t]*+([^\n]*)",
    re.M,
)
_MENTION = re.compile(r"(?<![\w@./\\:`-])@([^\W\d_][\w-]*)")
_SKIP_LINE = re.compile(r"[ \t]*(?:>|<!--)")  # used with .match(body, line_start)
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
    """Find markers and mentions in `body`, whose first line is line `first_line` of the file.

    Linear in the length of `body`: line numbers come from one table of line starts, and
    "is this in code?" is a binary search in sorted, disjoint ranges."""
    result = BodyMarkers()
    marker_hits = list(_MARKER.finditer(body))
    mention_hits = list(_MENTION.finditer(body)) if "@" in body else []
    if not marker_hits and not mention_hits:
        return result
    layout = _Layout.of(body)
    for m in marker_hits:
        _add_marker(result, m, layout, first_line)
    skip_line: dict[int, bool] = {}
    for m in mention_hits:
        end = m.end()
        if end + 1 < len(body) and body[end] == "." and body[end + 1].isalnum():
            continue  # a domain or file name: @example.com, @types.ts
        rel = layout.line_of(m.start())
        if rel not in skip_line:
            skip_line[rel] = _SKIP_LINE.match(body, layout.line_starts[rel]) is not None
        if skip_line[rel] or layout.in_code(m.start(), rel):
            continue
        alias = m.group(1).rstrip("-_").lower()
        result.mentions.append(Mention(alias, first_line + rel))
    return result


@dataclass(slots=True)
class _Layout:
    """Where a body's lines start and which of its lines and spans are code, for lookups by
    binary search."""

    line_starts: list[int]
    code_lines: list[tuple[int, int]]
    code_starts: list[int]
    spans: list[tuple[int, int]]
    span_starts: list[int]

    @classmethod
    def of(cls, body: str) -> _Layout:
        code_lines = code_line_ranges(body)
        spans = _code_spans(body, code_lines) if "`" in body else []
        line_starts = [0]
        line_starts += [m.end() for m in re.finditer("\n", body)]
        return cls(
            line_starts, code_lines, [a for a, _ in code_lines], spans, [a for a, _ in spans]
        )

    def line_of(self, pos: int) -> int:
        """The 0-based line of offset `pos`."""
        return bisect_right(self.line_starts, pos) - 1

    def in_code(self, pos: int, rel_line: int) -> bool:
        """Whether offset `pos`, on 0-based line `rel_line`, is in a code block or span."""
        if self.code_lines and in_ranges(rel_line, self.code_lines, self.code_starts):
            return True
        i = bisect_right(self.span_starts, pos) - 1
        return i >= 0 and pos < self.spans[i][1]


def _add_marker(result: BodyMarkers, m: re.Match[str], layout: _Layout, first_line: int) -> None:
    """Add the marker `m` matched to `result`, unless it is in code or empty; an invalid vote
    adds a warning instead."""
    rel = layout.line_of(m.start())
    if layout.in_code(m.start(2), rel):
        return
    kind, value = m.group(2), m.group(3).rstrip(" \t")
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
            return
        value = vote
    elif not value:
        return
    result.markers.append(Marker(kind, value, line))


def vote_line_numbers(body: str) -> list[int]:
    """1-based numbers of the lines that look like ``VOTE:`` lines, code or not."""
    line = 1
    pos = 0
    out: list[int] = []
    for m in _MARKER.finditer(body):
        if m.group(2) == "VOTE":
            line += body.count("\n", pos, m.start())
            pos = m.start()
            out.append(line)
    return out


def _paragraph_chunks(body: str) -> list[tuple[int, int]]:
    """(start, end) offsets of runs of non-blank lines (a blank line ends an inline span)."""
    chunks: list[tuple[int, int]] = []
    start = -1
    pos = 0
    n = len(body)
    while pos <= n:
        nl = body.find("\n", pos)
        end = n if nl < 0 else nl
        if not body[pos:end].strip(" \t"):  # blank, as CommonMark means it
            if start >= 0:
                chunks.append((start, pos))
                start = -1
        elif start < 0:
            start = pos
        if nl < 0:
            break
        pos = nl + 1
    if start >= 0:
        chunks.append((start, n))
    return chunks


def _code_spans(body: str, code_lines: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Character ranges of inline code spans, paragraph by paragraph (CommonMark backtick
    runs: an opening run closes at the next run of the same length). Sorted, disjoint."""
    if code_lines:
        # Backticks inside code blocks open no spans: blank those lines out (same offsets).
        lines = body.split("\n")
        for a, b in code_lines:
            for k in range(a, min(b, len(lines) - 1) + 1):
                lines[k] = " " * len(lines[k])
        body = "\n".join(lines)
    spans: list[tuple[int, int]] = []
    for base, chunk_end in _paragraph_chunks(body):
        text = body[base:chunk_end]
        if "`" not in text:
            continue
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
        # next_same[i]: the next run after i with the same length (one pass from the right),
        # so an opening run finds its closer without scanning the runs in between.
        next_same = [-1] * len(runs)
        last_of_length: dict[int, int] = {}
        for k in range(len(runs) - 1, -1, -1):
            n = runs[k][1] - runs[k][0]
            next_same[k] = last_of_length.get(n, -1)
            last_of_length[n] = k
        i = 0
        while i < len(runs):
            j = next_same[i]
            if j >= 0:
                spans.append((base + runs[i][0], base + runs[j][1]))
                i = j + 1
            else:
                i += 1
    return spans
