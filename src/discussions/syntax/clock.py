"""Time stamps: the one place the clock is read, and UTC stamps written and read back."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_stamp(when: datetime) -> str:
    """`when` as the tool records times: UTC to the second, ``2026-11-23T20:10:00Z``. The text
    sorts as the times do (four-digit years), which the merge driver relies on. Written by
    ``isoformat`` (four-digit years too, its first 19 characters the date and the time to the
    second) rather than ``strftime``: half the time, for each of a long discussion's comments
    in ``status --json``."""
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return when.isoformat(timespec="seconds")[:19] + "Z"


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
    when = when.astimezone(UTC)
    return when.replace(microsecond=0) if when.microsecond else when  # as the tool writes
