"""The merge driver's start-up: git starts it once per merged file, so what it imports is what
every merge waits for. A clean merge of appended comments loads no `datetime`, nor the parse's
warning helpers; the times it orders comments by read as they did through `datetime`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from discussions.syntax.clock import parse_stamp, utc_stamp
from discussions.syntax.meta import written_at
from discussions.syntax.render import analyse_tail, join_blocks, render_comment, render_header

NOT_ON_THE_DRIVER_PATH = (
    "datetime",
    "discussions.syntax.clock",
    "discussions.syntax.headings",
    "discussions.syntax.controls",
    "dataclasses",
    "typing",
)


def _file(*names: str) -> str:
    text = render_header([("Title", "T"), ("Phase", "initial_feedback"), ("Status", "OPEN")])
    text += "\n# T\n"
    blocks = [
        render_comment(name, f"A thought from {name}.", meta=f"at: 2026-11-0{i + 1}T10:00:00Z")
        for i, name in enumerate(names)
    ]
    return text + join_blocks(analyse_tail(text, at_file_start=True), blocks)


def test_a_clean_merge_loads_no_datetime(tmp_path: Path) -> None:
    base = _file("Ann")
    (tmp_path / "base.md").write_text(base, encoding="utf-8")
    (tmp_path / "ours.md").write_text(_file("Ann", "Rob"), encoding="utf-8")
    (tmp_path / "theirs.md").write_text(_file("Ann", "Zoe", "Kim"), encoding="utf-8")
    probe = (
        "import sys\n"
        "from discussions.git.driver import driver_main\n"
        "status = driver_main(['base.md', 'ours.md', 'theirs.md'])\n"
        f"print(status, *[m for m in {NOT_ON_THE_DRIVER_PATH!r} if m in sys.modules])\n"
    )
    r = subprocess.run(
        [sys.executable, "-P", "-c", probe], capture_output=True, text=True, cwd=tmp_path
    )
    assert r.stdout.split() == ["0"], r.stdout + r.stderr
    merged = (tmp_path / "ours.md").read_text(encoding="utf-8")
    assert all(f"**{n}**" in merged or f"Name: {n}" in merged for n in ("Rob", "Zoe", "Kim"))


@pytest.mark.parametrize(
    "stamp",
    [
        "2026-11-23T20:10:00Z",
        "2028-02-29T00:00:00Z",
        "2027-02-29T00:00:00Z",  # no such day: no time
        "2026-04-31T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "0000-01-01T00:00:00Z",
        "2026-11-23T24:00:00Z",
        "2026-11-23T20:10:60Z",
        "2026-11-23T20:10:00+02:00",  # by hand: read through datetime
        "2026-11-23T20:10:00",
        "2026-11-23",
        "yesterday",
        "",
    ],
)
def test_a_comments_time_reads_as_datetime_reads_it(stamp: str) -> None:
    when = parse_stamp(stamp)
    expected = utc_stamp(when) if when else ""
    comment = render_comment("Ann", "Hello.", meta=f"at: {stamp}")
    assert written_at(comment.split("---\n", 1)[-1]) == expected
