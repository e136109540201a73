"""The discussion file format: text in, syntax tree with line numbers out; appends out.

Pure functions, no I/O. The grammar (README, "The file format"):

* An optional header block at the top: ``<!-- DISCUSSION -->`` and ``<!-- Key: Value -->`` lines.
* The preamble: everything up to the first comment boundary.
* A comment boundary is a line ``---`` at column 0, then optional blank lines, then a line
  ``Name: <author>`` at column 0. The comment runs to the next boundary. Several ``---`` lines
  with only blank lines between them, before a ``Name:`` line, are one boundary. A ``---``
  that is not followed by a ``Name:`` line is a horizontal rule inside the comment.
* A ``Name:`` line at column 0 with no ``---`` before it starts a comment too (with a warning
  asking for the ``---``), unless the markdown shows it as code or hides it in an HTML block:
  a vote under it is its author's, never the comment's above. `neutralise` rewrites every
  ``Name:`` line at column 0, so untrusted text can start neither kind.
* Boundaries are recognised by lines alone, before any markdown structure: a fenced code block
  is scoped to the comment it opens in, so an unclosed fence can never swallow later comments.
  (An example of the format inside a fence needs its ``Name:`` lines indented by one space;
  ``check`` says so when it sees one.)
* Engine markers are HTML comments on a line of their own, outside fenced code:
  ``<!-- PHASE-TRANSITION: a -> b -->``, ``<!-- VOTE-RESET: phase -->``,
  ``<!-- STATUS-CHANGE: OLD -> NEW -->``, and what `discussions run` records:
  ``<!-- ROUND: n | phase: p | order: a, b -->``, ``<!-- RUN-STOP: reason | rounds: n -->``,
  ``<!-- ESCALATION: reason -->``; and for the council (`council`): ``<!-- PASS: name -->``,
  ``<!-- MOTION-RESULT: lapsed|passed|failed | yes: a | no: b | abstain: c | line: n -->``.

* A comment the tool writes carries one metadata line under its ``Name:`` line, an HTML
  comment: ``<!-- provider: x | duration: 1s | ... | at: T -->`` for an AI's answer,
  ``<!-- at: T -->`` for a person's (`comment_meta`); ``at`` is when it was written, UTC to
  the second (`utc_stamp`). A pass records ``at`` in its ``PASS`` marker.
* A byte-order mark at the start of a line (files concatenated) is ignored, with a warning.
* What the engine writes is readable as rendered markdown too: a phase transition or status
  change is followed by a visible line (``*Phase changed: a → b*``) that is prose, not
  structure; untrusted text is `neutralise`d before it is written.

Nothing here raises on bad input: problems become `ParseWarning`s with line numbers. Every
function is linear in its input (benchmarks/parsing.py prints the ratios).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

BOM = "\ufeff"

# Every pattern here runs in time linear in its input: no lazy quantifier followed by an
# optional run and an anchor (``(.*?)[ \t]*$`` backtracks quadratically on a long run of
# spaces); such lines are matched greedily and trimmed in code instead.
_HEADER_KEY = re.compile(r"[A-Za-z][A-Za-z0-9 _-]*")
_LINE_START_BOMS = re.compile(r"^\ufeff+", re.M)

# A separator, then blank lines, then the Name: line. Column 0 only (see module docstring).
_BOUNDARY = re.compile(r"^---[ \t]*\n(?:[ \t]*\n)*Name:[ \t]*([^\n]*)$", re.M)

_ENGINE = re.compile(
    r"^[ ]{0,3}<!--[ \t]*(PHASE-TRANSITION|VOTE-RESET|STATUS-CHANGE|ROUND|RUN-STOP|ESCALATION"
    r"|FALLBACK|PASS|MOTION-RESULT)"
    r"[ \t]*:([^\n]*?)-->[ \t]*$",
    re.M,
)
# A ``Name:`` line at column 0: with no ``---`` before it, it still starts a comment where the
# markdown shows it as text (not in code, not in an HTML block that hides it).
_NAME_LINE = re.compile(r"^Name:[ \t]*([^\n]*)$", re.M)
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})([^\n]*)$", re.M)
_ARROW = re.compile(r"->|→|=>")


@dataclass(slots=True)
class ParseWarning:
    """A problem found in a file. Never fatal."""

    line: int
    """1-based line number the problem is on (0 when it concerns the whole file)."""
    message: str
    """One line, saying what is wrong and, where possible, how to fix it."""


@dataclass(slots=True)
class HeaderField:
    """One ``<!-- Key: Value -->`` line of the header block."""

    key: str
    """Key as written, lower-cased (``title``, ``phase``, ...)."""
    value: str
    """Value with surrounding whitespace removed."""
    line: int
    """1-based line number."""


@dataclass(slots=True)
class CommentBlock:
    """One comment: from its ``---`` separator to the next boundary."""

    author: str
    """The text after ``Name:``."""
    separator_line: int
    """Line of the ``---`` that opens the comment."""
    line: int
    """Line of the ``Name:`` line."""
    body: str
    """Everything after the ``Name:`` line up to the next boundary (newlines normalised)."""
    body_line: int
    """Line number of the first line of `body`."""
    end_line: int
    """Last line that belongs to the comment."""


@dataclass(slots=True)
class EngineMarker:
    """A state change the engine (or a person, by hand) wrote as an HTML comment."""

    kind: str
    """``phase-transition``, ``vote-reset``, ``status-change``, ``round``, ``run-stop`` or
    ``escalation``."""
    line: int
    """1-based line number."""
    source: str | None
    """Phase or status changed from (None for a vote reset, or when not written)."""
    target: str
    """Phase or status changed to; for a vote reset, the phase whose votes restart; for a
    round, a stop or an escalation, everything after the colon."""


@dataclass(slots=True)
class Document:
    """The syntax tree of a discussion file."""

    header: dict[str, str] = field(default_factory=dict)
    """Header values by lower-cased key; the last of duplicate keys wins."""
    header_fields: list[HeaderField] = field(default_factory=list)
    """Header lines in file order."""
    is_discussion: bool = False
    """Whether the file starts with ``<!-- DISCUSSION -->``."""
    preamble: str = ""
    """Text between the header block and the first comment."""
    preamble_line: int = 1
    """Line number of the first preamble line."""
    comments: list[CommentBlock] = field(default_factory=list)
    """Comments in file order."""
    engine_markers: list[EngineMarker] = field(default_factory=list)
    """Engine markers in file order."""
    warnings: list[ParseWarning] = field(default_factory=list)
    """Problems found while parsing."""
    newline: str = "\n"
    """The file's line ending, used for what is appended to it."""
    line_count: int = 0
    """Number of lines in the file."""


