"""The parsed file: header fields, comment blocks, engine markers, warnings, with lines."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass


# A separator, then blank lines, then the Name: line. Column 0 only (see module docstring).
BOUNDARY = re.compile(r"^---[ \t]*\n(?:[ \t]*\n)*Name:[ \t]*([^\n]*)$", re.M)


ENGINE_LINE = re.compile(
    r"^[ ]{0,3}<!--[ \t]*(PHASE-TRANSITION|VOTE-RESET|STATUS-CHANGE|ROUND|RUN-STOP|ESCALATION"
    r"|FALLBACK|PASS|MOTION-RESULT)"
    r"[ \t]*:([^\n]*?)-->[ \t]*$",
    re.M,
)


# A ``Name:`` line at column 0: with no ``---`` before it, it still starts a comment where the
# markdown shows it as text (not in code, not in an HTML block that hides it).
NAME_LINE = re.compile(r"^Name:[ \t]*([^\n]*)$", re.M)


@dataclass(slots=True)
class ParseWarning:
    """A problem found in a file. Never fatal."""

    line: int
    """1-based line number the problem is on (0 when it concerns the whole file)."""
    message: str
    """One line, saying what is wrong and, where possible, how to fix it."""
    severity: str = "warning"
    """``error`` when it breaks the state read back (a comment or a state change lost or
    misread), ``warning`` when it is probably a mistake (not counted), ``hint`` for style."""
    code: str = ""
    """A stable name for the kinds a tool can fix (``mention-typo``, ``missing-separator``,
    ``merge-conflict``); empty for the rest."""
    subject: str = ""
    """The text on the line the problem is about, when it is only part of the line."""
    fix: str = ""
    """What to write in place of `subject` to fix it, when that is known."""


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
