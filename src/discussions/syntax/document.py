"""The parsed file: header fields, comment blocks, engine markers, warnings, with lines."""

from __future__ import annotations

import re

from .kinds import ENGINE_KINDS, alternation
from .record import Record
from .stamps import header_comment as header_comment

# A separator, then blank lines, then the Name: line. Column 0 only (see module docstring).
BOUNDARY = re.compile(r"^---[ \t]*\n(?:[ \t]*\n)*Name:[ \t]*([^\n]*)$", re.M)


# An engine block's line: group 1 is its name (one of `kinds.ENGINE_KINDS`), group 2 the rest.
ENGINE_LINE = re.compile(
    r"^[ ]{0,3}<!--[ \t]*(" + alternation([k.name for k in ENGINE_KINDS]) + ")"
    r"[ \t]*:([^\n]*?)-->[ \t]*$",
    re.M,
)


# A ``Name:`` line at column 0: with no ``---`` before it, it still starts a comment where the
# markdown shows it as text (not in code, not in an HTML block that hides it).
NAME_LINE = re.compile(r"^Name:[ \t]*([^\n]*)$", re.M)


class ParseWarning(Record):
    """A problem found in a file. Never fatal."""

    __slots__ = ("line", "message", "severity", "code", "subject", "fix")
    line: int
    """1-based line number the problem is on (0 when it concerns the whole file)."""
    message: str
    """One line, saying what is wrong and, where possible, how to fix it."""
    severity: str
    """``error`` when it breaks the state read back (a comment or a state change lost or
    misread), ``warning`` when it is probably a mistake (not counted), ``hint`` for style."""
    code: str
    """A stable name for the kinds a tool can fix (``mention-typo``, ``missing-separator``,
    ``merge-conflict``); empty for the rest."""
    subject: str
    """The text on the line the problem is about, when it is only part of the line."""
    fix: str
    """What to write in place of `subject` to fix it, when that is known."""

    def __init__(
        self,
        line: int,
        message: str,
        severity: str = "warning",
        code: str = "",
        subject: str = "",
        fix: str = "",
    ) -> None:
        self.line = line
        self.message = message
        self.severity = severity
        self.code = code
        self.subject = subject
        self.fix = fix

    def moved(self, lines: int) -> ParseWarning:
        """The same warning `lines` further down."""
        return ParseWarning(
            self.line + lines, self.message, self.severity, self.code, self.subject, self.fix
        )


class HeaderField(Record):
    """One ``<!-- Key: Value -->`` line of the header block."""

    __slots__ = ("key", "value", "line")
    key: str
    """Key as written, lower-cased (``title``, ``phase``, ...)."""
    value: str
    """Value with surrounding whitespace removed."""
    line: int
    """1-based line number."""

    def __init__(self, key: str, value: str, line: int) -> None:
        self.key = key
        self.value = value
        self.line = line


class CommentBlock(Record):
    """One comment: from its ``---`` separator to the next boundary."""

    __slots__ = ("author", "separator_line", "line", "body", "body_line", "end_line")
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

    def __init__(
        self, author: str, separator_line: int, line: int, body: str, body_line: int, end_line: int
    ) -> None:
        self.author = author
        self.separator_line = separator_line
        self.line = line
        self.body = body
        self.body_line = body_line
        self.end_line = end_line


class EngineMarker(Record):
    """A state change the engine (or a person, by hand) wrote as an HTML comment."""

    __slots__ = ("kind", "line", "source", "target")
    kind: str
    """The kind's name in lower case (``phase-transition``, ``round``: `kinds.ENGINE_KINDS`)."""
    line: int
    """1-based line number."""
    source: str | None
    """Phase or status changed from (None for a vote reset, or when not written)."""
    target: str
    """Phase or status changed to; for a vote reset, the phase whose votes restart; for a
    round, a stop or an escalation, everything after the colon."""

    def __init__(self, kind: str, line: int, source: str | None, target: str) -> None:
        self.kind = kind
        self.line = line
        self.source = source
        self.target = target


class Document(Record):
    """The syntax tree of a discussion file."""

    __slots__ = (
        "header",
        "header_fields",
        "is_discussion",
        "preamble",
        "preamble_line",
        "comments",
        "engine_markers",
        "warnings",
        "newline",
        "line_count",
    )
    header: dict[str, str]
    """Header values by lower-cased key; the last of duplicate keys wins."""
    header_fields: list[HeaderField]
    """Header lines in file order."""
    is_discussion: bool
    """Whether the file starts with ``<!-- DISCUSSION -->``."""
    preamble: str
    """Text between the header block and the first comment."""
    preamble_line: int
    """Line number of the first preamble line."""
    comments: list[CommentBlock]
    """Comments in file order."""
    engine_markers: list[EngineMarker]
    """Engine markers in file order."""
    warnings: list[ParseWarning]
    """Problems found while parsing."""
    newline: str
    """The file's line ending, used for what is appended to it."""
    line_count: int
    """Number of lines in the file."""

    def __init__(
        self,
        header: dict[str, str] | None = None,
        header_fields: list[HeaderField] | None = None,
        is_discussion: bool = False,
        preamble: str = "",
        preamble_line: int = 1,
        comments: list[CommentBlock] | None = None,
        engine_markers: list[EngineMarker] | None = None,
        warnings: list[ParseWarning] | None = None,
        newline: str = "\n",
        line_count: int = 0,
    ) -> None:
        self.header = {} if header is None else header
        self.header_fields = [] if header_fields is None else header_fields
        self.is_discussion = is_discussion
        self.preamble = preamble
        self.preamble_line = preamble_line
        self.comments = [] if comments is None else comments
        self.engine_markers = [] if engine_markers is None else engine_markers
        self.warnings = [] if warnings is None else warnings
        self.newline = newline
        self.line_count = line_count
