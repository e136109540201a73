"""The discussion file format, read: text in, a `Document` with line numbers out.

Pure functions, no I/O; writing the format is `render`, the records are `document`.
The grammar (docs/file-format.md):

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
  ``<!-- MOTION-RESULT: lapsed|passed|failed | yes: a | no: b | abstain: c | line: n -->``;
  and a participant none of whose providers answered: ``<!-- FAILED: name | providers: p |
  why: ... | calls: n -->``;
  and what a participant was shown from the repository (`evidence`):
  ``<!-- EVIDENCE: n | request: r | by: a | ... -->``; and a documentation loop's draft
  (`documentation`): ``<!-- DRAFT: n | by: a | digest: d | at: T -->``; and a decision
  carried into code (`apply`): ``<!-- APPLY: n | lead: a | provider: p | branch: b | ... -->``
  with the diffstat and output fenced under it, and the review of that change
  ``<!-- APPLY-REVIEW: n | revision: r | result: implemented|changes|unresolved | ... -->``.

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

from .code import CodeLines, hidden_line_ranges, in_ranges, open_fence
from .document import (
    BOUNDARY,
    ENGINE_LINE,
    NAME_LINE,
    CommentBlock,
    Document,
    EngineMarker,
    HeaderField,
    ParseWarning,
    header_comment,
)
from .kinds import ENGINE_BY_KIND, MOVE_OR_VALUE, VALUE
from .record import Record
from .text import BOM, detect_newline, normalise_newlines, strip_line_start_boms

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (see __main__)
if TYPE_CHECKING:
    from collections.abc import Iterator

# Every pattern here runs in time linear in its input: no lazy quantifier followed by an
# optional run and an anchor (``(.*?)[ \t]*$`` backtracks quadratically on a long run of
# spaces); such lines are matched greedily and trimmed in code instead.
_HEADER_KEY = re.compile(r"[A-Za-z][A-Za-z0-9 _-]*")


_ARROW = re.compile(r"->|→|=>")


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
    return BOUNDARY.search(strip_line_start_boms(normalise_newlines(text))[0]) is not None


def first_heading(text: str) -> str | None:
    """The text of the first ATX level-1 heading (``# Title #``) in `text`, else None."""
    for m in _HEADING_LINE.finditer(text):
        rest = m.group(1)
        if len(rest) < 2:
            continue  # ``#`` + one space: no title
        return (rest.strip(" \t").rstrip(" \t#") or rest).strip()
    return None


def _warn_control_characters(text: str, doc: Document) -> None:
    """A warning for each line holding a control character (an escape sequence, a bell): the
    engine never writes one, so a hand edit or a paste brought it, and a terminal acts on it
    when the file is shown (``cat``, ``git diff``, ``less -R``)."""
    from .controls import control_lines  # not on the merge driver's path: its start-up

    for line_no, char in control_lines(text):
        doc.warnings.append(
            ParseWarning(
                line_no,
                f"control character U+{ord(char):04X} on this line: a terminal acts on it when "
                "the file is shown; delete it",
                "warning",
                "control-character",
            )
        )


_HEADING_LINE = re.compile(r"^#([ \t][^\n]*)", re.M)


def parse_document(text: str, comment_code: list[CodeLines | None] | None = None) -> Document:
    """Parse discussion text (already decoded) into a `Document`. Never raises. `comment_code`
    receives each comment's `CodeLines` the parse made (or None): the derive asks them again
    (`markers.extract`) rather than find each comment's top-level fences a second time."""
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
                "hint",
            )
        )
    _warn_control_characters(text, doc)
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
        if not b.bare:
            _warn_separator_under_text(text, b.sep_pos, b.sep_line, doc)
        if body_end < end:  # the last comment closed by hand
            closing = b.name_line + text.count("\n", b.name_end, body_end)
            _warn_separator_under_text(text, body_end, closing, doc)
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

    _read_segments(text, header_end, segments, doc, comment_code)
    return doc


