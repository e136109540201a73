"""File I/O for discussion files: read, create, and append under an exclusive lock.

The append-only guarantee lives here. An append:

1. opens the file by path and takes an exclusive ``flock`` on it; if the path now names another
   file (an editor saved by renaming a new file into place), it reopens and locks again, so the
   editor's version is what gets appended to;
2. reads only the tail of the file (enough to hold the last comment boundary) to decide how the
   new text joins on: a closing fence, a blank line, a separator;
3. writes the new bytes at the end in one ``write`` loop, and ``fsync``s;
4. if any write fails, truncates the file back to its old length, so the old bytes are exactly
   what they were and nothing half-written remains.

Bytes already in the file are never rewritten. Cost does not depend on the file's size.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Sequence
from pathlib import Path

from .errors import DiscussionExists, DiscussionNotFound, DiscussionsError
from .format import analyse_tail, join_blocks

_TAIL_CHUNK = 64 * 1024


def not_found(path: Path) -> DiscussionNotFound:
    """The error for a discussion path that is missing or is a folder."""
    if path.is_dir():
        return DiscussionNotFound(f"{path} is a folder, not a discussion file")
    return DiscussionNotFound(f"no such discussion file: {path}")


def check_exists(path: Path) -> None:
    if not path.is_file():
        raise not_found(path)


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        raise not_found(path) from None
    except OSError as exc:
        raise DiscussionsError(f"cannot read {path}: {exc.strerror}") from None


def create(path: Path, text: str) -> None:
    """Write a new file; never overwrites. Parent folders are created."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        raise DiscussionExists(
            f"{path} already exists; choose another title or --dir, or comment on it"
        ) from None
    try:
        _write_all(fd, text.encode("utf-8"))
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(path)
        raise
    os.close(fd)


def _open_locked(path: Path) -> int:
    """Open `path` for appending with an exclusive lock on the file the path names now."""
    for _ in range(100):
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        except (FileNotFoundError, IsADirectoryError):
            raise not_found(path) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            now = os.stat(path)
        except FileNotFoundError:
            os.close(fd)
            continue  # replaced and not yet renamed into place: try again
        except BaseException:
            os.close(fd)
            raise
        if (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino):
            return fd
        os.close(fd)  # the path names a new file now; lock that one instead
    raise DiscussionsError(f"{path} keeps being replaced; try again")


def _read_tail(fd: int, size: int) -> tuple[str, bool]:
    """The end of the file, from a line start, holding the last comment boundary if any.
    Returns (text, whether it starts at the beginning of the file)."""
    chunk = _TAIL_CHUNK
    while True:
        start = max(0, size - chunk)
        data = os.pread(fd, size - start, start)
        if start > 0:
            nl = data.find(b"\n")
            data = data[nl + 1 :] if nl >= 0 else b""
        text = data.decode("utf-8", errors="replace")
        if start == 0:
            return text.removeprefix("\ufeff"), True
        if "\nName:" in text.replace("\r\n", "\n") or chunk >= size:
            return text, False
        chunk *= 4


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def append(path: Path, blocks: Sequence[str]) -> None:
    """Append `blocks` (comment blocks / engine markers, see `format.join_for_append`)."""
    if not blocks:
        return
    fd = _open_locked(path)
    try:
        size = os.fstat(fd).st_size
        text, whole = _read_tail(fd, size)
        data = join_blocks(analyse_tail(text, at_file_start=whole), list(blocks)).encode("utf-8")
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError as exc:
            os.ftruncate(fd, size)  # leave the file exactly as it was
            reason = "disk full" if exc.errno == errno.ENOSPC else exc.strerror
            raise DiscussionsError(
                f"could not append to {path}: {reason}; file unchanged"
            ) from None
    finally:
        os.close(fd)  # closing releases the lock
