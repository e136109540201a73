"""The discussion file format: text in, syntax tree with line numbers out; appends out.

Pure functions, no I/O. The grammar (DESIGN.md section 4):

* An optional header block at the top: ``<!-- DISCUSSION -->`` and ``<!-- Key: Value -->`` lines.
* The preamble: everything up to the first comment boundary.
* A comment boundary is a line ``---`` at column 0, then optional blank lines, then a line
  ``Name: <author>`` at column 0. The comment runs to the next boundary. A ``---`` that is not
  followed by a ``Name:`` line is a horizontal rule inside the comment.
* Boundaries are recognised by lines alone, before any markdown structure: a fenced code block
  is scoped to the comment it opens in, so an unclosed fence can never swallow later comments.
  (An example of the format inside a fence needs its ``Name:`` lines indented by one space;
  ``check`` says so when it sees one.)
* Engine markers are HTML comments on a line of their own, outside fenced code:
  ``<!-- PHASE-TRANSITION: a -> b -->``, ``<!-- VOTE-RESET: phase -->``,
  ``<!-- STATUS-CHANGE: OLD -> NEW -->``.

Nothing here raises on bad input: problems become `ParseWarning`s with line numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

BOM = "\ufeff"

_HEADER_LINE = re.compile(r"^[ \t]*<!--[ \t]*(.*?)[ \t]*-->[ \t]*$")
_HEADER_FIELD = re.compile(r"^([A-Za-z][A-Za-z0-9 _-]*?)[ \t]*:[ \t]*(.*)$")

# A separator, then blank lines, then the Name: line. Column 0 only (see module docstring).
_BOUNDARY = re.compile(r"^---[ \t]*\n(?:[ \t]*\n)*Name:[ \t]*([^\n]*)$", re.M)

_ENGINE = re.compile(
    r"^[ ]{0,3}<!--[ \t]*(PHASE-TRANSITION|VOTE-RESET|STATUS-CHANGE)[ \t]*:([^\n]*?)-->[ \t]*$",
    re.M,
)
_CLOSING_SEPARATOR = re.compile(r"\n---[ \t]*(?:\n[ \t]*)*\Z")
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})([^\n]*)$", re.M)
_ARROW = re.compile(r"\s*(?:->|→|=>)\s*")


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
    """``phase-transition``, ``vote-reset`` or ``status-change``."""
    line: int
    """1-based line number."""
    source: str | None
    """Phase or status changed from (None for a vote reset, or when not written)."""
    target: str
    """Phase or status changed to; for a vote reset, the phase whose votes restart."""


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


def _in_ranges(line: int, ranges: list[tuple[int, int]]) -> bool:
    return any(a <= line <= b for a, b in ranges)


# --------------------------------------------------------------------------- parsing


def parse_document(text: str) -> Document:
    """Parse discussion text (already decoded) into a `Document`. Never raises."""
    doc = Document(newline=detect_newline(text))
    text = normalise_newlines(text)
    if text.startswith(BOM):
        text = text[1:]
    doc.line_count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)

    header_end = _parse_header(text, doc)

    # Comment boundaries, by lines alone.
    bounds: list[tuple[int, int, int, int, str]] = []  # (sep_pos, sep_line, name_line, end, author)
    line = 1
    pos = 0
    for m in _BOUNDARY.finditer(text, header_end):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        name_line = line + m.group(0).count("\n")
        bounds.append((m.start(), line, name_line, m.end(), m.group(1).strip()))

    first = bounds[0][0] if bounds else len(text)
    doc.preamble = text[header_end:first]
    doc.preamble_line = text.count("\n", 0, header_end) + 1
    segments: list[tuple[int, int, int]] = [(header_end, first, doc.preamble_line)]

    for i, (sep_pos, sep_line, name_line, name_end, author) in enumerate(bounds):
        end = bounds[i + 1][0] if i + 1 < len(bounds) else len(text)
        body_start = min(name_end + 1, end)
        body = text[body_start:end]
        if i + 1 == len(bounds):
            # A `---` closing the last comment is a separator, not part of the comment.
            closing = _CLOSING_SEPARATOR.search(body)
            if closing:
                body = body[: closing.start() + 1]
        end_line = name_line + body.count("\n") - (1 if body.endswith("\n") else 0)
        if not author:
            doc.warnings.append(ParseWarning(name_line, "comment has an empty `Name:` line"))
            author = "(unknown)"
        if sep_pos > 0 and text[sep_pos - 1] == "\n":
            prev_start = text.rfind("\n", 0, sep_pos - 1) + 1
            if text[prev_start : sep_pos - 1].strip():
                doc.warnings.append(
                    ParseWarning(
                        sep_line,
                        "`---` directly under a text line renders as a heading on GitHub; "
                        "put a blank line before it",
                    )
                )
        doc.comments.append(
            CommentBlock(
                author=author,
                separator_line=sep_line,
                line=name_line,
                body=body,
                body_line=name_line + 1,
                end_line=max(end_line, name_line),
            )
        )
        segments.append((body_start, end, name_line + 1))

    _find_engine_markers(text, header_end, segments, doc)
    _warn_fence_examples(text, segments, doc)
    return doc


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
            m = _HEADER_LINE.match(raw)
            if not m:
                break
            content = m.group(1)
            if content.upper() == "DISCUSSION":
                doc.is_discussion = True
            else:
                f = _HEADER_FIELD.match(content)
                if f:
                    key = f.group(1).strip().lower()
                    value = f.group(2).strip()
                    if key in seen:
                        doc.warnings.append(
                            ParseWarning(
                                line,
                                f"header `{f.group(1).strip()}` repeats line {seen[key]}; "
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
    fences_by_segment: dict[int, list[tuple[int, int]]] = {}
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
            fences_by_segment[seg_index] = fenced_line_ranges(text[seg_start:seg_end])
        if _in_ranges(line - seg_line, fences_by_segment[seg_index]):
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
    if kind == "vote-reset":
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
        opener = open_fence_at_end(segment)
        if opener is None:
            continue
        # The fence is still open where the next boundary starts.
        ranges = fenced_line_ranges(segment)
        open_line = ranges[-1][0] + seg_line if ranges else seg_line
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

_NAME_LINE = re.compile(r"^([ \t]*)Name([ \t]*):", re.M)
_HTML_COMMENT_LINE = re.compile(r"^([ \t]*)<!--", re.M)
_SEPARATOR_LINE = re.compile(r"^---[ \t]*$", re.M)


def neutralise(text: str) -> str:
    """Make untrusted text (an AI's answer) unable to forge file structure.

    * ``Name:`` lines become ``Name\\:`` (renders the same, is never a boundary);
    * lines opening an HTML comment become ``&lt;!--`` (shown as written, never an engine marker
      or comment metadata);
    * a fenced code block left open is closed, so it cannot hide what is appended after it.
    """
    text = normalise_newlines(text)
    text = _NAME_LINE.sub(lambda m: f"{m.group(1)}Name{m.group(2)}\\:", text)
    text = _HTML_COMMENT_LINE.sub(lambda m: f"{m.group(1)}&lt;!--", text)
    opener = open_fence_at_end(text)
    if opener:
        text = text.rstrip("\n") + "\n" + opener[0] * len(opener) + "\n"
    return text


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
    last = len(lines) - 1
    while last >= 0 and not lines[last].strip():
        last -= 1
    trailing = len(lines) - 1 - last
    ends_sep = (
        last >= 0
        and _SEPARATOR_LINE.fullmatch(lines[last]) is not None
        and ((last == 0 and at_file_start) or (last > 0 and not lines[last - 1].strip()))
    )
    last_boundary = None
    for m in _BOUNDARY.finditer(text):
        last_boundary = m
    segment = text[last_boundary.end() :] if last_boundary else text
    return Tail(
        empty=not text and at_file_start,
        ends_with_newline=text.endswith("\n"),
        trailing_blank_lines=trailing,
        ends_with_separator=ends_sep,
        open_fence=open_fence_at_end(segment),
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
    """The engine markers for moving from `source` to `target`: a transition and a vote reset."""
    return f"<!-- PHASE-TRANSITION: {source} -> {target} -->\n<!-- VOTE-RESET: {target} -->\n"


def render_status_change(source: str, target: str) -> str:
    return f"<!-- STATUS-CHANGE: {source} -> {target} -->\n"


def render_header(fields: list[tuple[str, str]]) -> str:
    """A header block: ``<!-- DISCUSSION -->`` then one ``<!-- Key: Value -->`` per field."""
    lines = ["<!-- DISCUSSION -->"]
    for key, value in fields:
        value = value.replace("-->", "--&gt;").replace("\n", " ")
        lines.append(f"<!-- {key}: {value} -->")
    return "\n".join(lines) + "\n"