# --------------------------------------------------------------------------- decoding


def decode(data: bytes) -> tuple[str, list[ParseWarning]]:
    """Decode file bytes: UTF-8, BOM tolerated; invalid bytes replaced and reported."""
    warnings: list[ParseWarning] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        warnings.append(
            ParseWarning(line, "file is not valid UTF-8; undecodable bytes shown as U+FFFD")
        )
        text = data.decode("utf-8", errors="replace")
    if text.startswith(BOM):
        text = text[1:]
    return text, warnings


def detect_newline(text: str) -> str:
    """The line ending a file uses: the first one found, ``\\n`` by default."""
    i = text.find("\n")
    if i > 0 and text[i - 1] == "\r":
        return "\r\n"
    return "\n"


def normalise_newlines(text: str) -> str:
    """CRLF and lone CR become LF; line numbers stay the same."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --------------------------------------------------------------------------- fences


def fenced_line_ranges(text: str) -> list[tuple[int, int]]:
    """0-based, inclusive line ranges of fenced code blocks in `text` (fences included).

    CommonMark fence rules at the top level: an opening fence of three or more backticks or
    tildes, indented at most three spaces, closed by a fence of the same character at least as
    long with nothing after it. An unclosed fence runs to the end of `text`.
    """
    ranges: list[tuple[int, int]] = []
    open_char = ""
    open_len = 0
    open_line = 0
    line = 0
    pos = 0
    for m in _FENCE.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        run, info = m.group(1), m.group(2)
        if open_char:
            if run[0] == open_char and len(run) >= open_len and not info.strip():
                ranges.append((open_line, line))
                open_char = ""
        elif not (run[0] == "`" and "`" in info):
            open_char, open_len, open_line = run[0], len(run), line
    if open_char:
        ranges.append((open_line, text.count("\n")))
    return ranges


def open_fence_at_end(text: str) -> str | None:
    """The fence that would close a code block left open at the end of `text`, if any."""
    open_run = ""
    for m in _FENCE.finditer(text):
        run, info = m.group(1), m.group(2)
        if open_run:
            if run[0] == open_run[0] and len(run) >= len(open_run) and not info.strip():
                open_run = ""
        elif not (run[0] == "`" and "`" in info):
            open_run = run
    return open_run or None


# Lines whose meaning for fences depends on more than the line itself: a fence after
# anything (spaces, ``>``, a list marker: it is in a container, and ends with it), or an HTML
# block start (a fence inside one is no fence). Possessive: no backtracking on long runs.
_NEEDS_MARKDOWN = re.compile(
    r"^(?:[ \t>*+\-.)0-9]++(?:`{3}|~{3})|[ \t>*+\-.)0-9]*+<[A-Za-z!?/])", re.M
)
_INDENTED = re.compile(r"^(?: {4}|\t)[ \t]*\S", re.M)  # an indented line that is not blank


def code_line_ranges(text: str) -> list[tuple[int, int]]:
    """0-based inclusive line ranges of code blocks (fenced and indented) in `text`, which
    starts at the top level (a comment body, a preamble); sorted and disjoint.

    Fast path: fences at column 0 with no HTML block around are top-level fences, exactly as
    CommonMark reads them, and `fenced_line_ranges` finds them without a markdown parse.
    Otherwise (indented lines, indented fences, HTML blocks) markdown-it-py decides."""
    if _INDENTED.search(text) or (
        ("```" in text or "~~~" in text) and _NEEDS_MARKDOWN.search(text)
    ):
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


def open_fence(text: str) -> tuple[str, int] | None:
    """A top-level fenced code block left open at the end of `text` (which starts at the top
    level): the fence that closes it and its 0-based opening line; None if there is none.
    Agrees with `code_line_ranges`: what it calls code is what GitHub shows as code."""
    if "```" not in text and "~~~" not in text:
        return None
    if not _NEEDS_MARKDOWN.search(text):
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
            closer = _fence_closer(t.markup, lines, a, b) if b >= len(lines) - 1 else ""
            found = (closer, a) if closer else None
    return found


def in_ranges(line: int, ranges: list[tuple[int, int]], starts: list[int] | None = None) -> bool:
    """Whether `line` lies in one of `ranges` (sorted, disjoint, inclusive). Pass
    ``starts=[a for a, _ in ranges]`` when asking many times: each question is then O(log n)."""
    if starts is None:
        starts = [a for a, _ in ranges]
    i = bisect_right(starts, line) - 1
    return i >= 0 and line <= ranges[i][1]


def strip_line_start_boms(text: str) -> tuple[str, list[int]]:
    """Remove byte-order marks (U+FEFF, zero width no-break space) standing at line starts;
    return the text and the 1-based numbers of the lines they were on. Line numbers do not
    change. A BOM in the middle of a file (files concatenated) would otherwise hide a ``---``
    or ``Name:`` line from the parser while GitHub still shows it."""
    if BOM not in text:
        return text, []
    lines: list[int] = []
    line = 1
    pos = 0
    for m in _LINE_START_BOMS.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        lines.append(line)
    return _LINE_START_BOMS.sub("", text), lines


def header_comment(line: str) -> str | None:
    """The inside of a line that is one HTML comment (``<!-- x -->`` -> ``x``), else None."""
    s = line.strip(" \t")
    if len(s) < 7 or not s.startswith("<!--") or not s.endswith("-->"):
        return None
    return s[4:-3].strip(" \t")


def has_discussion_header(text: str) -> bool:
    """Whether the header block (the HTML-comment lines at the top) holds ``DISCUSSION``, as
    the parser decides it, reading only as far as the header block goes. The one answer to
    "is this a discussion file?" for every command (`list`, writers, the merge driver)."""
    pos = 0
    while pos < len(text):
        nl = text.find("\n", pos)
        end = len(text) if nl < 0 else nl
        raw = text[pos:end].rstrip("\r").lstrip(BOM)
        if raw.strip():
            inner = header_comment(raw)
            if inner is None:
                return False
            if inner.upper() == "DISCUSSION":
                return True
        if nl < 0:
            break
        pos = nl + 1
    return False


def is_discussion_text(text: str) -> bool:
    """The rule of `storage.discussion_problem` for text already read and decoded: no NUL,
    and the discussion header or at least one comment boundary."""
    if not text or "\x00" in text:
        return False
    if has_discussion_header(text):
        return True
    return _BOUNDARY.search(strip_line_start_boms(normalise_newlines(text))[0]) is not None


def comment_meta(body: str) -> str | None:
    """What the tool recorded about a comment: the inside of its metadata line, else None.

    The metadata line is an HTML comment on a line of its own among the comment's first
    `META_LINES` lines, indented at most three spaces, whose inside starts with ``provider:``
    (an AI's answer: ``provider: x | duration: 1s | ... | at: T``) or ``at:`` (a person's
    comment written by the tool: ``at: T``). `neutralise` leaves no such line in untrusted
    text (outside code it starts with ``&lt;``, inside code it is indented four spaces), and
    the tool writes its own line first, so the first one found is always the tool's."""
    i = comment_meta_line(body.split("\n", META_LINES)[:META_LINES])
    return None if i is None else _meta_inner(body.split("\n", i + 1)[i])