def _read_segments(
    text: str,
    start: int,
    segments: list[tuple[int, int, int]],
    doc: Document,
    comment_code: list[CodeLines | None] | None,
) -> None:
    """The engine markers and the fences cut short of the segments (the preamble, then each
    comment to the next boundary), which ask the same `CodeLines` of each segment; those of
    the comments go to `comment_code` (see `parse_document`)."""
    code: dict[int, CodeLines] = {}
    _find_engine_markers(text, start, segments, doc, code)
    _warn_fence_examples(text, segments, doc, code)
    if comment_code is not None:
        comment_code[:] = [_same_text(code.get(i + 1), c.body) for i, c in enumerate(doc.comments)]


def _same_text(code: CodeLines | None, body: str) -> CodeLines | None:
    """`code` if it was made of `body` (a segment runs to the next boundary, the last comment's
    body may stop short of it: at the ``---`` lines that close it), else None."""
    return code if code is not None and code.text == body else None


class _Bound(Record):
    """Where a comment starts: its separator run (if any) and its ``Name:`` line."""

    __slots__ = ("sep_pos", "sep_line", "name_line", "name_end", "author", "bare")
    sep_pos: int
    """Offset of the first ``---`` line before the ``Name:`` line (the ``Name:`` line itself
    when no ``---`` stands before it)."""
    sep_line: int
    name_line: int
    name_end: int
    """Offset of the end of the ``Name:`` line."""
    author: str
    bare: bool
    """No ``---`` line before the ``Name:`` line."""

    def __init__(
        self,
        sep_pos: int,
        sep_line: int,
        name_line: int,
        name_end: int,
        author: str,
        bare: bool = False,
    ) -> None:
        self.sep_pos = sep_pos
        self.sep_line = sep_line
        self.name_line = name_line
        self.name_end = name_end
        self.author = author
        self.bare = bare


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
    for at, m in _lines_matching(BOUNDARY, _BOUNDARY_NL, text, start):
        sep = _separator_run_start(text, limit, at)
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
                "error",
                "missing-separator",
            )
        )
    return sorted(bounds + bare, key=lambda b: b.sep_pos)


# BOUNDARY and ENGINE_LINE after a newline: a literal start lets the search skip from newline
# to newline, where ``^`` with re.M is tried at every character of a long file.
_BOUNDARY_NL = re.compile("\n" + BOUNDARY.pattern.removeprefix("^"), re.M)
_ENGINE_LINE_NL = re.compile("\n" + ENGINE_LINE.pattern.removeprefix("^"), re.M)


def _lines_matching(
    pattern: re.Pattern[str], after_newline: re.Pattern[str], text: str, start: int
) -> Iterator[tuple[int, re.Match[str]]]:
    """(offset of the line, match) of each match of `pattern` (which starts with ``^``, re.M)
    in `text` from `start`, as ``pattern.finditer(text, start)`` finds them, found with
    `after_newline` (the same after a newline: its match starts one before the line)."""
    after = 0
    if start == 0:
        first = pattern.match(text)
        if first is not None:
            yield 0, first
            after = first.end()  # as finditer, no match overlaps the one before
    for m in after_newline.finditer(text, max(start - 1, 0, after)):
        yield m.start() + 1, m


def _bare_boundaries(text: str, start: int, bounds: list[_Bound], names: set[int]) -> list[_Bound]:
    """``Name:`` lines at column 0 that no ``---`` opens, outside code and hiding HTML."""
    at_top = start == 0 and text.startswith("Name:")
    if text.count("\nName:", max(start - 1, 0)) + at_top == len(names):
        return []  # as many such lines (from `start`) as BOUNDARY matched: each one of those
    seg_starts = [start] + [min(b.name_end + 1, len(text)) for b in bounds]
    seg_ends = [b.sep_pos for b in bounds] + [len(text)]  # a `Name:` line is in one of them
    seg_lines = [text.count("\n", 0, start)] + [b.name_line for b in bounds]  # 0-based
    hidden: dict[int, tuple[list[tuple[int, int]], list[int], int]] = {}
    found: list[_Bound] = []
    line = 1
    pos = 0
    for m in NAME_LINE.finditer(text, start):
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


