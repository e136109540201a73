"""Markers in a comment body: ``VOTE:``, ``Q:``, ``TODO:``, ``DECISION:``, ``ASSIGNED:``,
``DONE:``, ``CONCERN:``, ``EVIDENCE:`` (a request to read the repository, `evidence`) and
``@alias`` mentions.

Rules (docs/file-format.md):

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

Fast path: most marker and mention lines start at column 0, where lines alone tell code
(`code.CodeLines`: only a top-level fence holds such a line). markdown-it-py is used, block
rules only, when another line asks and the body has indented lines, indented fences or HTML
blocks (whether a line is code then depends on its context); fences at column 0 alone are
found by `code.fenced_line_ranges` (see `code.code_line_ranges`). Everything here is linear in
the body's length.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection

from .code import CodeLines, in_ranges
from .document import ParseWarning
from .kinds import MARKER_KINDS, alternation
from .lazyre import Lazy
from .record import Record
from .render import VOTE_VALUES
from .typos import CloseAliases

BALLOTS = ("YES", "NO", "ABSTAIN")
"""A council ballot's values (``BALLOT:``, `normalise_ballot`)."""

# Greedy to the end of the line, trimmed in code: ``([^\n]*?)[ \t]*$`` would backtrack
# quadratically on a marker line ending in a long run of spaces. Every scan here is linear.
# Runs of blanks are possessive (``*+``): what follows one is never a blank, so giving
# characters back cannot help a match, only cost time on a long run of spaces.
_MARKER_LINE = (
    r"[ \t]*+(?:(?:[-*+]|\d{1,9}[.)])[ \t]++(?:\[[ xX]\][ \t]++)?)?"
    r"(\*\*|__)?(" + alternation(MARKER_KINDS) + ")"  # the names of `kinds.MARKER_KINDS`
    r"((?:\*\*|__)?[ \t]*+:(?:\*\*|__)?)"
    r"[ \t]*+([^\n]*)"
)
# A marker line: `_MARKER_AT` at the start of a body, `_MARKER` after a newline (a search
# for a literal newline skips from line to line; ``^`` with re.M is tried at every character).
# `_MARKER` first looks at the line's first character (a lookahead of what a marker line may
# start with: a blank, a bullet, bold, a keyword's first letter), which fails most lines of
# prose at once, before the optional bullet, bold and keywords are tried one by one.
_MARKER_AT = Lazy(_MARKER_LINE)
_MARKER = Lazy(
    r"\n(?=[ \t*+\-0-9_" + "".join(sorted({k[0] for k in MARKER_KINDS})) + "])" + _MARKER_LINE
)
# The ``@`` first, then the character before it checked: a literal start lets the regex
# engine skip ahead to each ``@`` instead of trying the look-behind at every position.
_MENTION = Lazy(r"@(?<![\w@./\\:`-]@)([^\W\d_][\w-]*)")
_SKIP_LINE = Lazy(r"[ \t]*(?:>|<!--)")  # used with .match(body, line_start)
_BACKTICKS = Lazy(r"`+")
# The newline before a blank line (blank as CommonMark means it: spaces and tabs at most).
_BLANK_LINE = Lazy(r"\n[ \t]*+(?=\n|\Z)")
_NEWLINE = Lazy("\n")
_VOTE_WORD = Lazy(r"[A-Za-z]+")
# After a vote word: another one, joined as in a list (``, CHANGES``, ``/ REJECT``, ``or READY``).
_ANOTHER_CHOICE = Lazy(
    r"[\s*_]*(?:[,/|]|\s(?:or|and)\s)[\s*_]*(?:or\s+|and\s+)?(?:READY|CHANGES|REJECT)\b", re.I
)


class Marker(Record):
    """One marker line in a comment."""

    __slots__ = ("kind", "text", "line")
    kind: str
    """One of `kinds.MARKER_KINDS`: ``VOTE``, ``Q``, ``DECISION``..."""
    text: str
    """The text after the colon; for a vote, the normalised value (``READY``...)."""
    line: int
    """1-based line number in the file."""

    def __init__(self, kind: str, text: str, line: int) -> None:
        self.kind = kind
        self.text = text
        self.line = line


class Mention(Record):
    """One ``@alias`` in a comment."""

    __slots__ = ("alias", "line")
    alias: str
    """The alias, lower-cased, without ``@``."""
    line: int
    """1-based line number in the file."""

    def __init__(self, alias: str, line: int) -> None:
        self.alias = alias
        self.line = line


class BodyMarkers(Record):
    """What `extract` found in one body."""

    __slots__ = ("markers", "mentions", "warnings")
    markers: list[Marker]
    mentions: list[Mention]
    warnings: list[ParseWarning]

    def __init__(
        self,
        markers: list[Marker] | None = None,
        mentions: list[Mention] | None = None,
        warnings: list[ParseWarning] | None = None,
    ) -> None:
        self.markers = [] if markers is None else markers
        self.mentions = [] if mentions is None else mentions
        self.warnings = [] if warnings is None else warnings

    @property
    def vote(self) -> str | None:
        """The last valid vote in the body, if any."""
        for m in reversed(self.markers):
            if m.kind == "VOTE":
                return m.text
        return None