def comment_meta_line(lines: list[str]) -> int | None:
    """The index of the metadata line (see `comment_meta`) in a comment's `lines`, else None."""
    for i, line in enumerate(lines[:META_LINES]):
        if _meta_inner(line) is not None:
            return i
    return None


def meta_fields(inner: str) -> dict[str, str]:
    """``provider: x | at: T`` -> {"provider": "x", "at": "T"} (keys as written)."""
    fields: dict[str, str] = {}
    for part in inner.split(" | "):
        key, _, value = part.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def _meta_inner(line: str) -> str | None:
    line = line.rstrip("\r")
    rest = line.lstrip(" ")
    if len(line) - len(rest) > 3 or not rest.startswith("<!--"):
        return None
    inner = header_comment(rest)
    return inner if inner is not None and _META_KEY.match(inner) else None


def utc_stamp(when: datetime) -> str:
    """`when` as the tool records times: UTC to the second, ``2026-11-23T20:10:00Z``. The text
    sorts as the times do (four-digit years), which the merge driver relies on."""
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return f"{when.year:04d}-{when:%m-%dT%H:%M:%S}Z"


def now_stamp() -> str:
    """The time now, as `utc_stamp` writes it: what every writer records a comment with."""
    return utc_stamp(datetime.now(UTC))


