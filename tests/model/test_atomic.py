"""The one atomic file write (`atomic.replace_file`): all or nothing, the mode kept, no
temporary file left behind, a folder refused."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from discussions import atomic
from discussions.errors import DiscussionsError


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """An empty folder of its own (the test run's fixtures also use `tmp_path`)."""
    made = tmp_path / "here"
    made.mkdir()
    return made


def _full(*args: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_replaces_the_file_and_leaves_nothing_beside_it(folder: Path) -> None:
    target = folder / "notes.md"
    target.write_text("old\n", encoding="utf-8")
    atomic.replace_file(target, "new\r\nline é\n")
    assert target.read_bytes() == "new\r\nline é\n".encode()
    atomic.replace_file(target, b"\x00bytes")
    assert target.read_bytes() == b"\x00bytes"
    assert os.listdir(folder) == ["notes.md"]


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_a_failure_mid_write_leaves_the_old_file_and_no_temporary(
    folder: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    target = folder / "notes.md"
    target.write_text("old\n", encoding="utf-8")
    monkeypatch.setattr(os, where, _full)
    with pytest.raises(DiscussionsError) as err:
        atomic.replace_file(target, "new\n" * 1000, what="the notes")
    monkeypatch.undo()
    assert str(err.value) == (
        f"cannot write the notes {target}: disk full; the previous version is unchanged"
    )
    assert target.read_text(encoding="utf-8") == "old\n"
    assert os.listdir(folder) == ["notes.md"]


def test_a_failed_new_file_says_nothing_was_written(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "write", _full)
    with pytest.raises(DiscussionsError, match="disk full; nothing was written$"):
        atomic.replace_file(folder / "new.md", "text")
    monkeypatch.undo()
    assert os.listdir(folder) == []


def test_a_signal_mid_write_leaves_the_old_file_and_no_temporary(folder: Path) -> None:
    """A process interrupted (Ctrl-C) while it writes: the temporary file is removed."""
    target = folder / "notes.md"
    target.write_text("old\n", encoding="utf-8")
    script = textwrap.dedent(
        f"""
        import os, signal
        from pathlib import Path
        from discussions import atomic
        real = os.write
        def write(fd, data):
            os.kill(os.getpid(), signal.SIGINT)
            return real(fd, data)
        os.write = write
        atomic.replace_file(Path({str(target)!r}), "new\\n")
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode != 0 and "KeyboardInterrupt" in out.stderr
    assert target.read_text(encoding="utf-8") == "old\n"
    assert os.listdir(folder) == ["notes.md"]


def test_the_mode_of_the_replaced_file_is_kept(folder: Path) -> None:
    target = folder / "notes.md"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    atomic.replace_file(target, "new\n")
    assert target.stat().st_mode & 0o777 == 0o640
    atomic.replace_file(target, "newer\n", mode=0o604)
    assert target.stat().st_mode & 0o777 == 0o604


def test_a_new_file_gets_new_mode_or_what_open_gives(folder: Path) -> None:
    atomic.replace_file(folder / "a", "x", new_mode=0o640)
    assert (folder / "a").stat().st_mode & 0o777 == 0o640
    old = os.umask(0o027)
    try:
        atomic.replace_file(folder / "b", "x")
        (folder / "c").write_text("x")
    finally:
        os.umask(old)
    assert (folder / "b").stat().st_mode & 0o777 == (folder / "c").stat().st_mode & 0o777
    assert (folder / "b").stat().st_mode & 0o777 == 0o640


def test_a_folder_target_is_refused(folder: Path) -> None:
    target = folder / "notes.md"
    target.mkdir()
    (target / "inside").write_text("kept")
    with pytest.raises(DiscussionsError) as err:
        atomic.replace_file(target, "new\n")
    assert str(err.value) == f"cannot write {target}: it is a folder"
    assert target.is_dir() and (target / "inside").read_text() == "kept"
    assert sorted(os.listdir(folder)) == ["notes.md"]


def test_a_missing_folder_is_an_error_not_a_traceback(folder: Path) -> None:
    with pytest.raises(DiscussionsError, match="nothing was written$"):
        atomic.replace_file(folder / "nowhere" / "notes.md", "x")


def test_the_folder_is_synced_after_the_rename(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[bool] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.path.isdir(f"/proc/self/fd/{fd}") if os.path.isdir("/proc") else True)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    atomic.replace_file(folder / "notes.md", "x")
    assert len(synced) == 2 and synced[-1] is True
    synced.clear()
    atomic.replace_file(folder / "notes.md", "y", durable=False)
    assert synced == []