def normalise_vote(value: str) -> str | None:
    """``ready``, ``**READY**``, ``Ready.`` -> ``READY``; anything else -> None. A list of the
    choices (``READY, CHANGES or REJECT``, ``READY/REJECT``) has chosen nothing: None."""
    if value in VOTE_VALUES:  # as the tool writes it
        return value
    m = _VOTE_WORD.search(value)
    if not m or value[: m.start()].strip("*_ \t"):
        return None
    word = m.group(0).upper()
    if word not in VOTE_VALUES:
        return None
    return None if _ANOTHER_CHOICE.match(value, m.end()) else word


def normalise_ballot(value: str) -> str | None:
    """``yes``, ``**Yes**``, ``ABSTAIN.`` -> ``YES`` / ``ABSTAIN``; anything else -> None."""
    m = _VOTE_WORD.search(value)
    if not m or value[: m.start()].strip("*_ \t"):
        return None
    word = m.group(0).upper()
    return word if word in BALLOTS else None


def normalise_second(value: str) -> str | None:
    """``yes`` / ``no`` (any case, ``true`` / ``false`` too) -> ``yes`` / ``no``; else None."""
    m = _VOTE_WORD.search(value)
    if not m or value[: m.start()].strip("*_ \t"):
        return None
    word = m.group(0).lower()
    return {"yes": "yes", "true": "yes", "no": "no", "false": "no"}.get(word)


def parse_score(text: str) -> int | None:
    """A ``SCORE:`` value: ``8``, ``8/10``, ``8.5`` -> 8 (clamped to 0-10); anything else ->
    None."""
    m = _SCORE.match(text)
    if not m:
        return None
    return max(0, min(10, int(float(m.group(1)))))


_SCORE = Lazy(r"\s*\**\s*(-?\d{1,3}(?:\.\d+)?)\s*(?:/\s*10)?\**\s*(?:\W.*)?$")


def extract(body: str, first_line: int = 1, code: CodeLines | None = None) -> BodyMarkers:
    """Find markers and mentions in `body`, whose first line is line `first_line` of the file.
    `code`, the `CodeLines` of `body` the parse made (`parse.parse_document`), answers what it
    already found rather than finding it again.

    Linear in the length of `body`: line numbers are counted on from one hit to the next, and
    "is this in code?" is a binary search in sorted, disjoint ranges."""
    result = BodyMarkers()
    marker_hits = _marker_lines(body)
    mention_hits = list(_MENTION.finditer(body)) if "@" in body else []
    if not marker_hits and not mention_hits:
        return result
    layout = _Layout(body, code)
    rel, last = 0, 0
    for m in marker_hits:
        pos = m.start(2)
        rel += body.count("\n", last, pos)
        last = pos
        line_start = m.start() + (body[m.start()] == "\n")
        if not layout.in_code(pos, rel, line_start):
            _add_marker(result, m, first_line + rel)
    rel, last = 0, 0
    skip_line: dict[int, bool] = {}
    line_starts: dict[int, int] = {}
    for m in mention_hits:
        pos, end = m.start(), m.end()
        if end + 1 < len(body) and body[end] == "." and body[end + 1].isalnum():
            continue  # a domain or file name: @example.com, @types.ts
        rel += body.count("\n", last, pos)
        last = pos
        if rel not in line_starts:  # read back to the line's start once a line
            line_starts[rel] = body.rfind("\n", 0, pos) + 1
            skip_line[rel] = _SKIP_LINE.match(body, line_starts[rel]) is not None
        if skip_line[rel] or layout.in_code(pos, rel, line_starts[rel]):
            continue
        alias = m.group(1).rstrip("-_").lower()
        result.mentions.append(Mention(alias, first_line + rel))
    return result


class _Layout:
    """Which of a body's lines and spans are code, for lookups by binary search: the lines
    from `code.CodeLines` (a markdown parse only where lines alone cannot tell), the spans
    found when a position first needs them."""

    __slots__ = (
        "body",
        "lines",
        "spans",
        "span_starts",
        "seen",
        "last_empty",
        "last_tick",
        "line_at",
        "line_code",
    )

    def __init__(self, body: str, code: CodeLines | None = None) -> None:
        self.body = body
        self.lines = CodeLines(body) if code is None else code
        self.spans: list[tuple[int, int]] | None = None
        """Inline code spans, found when a position first needs them (`in_code`)."""
        self.span_starts: list[int] = []
        self.seen = 0
        """How far `_may_be_in_span` has read, and the last empty line and backtick before
        it."""
        self.last_empty = -1
        self.last_tick = -1
        self.line_at = -1
        self.line_code = False
        """The last line asked about and whether it is code: the mentions of one line (a list
        of thousands, one after the other) ask once."""

    def in_code(self, pos: int, rel_line: int, line_start: int) -> bool:
        """Whether offset `pos`, on 0-based line `rel_line` (which starts at offset
        `line_start`), is in a code block or span."""
        if rel_line != self.line_at:
            self.line_at, self.line_code = rel_line, self.lines.has(rel_line, line_start)
        if self.line_code:
            return True
        if self.spans is None:
            if not self._may_be_in_span(pos):
                return False
            self.spans = _code_spans(self.body, self.lines.blocks())
            self.span_starts = [a for a, _ in self.spans]
        i = bisect_right(self.span_starts, pos) - 1
        return i >= 0 and pos < self.spans[i][1]

    def _may_be_in_span(self, pos: int) -> bool:
        """False when no backtick stands between `pos` and the empty line before it: no span
        of its paragraph opens before it (the paragraph starts at that line or later).

        Reads the body once for a sequence of increasing positions (the markers, then the
        mentions): each question reads only what lies past the last one."""
        if pos < self.seen:
            self.seen, self.last_empty, self.last_tick = 0, -1, -1
        body, start = self.body, self.seen
        empty = body.rfind("\n\n", start - 1 if start else 0, pos)
        if empty > self.last_empty:
            self.last_empty = empty
        tick = body.rfind("`", start, pos)
        if tick > self.last_tick:
            self.last_tick = tick
        self.seen = pos
        return self.last_tick > self.last_empty


