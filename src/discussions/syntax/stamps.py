"""When a comment says it was written: its metadata line and the time in it, read with string
methods only.

The merge driver orders appended comments by that time, and git starts it once per merged
file: its fast path (`git.plain`) must not import `re` (a third of a bare Python's start-up).
So the rules live here, without regular expressions, and `meta` (the parser's side) reads the
metadata line through them too: one reading for both.
"""

from __future__ import annotations

META_LINES = 8
"""How far down a comment its metadata line may stand (the tool writes it right under
``Name:``; a few lines leave room for blank lines added by hand)."""

_DIGITS = frozenset("0123456789")


def normalise_newlines(text: str) -> str:
    """CRLF and lone CR become LF; line numbers stay the same."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def header_comment(line: str) -> str | None:
    """The inside of a line that is one HTML comment (``<!-- x -->`` -> ``x``), else None."""
    s = line.strip(" \t")
    if len(s) < 7 or not s.startswith("<!--") or not s.endswith("-->"):
        return None
    return s[4:-3].strip(" \t")


def meta_fields(inner: str) -> dict[str, str]:
    """``provider: x | at: T`` -> {"provider": "x", "at": "T"} (keys as written)."""
    fields: dict[str, str] = {}
    for part in inner.split(" | "):
        key, _, value = part.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def meta_line(lines: list[str]) -> tuple[int, str] | None:
    """The index and the inside of the metadata line in `lines`, else None (a line with no
    ``<!--`` is passed over without a closer look: most lines of a comment)."""
    for i, line in enumerate(lines[:META_LINES]):
        if "<!--" in line:
            inner = meta_inner(line)
            if inner is not None:
                return i, inner
    return None


def meta_inner(line: str) -> str | None:
    """The inside of `line` when it is a metadata line: one HTML comment, indented at most
    three spaces, whose inside starts with ``provider:`` or ``at:``."""
    line = line.rstrip("\r")
    rest = line.lstrip(" ")
    if len(line) - len(rest) > 3 or not rest.startswith("<!--"):
        return None
    inner = header_comment(rest)
    return inner if inner is not None and _is_meta_key(inner) else None


def _is_meta_key(inner: str) -> bool:
    """Whether `inner` starts with ``provider`` or ``at``, optional blanks, then ``:``."""
    for key in ("provider", "at"):
        if inner.startswith(key) and inner[len(key) :].lstrip(" \t").startswith(":"):
            return True
    return False


def unit_lines(unit: str) -> list[str]:
    """The first lines of a unit the merge driver cut (`written_at`), blank lines before its
    first line dropped, newlines as LF."""
    head = normalise_newlines("\n".join(unit.split("\n", META_LINES + 8)[: META_LINES + 7]))
    return head.lstrip(" \t\n").split("\n")


def comment_stamp(lines: list[str]) -> str | None:
    """When the comment whose lines (`unit_lines`) are `lines` says it was written, as
    `clock.utc_stamp` writes it (``""`` when it does not say); None when `lines` is no
    comment (its first line is not a ``Name:`` line)."""
    if not lines[0].startswith("Name:"):
        return None
    found = meta_line(lines[1:])
    if found is None:
        return ""
    return recorded_stamp(meta_fields(found[1]).get("at", ""))


def recorded_stamp(text: str) -> str:
    """`text` as `clock.utc_stamp` writes it, ``""`` when it is no time. The stamps the tool
    writes are already in that form: they are checked here without `datetime`, which the merge
    driver (that reads every appended comment's) would otherwise import at each start; others
    are read by `clock.parse_stamp`."""
    text = text.strip()
    if _is_utc_stamp(text):
        year, month, day = int(text[:4]), int(text[5:7]), int(text[8:10])
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
        if year and 1 <= month <= 12 and 1 <= day <= days[month - 1]:
            return text
    from .clock import parse_stamp, utc_stamp  # datetime: only for stamps written by hand

    when = parse_stamp(text)
    return utc_stamp(when) if when else ""


def _is_utc_stamp(text: str) -> bool:
    """Whether `text` has the shape ``YYYY-MM-DDTHH:MM:SSZ`` (ASCII digits, hours 00-23,
    minutes and seconds 00-59); the calendar is checked by the caller."""
    if len(text) != 20 or text[4] + text[7] + text[10] + text[13] + text[16] + text[19] != "--T::Z":
        return False
    numbers = text[:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16] + text[17:19]
    hours_minutes_seconds = text[11:13] <= "23" and text[14] <= "5" and text[17] <= "5"
    return _DIGITS.issuperset(numbers) and hours_minutes_seconds
