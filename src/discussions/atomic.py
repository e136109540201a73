"""The one atomic file write: a temporary file in the target's folder, synced, renamed over it.

`replace_file` is what every derived or rewritten file goes through (summaries, the chronicle,
ADRs, exports, persona files, the trust list, the append journal): a reader sees the old file
or the new one, never a part; a failure (read-only file system, full disk, a signal) leaves the
old file as it was and no temporary file behind. Discussion files themselves are only ever
appended to (`model.storage`), never replaced.

This module sits below every layer beside `errors`, and imports nothing else of the package.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from .errors import DiscussionsError

_TRIES = 100


def os_reason(exc: OSError) -> str:
    """A short reason for `exc` in the words a person at the terminal expects."""
    if exc.errno == errno.ENOSPC:
        return "disk full"
    if exc.errno == errno.EROFS:
        return "read-only file system"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return exc.strerror or str(exc)


def replace_file(
    target: Path,
    data: str | bytes,
    *,
    mode: int | None = None,
    new_mode: int | None = None,
    what: str = "",
    durable: bool = True,
) -> None:
    """Replace `target` with `data` (text is written as UTF-8, newlines as given) atomically.

    The file's permissions: `mode` if given; else those of the file it replaces; else, for a
    new file, `new_mode`, or ``0o666`` less the umask as `open` would. `what` names the file in
    errors ("the summary"). With `durable` (the default) the data and then the folder are
    synced before this returns; without it the rename is still atomic, but a power cut may lose
    the new version. A folder at `target` is refused; any failure raises `DiscussionsError`
    saying whether the previous version is unchanged or nothing was written."""
    shown = f"{what} {target}" if what else str(target)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        final = _final_mode(target, mode, new_mode, shown)
        _write_and_rename(target, payload, final, durable)
    except OSError as exc:
        kept = "the previous version is unchanged" if target.exists() else "nothing was written"
        raise DiscussionsError(f"cannot write {shown}: {os_reason(exc)}; {kept}") from None


def _final_mode(target: Path, mode: int | None, new_mode: int | None, shown: str) -> int | None:
    """The permissions the new file gets; None: those `open` gives a new file."""
    try:
        st = target.stat()
    except FileNotFoundError:
        return mode if mode is not None else new_mode
    if stat.S_ISDIR(st.st_mode):
        raise DiscussionsError(f"cannot write {shown}: it is a folder")
    return mode if mode is not None else stat.S_IMODE(st.st_mode)


def _write_and_rename(target: Path, payload: bytes, mode: int | None, durable: bool) -> None:
    """Write `payload` to a new temporary file beside `target` and rename it over `target`;
    the temporary file is removed if anything fails (a signal included)."""
    fd, tmp = _temporary(target, 0o600 if mode is not None else 0o666)
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        _sync_folder(target.parent)


def _temporary(target: Path, perms: int) -> tuple[int, str]:
    """Create and open a new, uniquely named hidden file in `target`'s folder."""
    for _ in range(_TRIES):
        tmp = os.path.join(target.parent, f".{target.name}.{os.urandom(4).hex()}.tmp")
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
            return os.open(tmp, flags, perms), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"no free temporary name beside {target}")


def _sync_folder(folder: Path) -> None:
    """Sync `folder` so the rename itself survives a power cut, where the system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a folder; the rename is done all the same
    finally:
        os.close(fd)