def _add_marker(result: BodyMarkers, m: re.Match[str], line: int) -> None:
    """Add the marker `m` matched (not in code) to `result`, unless it is empty; an invalid
    vote adds a warning instead."""
    kind, value = m.group(2), m.group(4).rstrip(" \t")
    if m.group(1) and not m.group(3).strip(" \t:"):  # a bold line: "**VOTE: READY**"
        value = value.rstrip("*_ \t")
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


def _marker_lines(body: str) -> list[re.Match[str]]:
    """The lines of `body` that look like marker lines, code or not (group 1 is an opening
    bold, group 2 the keyword, group 3 the colon with any bold closed around it, group 4 the
    rest of the line)."""
    first = _MARKER_AT.match(body)
    return ([first] if first else []) + list(_MARKER.finditer(body))


def vote_line_numbers(body: str) -> list[int]:
    """1-based numbers of the lines that look like ``VOTE:`` lines, code or not."""
    line = 1
    pos = 0
    out: list[int] = []
    for m in _marker_lines(body):
        if m.group(2) == "VOTE":
            line += body.count("\n", pos, m.start(2))
            pos = m.start(2)
            out.append(line)
    return out


def code_spans(body: str) -> list[tuple[int, int]]:
    """Character ranges of the inline code spans of `body` (outside its code blocks): what
    the citations reader skips as it skips markers there (`citations`)."""
    return _code_spans(body, CodeLines(body).blocks())


def _code_spans(body: str, code_lines: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Character ranges of inline code spans (CommonMark backtick runs: an opening run closes
    at the next run of the same length in the same paragraph). Sorted, disjoint.

    A paragraph ends at a blank line and at a code block (whose backticks open no spans). One
    pass over the backtick runs gives each the number of its paragraph (the paragraph breaks
    before it, by binary search); `_pair_runs` pairs them."""
    runs = [(r.start(), r.end()) for r in _BACKTICKS.finditer(body)]
    if len(runs) < 2:
        return []  # a span needs two runs
    # Only the breaks between the first run and the last can part two runs (the search ends
    # just after the last run's first backtick, so no blank line is seen at its end).
    breaks = [m.start() for m in _BLANK_LINE.finditer(body, runs[0][1], runs[-1][0] + 1)]
    if code_lines:
        line_starts = [0, *(m.end() for m in _NEWLINE.finditer(body))]
        breaks = sorted(breaks + [line_starts[a] for a, _ in code_lines])
        code_starts = [a for a, _ in code_lines]
    opening: list[tuple[int, int, int]] = []  # (start, end, paragraph)
    for s, e in runs:
        if code_lines and in_ranges(bisect_right(line_starts, s) - 1, code_lines, code_starts):
            continue
        if s and body[s - 1] == "\\":
            backslashes = 1
            while s - backslashes - 1 >= 0 and body[s - backslashes - 1] == "\\":
                backslashes += 1
            if backslashes % 2:
                s += 1  # the first backtick is escaped
        if s < e:
            opening.append((s, e, bisect_right(breaks, s) if breaks else 0))
    return _pair_runs(opening)


def _pair_runs(runs: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """Spans from backtick runs ``(start, end, paragraph)``: each run opens a span that the
    next run of the same length in the same paragraph closes (found through `next_same`,
    filled in one pass from the right, so no run scans the runs between)."""
    next_same = [-1] * len(runs)
    last_of: dict[tuple[int, int], int] = {}
    for k in range(len(runs) - 1, -1, -1):
        s, e, para = runs[k]
        next_same[k] = last_of.get((para, e - s), -1)
        last_of[para, e - s] = k
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        j = next_same[i]
        if j >= 0:
            spans.append((runs[i][0], runs[j][1]))
            i = j + 1
        else:
            i += 1
    return spans


def closest_alias(name: str, known: Collection[str]) -> str | None:
    """The alias among `known` that `name` (3 characters or more) most likely misspells, or
    None: what a mention typo's warning and an unknown participant's error suggest. For many
    names against the same aliases, one `typos.CloseAliases` answers each."""
    return CloseAliases(known).closest(name)
