"""A buffer an editor holds, read as a discussion: its state and the problems `check` reports,
derived once per version of the text; positions in it as the protocol counts them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..derive.rules import derive_parsed
from ..derive.state import State
from ..errors import DiscussionsError
from ..model import storage
from ..model.discussion import Discussion
from ..ops.check import (
    Problem,
    citation_problems,
    council_problems,
    drift_problems,
    problems_in,
)
from ..settings.workspace import Workspace, display_path
from ..syntax.document import Document
from ..syntax.parse import is_discussion_text, parse_document
from ..syntax.reparse import reparse


@dataclass(slots=True)
class Buffer:
    """One version of an open document."""

    path: Path
    text: str
    discussion: Discussion
    """The discussion as the buffer shows it (nothing read from or written to disk)."""
    document: Document
    """The parse of `text`, kept for the next version's (`syntax.reparse`)."""
    is_discussion: bool
    """Whether the text is a discussion at all (`check`'s rule); other files get no help."""
    problems: list[Problem] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    state: State | None = None
    """What `derive` made of `text`: the next version's derivation resumes from it (the
    comments above the edit are not read again, `derive.readings`)."""

    def line(self, number: int) -> str:
        """The text of 1-based line `number` without its line ending ("" past the end)."""
        return self.lines[number - 1].rstrip("\r") if 0 < number <= len(self.lines) else ""


def analyse(ws: Workspace, path: Path, text: str, before: Buffer | None = None) -> Buffer:
    """The buffer `text` of the file `path`, checked as `discussions check` checks the file.
    `before`: the analysis of the version the editor changed into `text`, whose parse is
    kept above the comment the change starts in (`syntax.reparse`), and its derivation's
    readings of the comments above it (`derive.readings`): the result is the same, but an
    edit in the last comment of a long file parses and reads that comment alone."""
    if before is not None and before.path == path:
        parsed = reparse(before.document, before.text, text)
        state = derive_parsed(parsed, text, ws, path.stem, resume=before.state)
    else:
        parsed = parse_document(text)
        state = derive_parsed(parsed, text, ws, path.stem)
    d = Discussion(path, ws).seen_as(text, state)
    b = Buffer(path, text, d, parsed, is_discussion_text(text), lines=text.split("\n"))
    b.state = state
    if b.is_discussion:
        shown = display_path(path)
        b.problems = (
            problems_in(d, shown)
            + citation_problems(d, shown)
            + council_problems(d, shown)
            + drift_problems(d, shown)
        )
    return b


def is_dirty(path: Path, text: str) -> bool:
    """Whether the editor's `text` differs from the file saved at `path` (a missing or
    unreadable file counts as different, and so does anything but a regular file: a FIFO is
    never read)."""
    try:
        saved = storage.read_bytes(path).decode("utf-8", errors="replace")
    except DiscussionsError:
        return True
    return saved.removeprefix("\ufeff") != text.removeprefix("\ufeff")
