"""The journal of appends is written by lines: an entry is added as one line and marked whole
in place, so an append does not rewrite the whole journal twice."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from discussions.model import journal, storage


@pytest.fixture
def disc(isolated: Path) -> Path:
    path = isolated / "d.md"
    path.write_text("<!-- DISCUSSION -->\n<!-- Title: T -->\n\n---\n", encoding="utf-8")
    return path


def lines() -> list[dict[str, object]]:
    return [json.loads(x) for x in journal._file().read_text(encoding="utf-8").splitlines()]


def test_an_append_adds_one_line_and_marks_it_done_in_place(disc: Path) -> None:
    storage.append(disc, ["Name: Robin\n\nfirst\n"])
    inode = os.stat(journal._file()).st_ino
    storage.append(disc, ["Name: Robin\n\nsecond\n"])
    assert os.stat(journal._file()).st_ino == inode  # not rewritten (a rewrite renames)
    assert [(e["what"], e["done"]) for e in lines()] == [
        ("a comment by Robin", True),
        ("a comment by Robin", True),
    ]
    assert storage.lost_appends(disc) == []  # both whole and in the file


def test_an_entry_begun_and_never_finished_is_reported(disc: Path) -> None:
    data = b"Name: Robin\n\ncut\n"
    journal.begin(disc.resolve(), data, "a comment by Robin", disc.stat().st_size)
    (entry,) = lines()
    assert entry["done"] is False
    (message,) = storage.lost_appends(disc)
    assert "was never written" in message


def test_a_line_cut_short_does_not_swallow_the_next(disc: Path) -> None:
    storage.append(disc, ["Name: Robin\n\nfirst\n"])
    with journal._file().open("a", encoding="utf-8") as f:
        f.write('{"path": "/x", "head": "cut sh')  # a journal write cut short
    storage.append(disc, ["Name: Robin\n\nsecond\n"])
    raw = journal._file().read_text(encoding="utf-8").splitlines()
    assert json.loads(raw[-1])["done"] is True and raw[-2].endswith("cut sh")
    assert len(journal._read()) == 2


def test_a_large_journal_is_rewritten_to_its_last_entries(
    disc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal, "KEEP", 3)
    monkeypatch.setattr(journal, "_PRUNE_BYTES", 2000)
    for i in range(8):
        storage.append(disc, [f"Name: Robin\n\ncomment {i}\n"])
    assert 3 <= len(lines()) < 8
    assert os.path.getsize(journal._file()) <= 2000 + 1000
    assert storage.lost_appends(disc) == []