def parse_stamp(text: str) -> datetime | None:
    """A recorded time (``2026-11-23T20:10:00Z``; any ISO 8601 time, one without an offset
    taken as UTC) as an aware UTC datetime to the second; None when `text` is not one."""
    text = text.strip()
    if not text or len(text) > 40:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).replace(microsecond=0)


def written_at(unit: str) -> str:
    """When a comment or an engine block says it was written, as `utc_stamp` writes it; ``""``
    when it does not say. `unit` is what the merge driver cuts a file into: optional blank
    lines, then a ``Name:`` line and the comment's body (the ``at:`` field of its metadata
    line), or an engine marker line (the ``at:`` field of its arguments, as a ``PASS`` has)."""
    head = normalise_newlines("\n".join(unit.split("\n", META_LINES + 8)[: META_LINES + 7]))
    lines = head.lstrip(" \t\n").split("\n")
    if not lines:
        return ""
    inner: str | None = None
    if _NAME_LINE.match(lines[0]):
        i = comment_meta_line(lines[1:])
        inner = None if i is None else _meta_inner(lines[1 + i])
    else:
        m = _ENGINE.match(lines[0])
        if m is not None:
            inner = m.group(2).partition("|")[2]
    if not inner:
        return ""
    when = parse_stamp(meta_fields(inner).get("at", ""))
    return utc_stamp(when) if when else ""


