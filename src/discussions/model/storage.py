"""File I/O for discussion files: read, create, and append under an exclusive lock.

The append-only guarantee lives here. An append:

1. resolves the path and refuses to write through a symbolic link that leads out of the project;
2. opens the file and takes an exclusive ``flock`` on it; if the path now names another file
   (an editor saved by renaming a new file into place), it reopens and locks again, so the
   editor's version is what gets appended to;
3. refuses, with the file untouched, anything that is not a discussion (no ``<!-- DISCUSSION
   -->`` header and no comment structure: a README, a script, a binary) and a file with
   unresolved merge-conflict lines;
4. reads only the tail of the file (enough to hold the last comment boundary) to decide how the
   new text joins on: a closing fence, a blank line, a separator;
5. writes the new bytes at the end in one ``write`` loop with SIGINT/SIGTERM/SIGHUP held back
   (a signal waits until the write is whole), and ``fsync``s;
6. if any write fails, truncates the file back to its old length, so the old bytes are exactly
   what they were and nothing half-written remains.

Bytes already in the file are never rewritten. Apart from one C-speed pass over the file (the
check of the facts `filefacts` keeps, and the test for NUL bytes), the cost does not depend
on the file's size. `locked_append` lets a caller decide what to append
from the file as it is under the lock (phase transitions, status changes), so two processes
can never both write the same transition.
"""

from __future__ import annotations

import errno
import fcntl
import mmap
import os
import signal
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..atomic import os_reason
from ..errors import (
    DiscussionExists,
    DiscussionNotFound,
    DiscussionsError,
    NotADiscussion,
    NotWritable,
)
from ..syntax import conflicts
from ..syntax.parse import has_discussion_header
from ..syntax.record import Record
from ..syntax.render import analyse_tail, join_blocks
from .tail import BOUNDARY_BYTES, read_tail

if TYPE_CHECKING:
    from ..syntax.lastcomment import Boundaries
    from .filefacts import Facts, Reading
    from .journal import Lost

_HEAD = 4096
_HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


_DERIVED_NAMES = ("CHRONICLE.md",)
_DERIVED_SUFFIXES = (".sum.md", ".post.md")


def is_derived(path: Path) -> bool:
    """A file the engine makes from discussions (a ``.sum.md`` summary, a ``.post.md``
    exported post, ``CHRONICLE.md``): never a discussion, never checked or watched as one."""
    return path.name in _DERIVED_NAMES or path.name.endswith(_DERIVED_SUFFIXES)


def not_found(path: Path) -> DiscussionNotFound:
    """The error for a discussion path that is missing, a folder, or not a regular file."""
    if path.is_dir():
        return DiscussionNotFound(f"{path} is a folder, not a discussion file")
    if path.is_symlink() and not path.exists():
        return DiscussionNotFound(f"{path} is a symbolic link to a file that does not exist")
    if path.exists():
        return DiscussionNotFound(f"{path} is not a regular file (a pipe, socket or device)")
    return DiscussionNotFound(f"no such discussion file: {path}")


def check_exists(path: Path) -> None:
    if not path.is_file():
        raise not_found(path)


T = TypeVar("T")


def read_bytes(path: Path) -> bytes:
    """The file's bytes. Never blocks on a FIFO: anything but a regular file is refused."""
    return _reading(path, _read_all)


def _read_all(fd: int) -> bytes:
    with os.fdopen(os.dup(fd), "rb") as f:
        return f.read()


