"""Settling the phase rules after a turn: a lock only when the rules call for a change."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions import Discussion
from discussions.cli import cli
from discussions.engine.turn import phases
from discussions.model import storage


def locked_appends(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = storage.locked_append

    def counted(path: Path, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(storage, "locked_append", counted)
    return calls


def test_nothing_to_settle_takes_no_lock(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert CliRunner().invoke(cli, ["new", "Auth"]).exit_code == 0
    d = Discussion.load(isolated / "discussions" / "auth.md")
    calls = locked_appends(monkeypatch)
    assert phases.settle(d) == []
    assert calls == []


def test_a_change_is_decided_under_the_lock_against_the_file_as_it_is_then(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Everyone has spoken: the phase moves on, once, even when the file moved on between
    the unlocked look and the lock (here: another process made the same change)."""
    assert CliRunner().invoke(cli, ["new", "Auth"]).exit_code == 0
    path = isolated / "discussions" / "auth.md"
    for alias in ("architect", "security", "pragmatist"):
        r = CliRunner().invoke(cli, ["turn", "auth.md", f"@{alias}", "--provider", "mock"])
        assert r.exit_code == 0, r.output
    before = Discussion.load(path)
    assert phases.auto_advance(before) is None  # the turns settled it already
    text = path.read_text()
    start = text.rindex("<!-- PHASE-TRANSITION")
    path.write_text(text[:start].rstrip("\n") + "\n", encoding="utf-8")  # undo the move
    d = Discussion.load(path)
    change = phases.auto_advance(d)
    assert change is not None and change.kind == "phase"
    real_transact = Discussion.transact

    def racing(self: Discussion, step):  # type: ignore[no-untyped-def]
        other = Discussion.load(path)  # another process applies the same change first
        phases.apply(other, change)
        other.save()
        return real_transact(self, step)

    monkeypatch.setattr(Discussion, "transact", racing)
    calls = locked_appends(monkeypatch)
    assert phases.settle(d) == []  # decided under the lock: made meanwhile, not twice
    assert len(calls) >= 1
    assert path.read_text().count("<!-- PHASE-TRANSITION") == 1