def first_heading(text: str) -> str | None:
    """The text of the first ATX level-1 heading (``# Title #``) in `text`, else None."""
    for m in _HEADING_LINE.finditer(text):
        rest = m.group(1)
        if len(rest) < 2:
            continue  # ``#`` + one space: no title
        return (rest.strip(" \t").rstrip(" \t#") or rest).strip()
    return None


META_LINES = 8
"""How far down a comment its metadata line may stand (the tool writes it right under
``Name:``; a few lines leave room for blank lines added by hand)."""
_META_KEY = re.compile(r"(?:provider|at)[ \t]*:")
_HEADING_LINE = re.compile(r"^#([ \t][^\n]*)", re.M)


# --------------------------------------------------------------------------- parsing


def parse_document(text: str) -> Document:
    """Parse discussion text (already decoded) into a `Document`. Never raises."""
    doc = Document(newline=detect_newline(text))
    text = normalise_newlines(text)
    if text.startswith(BOM):
        text = text[1:]
    text, bom_lines = strip_line_start_boms(text)
    for line_no in bom_lines:
        doc.warnings.append(
            ParseWarning(
                line_no,
                "stray byte-order mark (U+FEFF) at the start of the line, ignored; "
                "delete it (files concatenated?)",
            )
        )
    doc.line_count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)

    header_end = _parse_header(text, doc)

    bounds = _boundaries(text, header_end, doc)
    first = bounds[0].sep_pos if bounds else len(text)
    doc.preamble = text[header_end:first]
    doc.preamble_line = text.count("\n", 0, header_end) + 1
    segments: list[tuple[int, int, int]] = [(header_end, first, doc.preamble_line)]

    for i, b in enumerate(bounds):
        end = bounds[i + 1].sep_pos if i + 1 < len(bounds) else len(text)
        body_start = min(b.name_end + 1, end)
        # `---` lines closing the last comment are separators, not part of the comment.
        body_end = _separator_run_start(text, body_start, end) if i + 1 == len(bounds) else end
        body = text[body_start:body_end]
        end_line = b.name_line + body.count("\n") - (1 if body.endswith("\n") else 0)
        author = b.author
        if not author:
            doc.warnings.append(ParseWarning(b.name_line, "comment has an empty `Name:` line"))
            author = "(unknown)"
        _warn_separator_under_text(text, b, doc)
        doc.comments.append(
            CommentBlock(
                author=author,
                separator_line=b.sep_line,
                line=b.name_line,
                body=body,
                body_line=b.name_line + 1,
                end_line=max(end_line, b.name_line),
            )
        )
        segments.append((body_start, end, b.name_line + 1))

    _find_engine_markers(text, header_end, segments, doc)
    _warn_fence_examples(text, segments, doc)
    return doc


@dataclass(slots=True)
class _Bound:
    """Where a comment starts: its separator run (if any) and its ``Name:`` line."""

    sep_pos: int
    """Offset of the first ``---`` line before the ``Name:`` line (the ``Name:`` line itself
    when no ``---`` stands before it)."""
    sep_line: int
    name_line: int
    name_end: int
    """Offset of the end of the ``Name:`` line."""
    author: str
    bare: bool = False
    """No ``---`` line before the ``Name:`` line."""