def _lines_above(text: str, pos: int, most: int = 200) -> list[str]:
    """The lines right above offset `pos` (a line's start) up to a blank line, a separator or
    the start, oldest first (at most `most`)."""
    lines: list[str] = []
    end = pos - 1
    while end > 0 and len(lines) < most:
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end].rstrip("\r")
        if _run_line_kind(line):
            break
        lines.append(line)
        end = start - 1
    return lines[::-1]


def _warn_separator_under_text(text: str, sep_pos: int, sep_line: int, doc: Document) -> None:
    """A hint when the ``---`` line at `sep_pos` (a comment's opening or the last comment's
    closing separator) turns the line above it into a heading (`headings.underlines`)."""
    if sep_pos == 0 or text[sep_pos - 1] != "\n":
        return
    above = _lines_above(text, sep_pos)
    if not above:  # a blank line or a separator above: no heading (most separators)
        return
    from .headings import underlines  # not on the merge driver's path: its start-up

    if underlines(above):
        doc.warnings.append(
            ParseWarning(
                sep_line,
                "`---` directly under a text line renders as a heading on GitHub; "
                "put a blank line before it",
                "hint",
            )
        )


def header_length(text: str) -> int:
    """Where the header block of `text` (newlines as ``\\n``, no BOM) ends: the offset the
    preamble starts at, as `parse_document` finds it."""
    return _parse_header(text, Document())


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
    text: str,
    start: int,
    segments: list[tuple[int, int, int]],
    doc: Document,
    code_by_segment: dict[int, CodeLines],
) -> None:
    """The engine markers outside code; `code_by_segment` keeps the `CodeLines` made of each
    segment that holds a marker line (by its index), for `_warn_fence_examples`."""
    seg_index = 0
    line = 1
    pos = 0
    for at, m in _lines_matching(ENGINE_LINE, _ENGINE_LINE_NL, text, start):
        line += text.count("\n", pos, at)
        pos = at
        while seg_index + 1 < len(segments) and segments[seg_index + 1][0] <= at:
            seg_index += 1
        seg_start, seg_end, seg_line = segments[seg_index]
        if seg_index not in code_by_segment:
            code_by_segment[seg_index] = CodeLines(text[seg_start:seg_end])
        if code_by_segment[seg_index].has(line - seg_line, at - seg_start):
            continue
        kind = m.group(1).lower()
        args = m.group(2).strip()
        marker = _engine_marker(kind, args, line)
        if marker is None:
            doc.warnings.append(
                ParseWarning(
                    line, f"malformed {m.group(1)} marker: `{m.group(0).strip()}`", "error"
                )
            )
        else:
            doc.engine_markers.append(marker)


def _engine_marker(kind: str, args: str, line: int) -> EngineMarker | None:
    """The block of `kind` with arguments `args`, read as its declared form
    (`kinds.ENGINE_KINDS`); None when they do not fit it."""
    if not args:
        return None
    form = ENGINE_BY_KIND[kind].form
    if form == VALUE:
        return EngineMarker(kind, line, None, args)
    parts = _ARROW.split(args)
    if len(parts) == 2 and all(p.strip() for p in parts):
        return EngineMarker(kind, line, parts[0].strip(), parts[1].strip())
    if len(parts) == 1 and form == MOVE_OR_VALUE:
        return EngineMarker(kind, line, None, args)
    return None


def _warn_fence_examples(
    text: str,
    segments: list[tuple[int, int, int]],
    doc: Document,
    code_by_segment: dict[int, CodeLines],
) -> None:
    """Warn where a fence opened in one comment was cut short by a boundary (the segments'
    `CodeLines` that `_find_engine_markers` made are asked again rather than made anew, and
    those made here are kept in `code_by_segment` too)."""
    for i, (seg_start, seg_end, seg_line) in enumerate(segments):
        if text.find("``", seg_start, seg_end) < 0 and text.find("~~", seg_start, seg_end) < 0:
            continue  # asked of the file in place: most segments are not copied out of it
        code = code_by_segment.get(i)
        if code is None:
            code = code_by_segment[i] = CodeLines(text[seg_start:seg_end])
        segment = code.text
        opener = open_fence(segment, code)
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
