"""Time stamps as the tool records them (`syntax.clock.utc_stamp`): UTC, to the second, a
four-digit year, whatever zone or precision the time came with; read back as written."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from discussions.syntax.clock import parse_stamp, utc_stamp

INDIA = timezone(timedelta(hours=5, minutes=30))


@pytest.mark.parametrize(
    ("when", "stamp"),
    [
        (datetime(2026, 11, 23, 20, 10, 0, tzinfo=UTC), "2026-11-23T20:10:00Z"),
        (datetime(2026, 1, 2, 3, 4, 5, 999_999, tzinfo=UTC), "2026-01-02T03:04:05Z"),
        (datetime(2026, 1, 1, 1, 0, 0, tzinfo=INDIA), "2025-12-31T19:30:00Z"),
        (
            datetime(2026, 3, 4, 22, 0, 7, 12, tzinfo=timezone(timedelta(hours=-3))),
            "2026-03-05T01:00:07Z",
        ),
        (datetime(2026, 7, 8, 9, 10, 11), "2026-07-08T09:10:11Z"),  # naive: taken as UTC
        (datetime(999, 12, 31, 23, 59, 59, tzinfo=UTC), "0999-12-31T23:59:59Z"),
    ],
)
def test_utc_stamp(when: datetime, stamp: str) -> None:
    assert utc_stamp(when) == stamp
    assert parse_stamp(stamp) == (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(
        UTC
    ).replace(microsecond=0)