def _boundaries(text: str, start: int, doc: Document) -> list[_Bound]:
    """The comment boundaries in ``text[start:]``, in order.

    A boundary is a run of ``---`` lines and blank lines, then a ``Name:`` line; the run starts
    at its first ``---`` (two separators with blank lines between are one boundary, as GitHub
    shows them: two rules and nothing in between). These are found by lines alone. Then a
    ``Name:`` line at column 0 with no ``---`` before it is a boundary too, unless the markdown
    of its segment puts it in code or in an HTML block that hides it; `check` asks for the
    missing ``---``."""
    bounds: list[_Bound] = []
    names: set[int] = set()
    line = 1
    pos = 0
    limit = start
    for m in _BOUNDARY.finditer(text, start):
        sep = _separator_run_start(text, limit, m.start())
        line += text.count("\n", pos, sep)
        pos = sep
        name_line = line + text.count("\n", sep, m.end())
        names.add(m.start(1))
        bounds.append(_Bound(sep, line, name_line, m.end(), m.group(1).strip()))
        limit = min(m.end() + 1, len(text))
    if text.find("\nName:", start) < 0 and not text.startswith("Name:", start):
        return bounds
    bare = _bare_boundaries(text, start, bounds, names)
    if not bare:
        return bounds
    for b in bare:
        doc.warnings.append(
            ParseWarning(
                b.name_line,
                f"`Name: {b.author}` starts a comment but has no `---` line before it; add a "
                "`---` line above it (with a blank line before and after)",
            )
        )
    return sorted(bounds + bare, key=lambda b: b.sep_pos)


def _bare_boundaries(
    text: str, start: int, bounds: list[_Bound], names: set[int]
) -> list[_Bound]:
    """``Name:`` lines at column 0 that no ``---`` opens, outside code and hiding HTML."""
    seg_starts = [start] + [min(b.name_end + 1, len(text)) for b in bounds]
    seg_ends = [b.sep_pos for b in bounds] + [len(text)]  # a `Name:` line is in one of them
    seg_lines = [text.count("\n", 0, start)] + [b.name_line for b in bounds]  # 0-based
    hidden: dict[int, tuple[list[tuple[int, int]], list[int], int]] = {}
    found: list[_Bound] = []
    line = 1
    pos = 0
    for m in _NAME_LINE.finditer(text, start):
        if m.start(1) in names:
            continue
        line += text.count("\n", pos, m.start())
        pos = m.start()
        seg = bisect_right(seg_starts, m.start()) - 1
        if seg not in hidden:
            ranges = hidden_line_ranges(text[seg_starts[seg] : seg_ends[seg]])
            hidden[seg] = (ranges, [a for a, _ in ranges], seg_lines[seg])
        ranges, starts, first = hidden[seg]
        if in_ranges(line - 1 - first, ranges, starts):
            continue
        found.append(_Bound(m.start(), line, line, m.end(), m.group(1).strip(), bare=True))
    return found


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
            t.type == "html_block" and _HTML_OPEN.match(t.content.lstrip(" \t"))
        ):
            ranges.append((t.map[0], t.map[1] - 1))
    ranges.sort()
    return ranges


def _separator_run_start(text: str, limit: int, pos: int) -> int:
    """The offset of the first ``---`` line of the run of ``---`` and blank lines that ends at
    `pos` (a line start, or the end of `text`); `pos` when the run holds no ``---`` line. Never
    looks before `limit` (a line start). Time: the length of the run."""
    best = pos
    cur = pos
    # The line before `cur` is text[prev:line_end]; at the very end it may lack its newline.
    line_end = cur - 1 if cur and text[cur - 1] == "\n" else cur
    while cur > limit:
        prev = text.rfind("\n", limit, line_end) + 1 or limit
        kind = _run_line_kind(text[prev:line_end])
        if kind == 0:
            break
        if kind == 2:
            best = prev
        cur = prev
        line_end = cur - 1
    return best


def _run_line_kind(line: str) -> int:
    """0: text, 1: a blank line, 2: a ``---`` separator line (trailing spaces allowed)."""
    if not line.strip(" \t"):
        return 1
    if line.startswith("---") and not line[3:].strip(" \t"):
        return 2
    return 0


