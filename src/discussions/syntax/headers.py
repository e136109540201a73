"""Comment headers typed with formatting: after a ``---`` separator, a line such as
``**Name:** Rob``, ``## Name: Rob`` or ``name: Rob`` looks like a comment's start to the person
who typed it, yet only ``Name:`` at column 0 starts one (`parse`): the text silently stays part
of the comment above, under that comment's author. `check` and the editor say so, with the
line to write instead. Lines inside fenced code (a YAML document's ``---`` then ``name:``) are
code, not a mistake.

One look per separator line (no regex over the whole text); the fences are found only when
there is a candidate, which is rare.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .code import fenced_line_ranges, in_ranges
from .document import ParseWarning

# What a person may put around ``Name`` before the colon: emphasis, a heading, a quote,
# spaces; and after it, the emphasis closed. Matched against the line lowercased.
_MISFORMATTED = re.compile(r"[ \t>#*_]{0,8}name[ \t*_]{0,4}:[ \t*_]*(.*)")


def misformatted_headers(text: str) -> list[ParseWarning]:
    """A warning for each line after a ``---`` separator (and blank lines) that reads as a
    ``Name:`` header with formatting or the wrong case, and so starts no comment."""
    found = [w for at in _after_separators(text) if (w := _misformatted(text, at))]
    if not found:
        return found
    fenced = fenced_line_ranges(text)
    starts = [a for a, _ in fenced]
    return [w for w in found if not in_ranges(w.line - 1, fenced, starts)]


def _after_separators(text: str) -> Iterator[int]:
    """Where the first non-blank line after each ``---`` line (a separator) starts."""
    at: int | None = 0 if text.startswith("---") else _next_rule(text, 0)
    while at is not None:
        end = text.find("\n", at)
        if end == -1:
            return
        if not text[at + 3 : end].strip(" \t-"):
            yield _skip_blank_lines(text, end + 1)
        at = _next_rule(text, end)


def _next_rule(text: str, at: int) -> int | None:
    """Where the next line starting with ``---`` after `at` starts (None: no more)."""
    found = text.find("\n---", at)
    return None if found == -1 else found + 1


def _skip_blank_lines(text: str, at: int) -> int:
    while (end := text.find("\n", at)) != -1 and not text[at:end].strip(" \t"):
        at = end + 1
    return at


def _misformatted(text: str, at: int) -> ParseWarning | None:
    """The warning for the line at `at`, when it is a misformatted ``Name:`` header."""
    end = text.find("\n", at)
    line = text[at:] if end == -1 else text[at:end]
    if line.startswith("Name:"):
        return None
    match = _MISFORMATTED.fullmatch(line.lower())
    if match is None:
        return None
    fix = f"Name: {line[match.start(1) :].strip()}".strip()
    return ParseWarning(
        text.count("\n", 0, at) + 1,
        f"`{line.strip()}` starts no comment, so this text is part of the comment above: a "
        f"comment starts with `Name:` at the start of the line, unformatted (`{fix}`)",
        code="header-formatting",
        subject=line,
        fix=fix,
    )