def _reading(path: Path, read: Callable[[int], T]) -> T:
    """``read(fd)`` on the regular file at `path` opened for reading (closed after). Never
    blocks on a FIFO: anything but a regular file is refused."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise not_found(path) from None
    except OSError as exc:
        raise DiscussionsError(f"cannot read {path}: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise not_found(path)
        return read(fd)
    except OSError as exc:
        raise DiscussionsError(f"cannot read {path}: {exc.strerror}") from None
    finally:
        os.close(fd)


_BINARY_SAMPLE = 8192
"""Bytes looked at for a NUL, which no discussion holds (the engine never writes one): a file
with one there is binary (git's test)."""


def read_discussion(path: Path) -> bytes:
    """The bytes of the discussion file at `path`; `DiscussionNotFound` for a binary file."""
    data = read_bytes(path)
    _refuse_binary(path, data)
    return data


def _refuse_binary(path: Path, head: bytes) -> None:
    if b"\x00" in head[:_BINARY_SAMPLE]:
        raise DiscussionNotFound(f"{path} is a binary file, not a discussion")


def ai_authors(path: Path) -> list[str]:
    """`speakers.ai_authors` of the discussion file at `path` (`DiscussionNotFound` as
    `read_discussion`), scanning only what was appended since it was last asked
    (`filefacts`)."""
    from . import filefacts

    def read(fd: int) -> list[str]:
        _refuse_binary(path, os.pread(fd, _BINARY_SAMPLE, 0))
        return filefacts.facts_of_file(target_of(path, None), fd).ai_authors

    return _reading(path, read)


def check_readable(path: Path) -> None:
    """What `ai_authors` refuses before it reads the facts (a missing, unreadable or binary
    file), without reading them: for a check of the facts made later, under the lock
    (`locked_append`)."""
    _reading(path, lambda fd: _refuse_binary(path, os.pread(fd, _BINARY_SAMPLE, 0)))


def last_comment_bytes(path: Path, head: int) -> tuple[Boundaries, bytes, bytes]:
    """`lastcomment.boundaries` of the discussion file at `path` (`filefacts`: scanning only
    what was appended since it was last asked; none of it when this process's append was
    the last change to it, `filefacts.remember`), its first `head` bytes and its bytes from
    its last comment's ``---`` line (none when it has none)."""
    from . import filefacts

    def read(fd: int) -> tuple[Boundaries, bytes, bytes]:
        found = filefacts.facts_of_file(target_of(path, None), fd, ours=True).comments
        size = os.fstat(fd).st_size
        tail = os.pread(fd, size - found.last, found.last) if found.last >= 0 else b""
        return found, os.pread(fd, head, 0), tail

    return _reading(path, read)


def create(path: Path, text: str, *, root: Path | None = None) -> None:
    """Write a new file; never overwrites. Parent folders are created. On any failure nothing
    is left behind. With `root`, a path that leads out of the project through a link is
    refused."""
    target_of(path, root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise DiscussionsError(
            f"cannot create {path}: {path.parent} exists and is not a folder"
        ) from None
    except OSError as exc:
        raise DiscussionsError(f"cannot create folder {path.parent}: {os_reason(exc)}") from None
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        raise DiscussionExists(
            f"{path} already exists; choose another title, --file or --dir, or comment on it"
        ) from None
    except OSError as exc:
        raise DiscussionsError(f"cannot create {path}: {os_reason(exc)}") from None
    try:
        with _signals_held():
            _write_all(fd, text.encode("utf-8"))
            os.fsync(fd)
    except OSError as exc:
        os.close(fd)
        os.unlink(path)
        raise DiscussionsError(
            f"cannot write {path}: {os_reason(exc)}; nothing was created"
        ) from None
    except BaseException:
        os.close(fd)
        os.unlink(path)
        raise
    os.close(fd)


# --------------------------------------------------------------------------- write safety


def target_of(path: Path, root: Path | None) -> Path:
    """The file an append to `path` writes: `path` with links resolved. A link that leads out
    of the project `root` is refused (a cloned repository must not make us write to
    ``~/.bashrc``)."""
    absolute = Path(os.path.abspath(path))
    resolved = absolute.resolve()
    if resolved != absolute and root is not None:
        base = root.resolve()
        if not resolved.is_relative_to(base):
            raise NotWritable(
                f"{path} is a symbolic link to {resolved}, outside the project ({base}); "
                "refusing to write through it"
            )
    return resolved


def check_appendable(path: Path, root: Path | None = None) -> None:
    """Everything `append` would refuse, checked up front (without waiting for the lock), so a
    turn fails before any provider is called."""
    target = target_of(path, root)
    fd = _open_for_append(target, path)
    try:
        with _Mapped(fd) as contents:
            _check_content(fd, path, target, contents.read)
    finally:
        os.close(fd)


def _open_for_append(target: Path, shown: Path) -> int:
    try:
        fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise not_found(shown) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotWritable(f"{shown} changed into a symbolic link; try again") from None
        raise NotWritable(f"cannot write to {shown}: {os_reason(exc)}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise not_found(shown)
    os.set_blocking(fd, True)
    return fd


def _check_content(
    fd: int,
    shown: Path,
    target: Path,
    read: Callable[[], bytes | mmap.mmap],
    check: Callable[[Facts], None] | None = None,
) -> Reading:
    """Refuse a file that is not a discussion or holds unresolved merge-conflict lines.
    `target` is the file `shown` names (links resolved); `read` gives its bytes.
    The test for conflict lines scans only what was appended since the last one
    (`filefacts`). Returns the facts it read (for the ones after an append). `check` is
    called with them first (the appender's own check, `locked_append`)."""
    from . import filefacts

    found = None
    if check is not None:  # first, where the check it stands for ran before the lock
        found = filefacts.reading(target, read())
        check(found.facts)
    problem = _content_problem(fd, shown, read)
    if problem is not None:
        what, hint = problem
        raise NotWritable(f"{what}; nothing was written" + (f". {hint}" if hint else ""))
    data = read()
    if found is None:
        found = filefacts.reading(target, data)
    if found.facts.may_have_conflicts:
        lines = conflicts.conflict_lines(data[:].decode("utf-8", errors="replace"))
        if lines:
            shown_lines = ", ".join(str(n) for n in lines[:5])
            raise NotWritable(
                f"{shown} has unresolved merge-conflict lines (line {shown_lines}); resolve "
                "them first (`discussions resolve`), then try again. Nothing was written"
            )
    return found


_NEW_HINT = "Create one with `discussions new`"


def _content_problem(
    fd: int, shown: Path, whole: Callable[[], bytes | mmap.mmap] | None = None
) -> tuple[str, str] | None:
    """Why the open regular file `fd` is not a discussion, as (what, what to do), else None.

    The one rule: a discussion is non-empty UTF-8 text without NUL bytes that starts with the
    ``<!-- DISCUSSION -->`` header block or holds at least one comment boundary. Reads 4 KiB,
    and scans the rest (at C speed) only for a file without the header. `whole` gives the
    file's bytes as already mapped (by `locked_append`); else they are mapped here."""
    size = os.fstat(fd).st_size
    head = os.pread(fd, _HEAD, 0)
    if b"\x00" in head:
        return f"{shown} is a binary file, not a discussion", ""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not just a character cut at the end of the sample
            return f"{shown} is not UTF-8 text, so not a discussion", ""
    if size == 0:
        return f"{shown} is empty, not a discussion", _NEW_HINT
    if whole is not None:
        return _whole_problem(shown, head, whole())
    with mmap.mmap(fd, size, prot=mmap.PROT_READ) as data:
        return _whole_problem(shown, head, data)


def _whole_problem(shown: Path, head: bytes, data: bytes | mmap.mmap) -> tuple[str, str] | None:
    """`_content_problem` of the whole file's `data`, its first bytes `head` found right."""
    if data.find(b"\x00") >= 0:
        return f"{shown} is a binary file, not a discussion", ""
    header = has_discussion_header(head.decode("utf-8", errors="replace"))
    if not header and BOUNDARY_BYTES.search(data) is None:
        return (
            f"{shown} is not a discussion (no `<!-- DISCUSSION -->` header and no comments)",
            _NEW_HINT,
        )
    return None


def discussion_problem(path: Path) -> str | None:
    """Why `path` is not a discussion file, or None when it is: the one answer to "is this a
    discussion?" for every command, reader or writer, and for the folders they list or watch.
    A discussion is a regular file, not one the engine derives (`is_derived`), whose content
    passes `_content_problem`."""
    if is_derived(path):
        return (
            f"{path} is made from a discussion (a summary, an export or the chronicle), "
            "not a discussion"
        )
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return str(not_found(path))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return str(not_found(path))
        problem = _content_problem(fd, path)
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror}"
    finally:
        os.close(fd)
    if problem is None:
        return None
    what, hint = problem
    return what + (f". {hint}" if hint else "")


def is_discussion_file(path: Path) -> bool:
    """Whether `path` is a discussion file (see `discussion_problem`)."""
    return discussion_problem(path) is None


def require_discussion(path: Path) -> None:
    """Raise `DiscussionNotFound` when `path` is missing or no regular file, `NotADiscussion`
    when it is a file but not a discussion (see `discussion_problem`)."""
    check_exists(path)
    problem = discussion_problem(path)
    if problem is not None:
        raise NotADiscussion(problem)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold back SIGINT/SIGTERM/SIGHUP in this thread while bytes are written, so a signal
    cannot stop a write half-way (it is handled as soon as the write is whole). Another thread
    may still take the signal; the process then exits only after its worker threads finish."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _open_locked(path: Path, root: Path | None) -> int:
    """Open `path` for appending with an exclusive lock on the file the path names now."""
    for _ in range(100):
        target = target_of(path, root)
        fd = _open_for_append(target, path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            now = os.stat(target, follow_symlinks=False)
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


def _describe(blocks: Sequence[str]) -> str:
    first = blocks[0].lstrip()
    if first.startswith("Name:"):
        author = first[5:].split("\n", 1)[0].strip()
        what = f"a comment by {author}"
    elif first.startswith("<!-- EVIDENCE:"):
        what = "an evidence block"
    elif first.startswith(("<!-- APPLY:", "<!-- APPLY-REVIEW:")):
        what = "an apply block" if first.startswith("<!-- APPLY:") else "an apply review"
    else:
        what = "a phase or status change"
    return what if len(blocks) == 1 else f"{what} (and {len(blocks) - 1} more)"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class Appended(Record):
    """What an append did: `blocks`, the blocks written (none: nothing was written); `lost`,
    earlier appends of ours to this file that are gone from it (an editor saved over them) or
    were cut short (the process was killed during the write).
    (A slotted `Record`: making a dataclass costs start-up time on every command.)"""

    __slots__ = ("blocks", "lost")

    def __init__(self, blocks: list[str] | None = None, lost: list[Lost] | None = None) -> None:
        self.blocks: list[str] = [] if blocks is None else blocks
        self.lost: list[Lost] = [] if lost is None else lost

    def lost_messages(self, path: Path) -> list[str]:
        return [lost.message(path.name) for lost in self.lost]


def lost_appends(path: Path) -> list[str]:
    """What `discussions check` says about this user's recent appends to `path`: the ones an
    editor saved over, and the ones cut short by a process killed during the write (see
    `journal`). Waits for an append under way (a shared lock); each is reported once."""
    from . import journal

    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        fcntl.flock(fd, fcntl.LOCK_SH)
        target = Path(os.path.abspath(path)).resolve()
        size = os.fstat(fd).st_size
        lost = journal.missing(target, lambda: os.pread(fd, size, 0))
    except OSError:
        return []
    finally:
        os.close(fd)
    return [x.message(path.name) for x in lost]


def append(
    path: Path,
    blocks: Sequence[str],
    *,
    root: Path | None = None,
    check: Callable[[Facts], None] | None = None,
) -> Appended:
    """Append `blocks` (comment blocks / engine markers, see `format.join_for_append`).
    `root` is the project folder: links out of it are refused. `check` as `locked_append`."""
    if not blocks:
        return Appended()
    return locked_append(path, lambda _text: list(blocks), root=root, read_all=False, check=check)


def locked_append(
    path: Path,
    build: Callable[[str], Sequence[str]],
    *,
    root: Path | None = None,
    read_all: bool = True,
    check: Callable[[Facts], None] | None = None,
) -> Appended:
    """Under the file lock, call ``build(text)`` with the file's whole text as it is now (or
    ``""`` when `read_all` is False) and append the blocks it returns. What `build` raises
    propagates and nothing is written. `check`, when given, is called first with the file's
    `filefacts.Facts` as read under the lock (a person's name against those who spoke as an
    AI in it, `Discussion.save`): what it raises propagates and nothing is written."""
    fd = _open_locked(path, root)
    try:
        from . import journal

        target = Path(os.path.abspath(path)).resolve()
        with _Mapped(fd) as contents:
            checked = _check_content(fd, path, target, contents.read, check)
            lost = journal.missing(target, contents.read)
            text = contents.read()[:].decode("utf-8", errors="replace") if read_all else ""
        blocks = list(build(text))
        if not blocks:
            return Appended([], lost)
        written = _write_blocks(fd, path, target, contents.size, blocks)
        from . import filefacts

        # The facts now, from the bytes checked above and the ones written: the count a
        # `comment` reports needs no third pass over the file (`last_comment_bytes`).
        size = contents.size + len(written)
        filefacts.remember(target, fd, size, checked.after(written))
        return Appended(blocks, lost)
    finally:
        os.close(fd)  # closing releases the lock


class _Mapped:
    """The open file `fd` whole, as it is under the lock, mapped when first asked for (not
    copied: the checks read what they need of it, a 10 MB file's bytes are not copied for a
    look at its last comment) and unmapped when the block ends."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.size = os.fstat(fd).st_size
        self._map: mmap.mmap | None = None

    def read(self) -> bytes | mmap.mmap:
        if not self.size:
            return b""
        if self._map is None:
            self._map = mmap.mmap(self.fd, self.size, prot=mmap.PROT_READ)
        return self._map

    def __enter__(self) -> _Mapped:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._map is not None:
            self._map.close()


def _write_blocks(fd: int, path: Path, target: Path, size: int, blocks: list[str]) -> bytes:
    """Append `blocks` to the locked file `fd` of `size` bytes (`path`, which names `target`),
    remembered in the journal; on failure the file is left as it was. Returns the bytes
    written."""
    from . import journal

    tail, whole = read_tail(fd, size)
    data = join_blocks(analyse_tail(tail, at_file_start=whole), blocks).encode("utf-8")
    # Remembered before the write: a write cut short by SIGKILL (which cannot be held
    # back) is then reported by the next append or `check`.
    entry = journal.begin(target, data, _describe(blocks), size)
    try:
        with _signals_held():
            _write_all(fd, data)
            os.fsync(fd)
    except OSError as exc:
        # Leave the file exactly as it was. (A writer that takes no lock, an editor or
        # `>>`, appending in this instant would lose its bytes too: an accepted risk.)
        os.ftruncate(fd, size)
        journal.abandon(entry)
        raise NotWritable(f"could not append to {path}: {os_reason(exc)}; file unchanged") from None
    journal.finish(entry)
    return data