def _warn_separator_under_text(text: str, b: _Bound, doc: Document) -> None:
    sep_pos = b.sep_pos
    if b.bare or sep_pos == 0 or text[sep_pos - 1] != "\n":
        return
    prev_start = text.rfind("\n", 0, sep_pos - 1) + 1
    if text[prev_start : sep_pos - 1].strip():
        doc.warnings.append(
            ParseWarning(
                b.sep_line,
                "`---` directly under a text line renders as a heading on GitHub; "
                "put a blank line before it",
            )
        )


def _parse_header(text: str, doc: Document) -> int:
    """Read the header block; return the offset where the preamble starts."""
    pos = 0
    line = 1
    seen: dict[str, int] = {}
    while pos < len(text):
        nl = text.find("\n", pos)
        end = len(text) if nl < 0 else nl
        raw = text[pos:end]
        if raw.strip():
            content = header_comment(raw)
            if content is None:
                break
            if content.upper() == "DISCUSSION":
                doc.is_discussion = True
            else:
                colon = content.find(":")
                name = content[:colon].rstrip(" \t") if colon > 0 else ""
                if name and _HEADER_KEY.fullmatch(name):
                    key = name.strip().lower()
                    value = content[colon + 1 :].strip()
                    if key in seen:
                        doc.warnings.append(
                            ParseWarning(
                                line,
                                f"header `{name.strip()}` repeats line {seen[key]}; "
                                "the later value is used",
                            )
                        )
                    seen[key] = line
                    doc.header[key] = value
                    doc.header_fields.append(HeaderField(key, value, line))
        pos = end + 1
        line += 1
    # The preamble starts at the beginning of the first non-header line.
    return min(pos, len(text))


def _find_engine_markers(
    text: str, start: int, segments: list[tuple[int, int, int]], doc: Document
) -> None:
    fences_by_segment: dict[int, tuple[list[tuple[int, int]], list[int]]] = {}
    seg_index = 0
    line = 1
    pos = 0
    for m in _ENGINE.finditer(text, start):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        while seg_index + 1 < len(segments) and segments[seg_index + 1][0] <= m.start():
            seg_index += 1
        seg_start, seg_end, seg_line = segments[seg_index]
        if seg_index not in fences_by_segment:
            ranges = code_line_ranges(text[seg_start:seg_end])
            fences_by_segment[seg_index] = (ranges, [a for a, _ in ranges])
        ranges, starts = fences_by_segment[seg_index]
        if in_ranges(line - seg_line, ranges, starts):
            continue
        kind = m.group(1).lower()
        args = m.group(2).strip()
        marker = _engine_marker(kind, args, line)
        if marker is None:
            doc.warnings.append(
                ParseWarning(line, f"malformed {m.group(1)} marker: `{m.group(0).strip()}`")
            )
        else:
            doc.engine_markers.append(marker)


def _engine_marker(kind: str, args: str, line: int) -> EngineMarker | None:
    if not args:
        return None
    if kind in (
        "vote-reset", "round", "run-stop", "escalation", "fallback", "pass", "motion-result"
    ):
        return EngineMarker(kind, line, None, args)
    parts = _ARROW.split(args)
    if len(parts) == 2 and all(p.strip() for p in parts):
        return EngineMarker(kind, line, parts[0].strip(), parts[1].strip())
    if len(parts) == 1 and kind == "status-change":
        return EngineMarker(kind, line, None, args)
    return None


def _warn_fence_examples(text: str, segments: list[tuple[int, int, int]], doc: Document) -> None:
    """Warn where a fence opened in one comment was cut short by a boundary."""
    for seg_start, seg_end, seg_line in segments:
        segment = text[seg_start:seg_end]
        if "``" not in segment and "~~" not in segment:
            continue
        opener = open_fence(segment)
        if opener is None:
            continue
        # The fence is still open where the next boundary starts.
        open_line = opener[1] + seg_line
        if seg_end < len(text):
            doc.warnings.append(
                ParseWarning(
                    open_line,
                    "fenced code block is still open at the next comment boundary; close it, "
                    "or indent an example's `---` / `Name:` lines by one space",
                )
            )
        else:
            doc.warnings.append(ParseWarning(open_line, "fenced code block is never closed"))


