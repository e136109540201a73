"""A comment's metadata line: what the tool recorded (provider, usage, digest, time)."""

from __future__ import annotations

import re

from .document import ENGINE_LINE, NAME_LINE, header_comment
from .lazyre import Lazy
from .text import normalise_newlines


def comment_meta(body: str) -> str | None:
    """What the tool recorded about a comment: the inside of its metadata line, else None.

    The metadata line is an HTML comment on a line of its own among the comment's first
    `META_LINES` lines, indented at most three spaces, whose inside starts with ``provider:``
    (an AI's answer: ``provider: x | duration: 1s | ... | at: T``) or ``at:`` (a person's
    comment written by the tool: ``at: T``). `neutralise` leaves no such line in untrusted
    text (outside code it starts with ``&lt;``, inside code it is indented four spaces), and
    the tool writes its own line first, so the first one found is always the tool's."""
    if "<!--" not in body:
        return None
    found = _meta_line(body.split("\n", META_LINES)[:META_LINES])
    return None if found is None else found[1]


def comment_meta_line(lines: list[str]) -> int | None:
    """The index of the metadata line (see `comment_meta`) in a comment's `lines`, else None."""
    found = _meta_line(lines)
    return None if found is None else found[0]


def _meta_line(lines: list[str]) -> tuple[int, str] | None:
    """The index and the inside of the metadata line in `lines`, else None (a line with no
    ``<!--`` is passed over without a closer look: most lines of a comment)."""
    for i, line in enumerate(lines[:META_LINES]):
        if "<!--" in line:
            inner = _meta_inner(line)
            if inner is not None:
                return i, inner
    return None


def meta_fields(inner: str) -> dict[str, str]:
    """``provider: x | at: T`` -> {"provider": "x", "at": "T"} (keys as written)."""
    fields: dict[str, str] = {}
    for part in inner.split(" | "):
        key, _, value = part.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def engine_fields(args: str) -> dict[str, str]:
    """The value and ``key: value`` fields of an engine block's arguments (keys lower-cased):
    ``passed | yes: 2 | line: 12`` -> {"": "passed", "yes": "2", "line": "12"}."""
    value, _, rest = args.partition("|")
    fields = {"": value.strip()}
    for part in rest.split("|"):
        key, sep, val = part.partition(":")
        if sep:
            fields[key.strip().lower()] = val.strip()
    return fields


def _meta_inner(line: str) -> str | None:
    line = line.rstrip("\r")
    rest = line.lstrip(" ")
    if len(line) - len(rest) > 3 or not rest.startswith("<!--"):
        return None
    inner = header_comment(rest)
    return inner if inner is not None and _META_KEY.match(inner) else None


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
    if NAME_LINE.match(lines[0]):
        i = comment_meta_line(lines[1:])
        inner = None if i is None else _meta_inner(lines[1 + i])
    else:
        m = ENGINE_LINE.match(lines[0])
        if m is not None:
            inner = m.group(2).partition("|")[2]
    if not inner:
        return ""
    return _recorded_stamp(meta_fields(inner).get("at", ""))


def _recorded_stamp(text: str) -> str:
    """`text` as `utc_stamp` writes it, ``""`` when it is no time. The stamps the tool writes
    are already in that form: they are checked here without `datetime`, which the merge driver
    (that reads every appended comment's) would otherwise import at each start; others are
    read by `clock.parse_stamp`."""
    text = text.strip()
    if _STAMP.fullmatch(text):
        year, month, day = int(text[:4]), int(text[5:7]), int(text[8:10])
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
        if year and 1 <= month <= 12 and 1 <= day <= days[month - 1]:
            return text
    from .clock import parse_stamp, utc_stamp  # datetime: only for stamps written by hand

    when = parse_stamp(text)
    return utc_stamp(when) if when else ""


META_LINES = 8
"""How far down a comment its metadata line may stand (the tool writes it right under
``Name:``; a few lines leave room for blank lines added by hand)."""


_META_KEY = Lazy(r"(?:provider|at)[ \t]*:")
_STAMP = Lazy(r"\d{4}-\d\d-\d\dT(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\dZ", re.ASCII)