# --------------------------------------------------------------------------- writing


VOTE_VALUES = ("READY", "CHANGES", "REJECT")

_SEPARATOR_LINE = re.compile(r"^---[ \t]*$", re.M)

# Neutralising. A line is looked at after its container prefix (spaces, tabs, ``>``) and,
# for the block starts below, after any list markers too (``- 1. ---`` is a rule in a list).
_CONTAINER = re.compile(r"[ \t>]*")
_LIST_MARKER = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_RULE_CHARS = frozenset("-*_= \t")
# HTML blocks of CommonMark types 1-5: they run to an end tag, ``-->``, ``?>``, ``>`` or
# ``]]>`` however many blank lines come first, so they can swallow everything after them.
_HTML_OPEN = re.compile(
    # Also the end tags of those four: cmark-gfm starts a (type 7) HTML block at `</script>`
    # where markdown-it does not, and the two would then pair the fences after it differently.
    r"<(?:/?(?:script|pre|style|textarea)(?:[ \t>]|$)|!--|\?|![A-Za-z]|!\[CDATA\[)", re.I
)
_FENCE_OPEN = re.compile(r"`{3,}|~{3,}")
# ``Name:``, and the spellings GitHub shows as ``Name:`` too (``Name\:``, ``Name&#58;``).
_NAME_START = re.compile(r"Name[ \t]*(?::|\\:|&colon;|&#0*58;|&#[xX]0*3[aA];)")
_NEUTRAL_ROUNDS = 4  # rounds that leave code blocks alone before escaping everywhere

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
                closer = _fence_closer(t.markup, lines, a, b)
        elif t.type == "html_block" and _HTML_OPEN.match(t.content.lstrip(" \t")):
            code[a:b] = b"\2" * (b - a)
    out = [_neutral_line(line, code[i] if aware else 0) for i, line in enumerate(lines)]
    if closer:
        while out and not out[-1].strip(" \t"):
            out.pop()
        out += [closer, ""]
    return "\n".join(out)


def _fence_closer(markup: str, lines: list[str], first: int, end: int) -> str:
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


_CONFLICT_LINE = re.compile(r"(?:<{7}|>{7}|\|{7})(?: |$)|={7}[ \t]*$")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


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
        if _HTML_OPEN.match(line, pos):
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


@dataclass(slots=True)
class Tail:
    """What an append needs to know about the end of a file (read without a full parse)."""

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


def analyse_tail(tail_text: str, *, at_file_start: bool) -> Tail:
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
    for m in _BOUNDARY.finditer(stripped):
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
    return Tail(
        empty=not text and at_file_start,
        ends_with_newline=text.endswith("\n"),
        trailing_blank_lines=trailing,
        ends_with_separator=ends_sep,
        open_fence=fence[0] if fence else None,
        newline=newline,
    )


def join_for_append(tail: Tail, block: str) -> str:
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


def join_blocks(tail: Tail, blocks: list[str]) -> str:
    """The text that appends `blocks`, one after another, to a file ending in `tail`."""
    out: list[str] = []
    for block in blocks:
        out.append(join_for_append(tail, block))
        # What join_for_append leaves behind: a newline-terminated `---` separator.
        tail = Tail(False, True, 0, True, None, tail.newline)
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
_MARKDOWN_CHAR = re.compile(r"[\\`*\[\]<>#|~&]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def render_header(fields: list[tuple[str, str]]) -> str:
    """A header block: ``<!-- DISCUSSION -->`` then one ``<!-- Key: Value -->`` per field."""
    lines = ["<!-- DISCUSSION -->"]
    for key, value in fields:
        value = value.replace("-->", "--&gt;").replace("\n", " ")
        lines.append(f"<!-- {key}: {value} -->")
    return "\n".join(lines) + "\n"
