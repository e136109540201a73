"""A short memory of this user's own appends, to notice when one is gone or was cut short.

An editor holding an old copy of a discussion can save it over the file just after the engine
appended, and the appended comment is lost without a trace. Nothing in the file can tell (it
is the file that was replaced), so each append is remembered here: the file, where the bytes
went, how many, and their digest. A process killed in the middle of a write (``kill -9`` cannot
be held back) leaves the first part of a comment; so an append is remembered *before* its bytes
are written (`begin`) and marked whole after (`finish`). The next write to that file, and
`discussions check`, look at the recent entries and report a block that is no longer in the
file, or was never written whole.

Entries of one file are matched to distinct places in it: two appends of the same text are
two entries, and one copy left in the file accounts for one of them only. The journal is read
and rewritten under its own lock, so processes appending at the same time (to any file) never
drop each other's entries.

This is not state: the discussion is still only the file. The journal lives in the user dir
(``appends.jsonl``), keeps the last `KEEP` entries, and a missing or damaged journal simply
means nothing is checked.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import mmap
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import atomic
from ..errors import DiscussionsError
from ..settings.config import user_dir

KEEP = 200
_MAX_AGE = 7 * 24 * 3600.0
_NAME = "appends.jsonl"


@dataclass(slots=True)
class _Entry:
    """One append this user's engine made."""

    path: str
    """Resolved path of the file."""
    head: str
    """The first characters of the appended text (normalised), to find it again."""
    length: int
    """Length of the appended text (normalised)."""
    digest: str
    """sha256 of the appended text (normalised)."""
    when: float
    """Unix time of the append."""
    what: str
    """A few words on what was appended (``comment by AI-Security``)."""

    raw_length: int = 0
    """Length in bytes of the appended bytes as written."""
    raw_digest: str = ""
    """sha256 of the bytes as written (the fast check, when nobody touched them)."""
    anchor: str = ""
    """Entries written before `head_raw` was kept: the longest of the first lines of the
    appended text, to find them again."""
    anchor_at: int = 0
    """Byte offset of `anchor` within the appended bytes."""
    git_head: str = ""
    """The git branch (or commit) checked out when it was appended: after a checkout of
    another branch the file legitimately lacks it, so it is only looked for on the same one."""
    offset: int = -1
    """Byte offset in the file where the bytes were written (-1: not known)."""
    done: bool = True
    """False from just before the write until it is whole (`finish`): an entry still False
    when its process is gone is a write that was cut short."""
    key: str = ""
    """Identifies the entry for `finish` and `abandon`."""
    head_raw: str = ""
    """The first bytes written (up to 64, in hex): a cut-short write begins with them."""

    def to_dict(self) -> dict[str, object]:
        return {f: getattr(self, f) for f in self.__slots__}


def _normalise(text: str) -> str:
    """What an editor's save keeps: line endings and trailing whitespace may change."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip(" \t") for line in lines).strip("\n")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()


def _file() -> Path:
    return user_dir() / _NAME


def _read() -> list[_Entry]:
    try:
        lines = _file().read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    entries: list[_Entry] = []
    for line in lines[-KEEP:]:
        try:
            entries.append(_Entry(**json.loads(line)))
        except (ValueError, TypeError):
            continue
    return entries


_PRUNE_BYTES = 256 * 1024
"""Past this size `begin` rewrites the journal with its last `KEEP` entries instead of adding
a line (`_read` looks at the last `KEEP` lines only, so nothing else depends on it)."""
_DONE = b'"done": false, "key": "'


def _open_journal(flags: int) -> int:
    """A descriptor on the journal itself (never through a symbolic link); -1 if none."""
    try:
        return os.open(_file(), flags | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except OSError:
        return -1


def _add_line(entry: _Entry) -> bool:
    """Append `entry` as one line, without rewriting the rest; False when the journal must be
    rewritten instead (too large, or not a plain file of ours). Caller holds the lock."""
    fd = _open_journal(os.O_RDWR | os.O_CREAT | os.O_APPEND)
    if fd < 0:
        return False
    try:
        size = os.fstat(fd).st_size
        if size > _PRUNE_BYTES:
            return False
        line = json.dumps(entry.to_dict()) + "\n"
        if size and os.pread(fd, 1, size - 1) != b"\n":  # a line cut short stays apart
            line = "\n" + line
        data = line.encode("utf-8")
        return os.write(fd, data) == len(data)
    except OSError:
        return False
    finally:
        os.close(fd)


def _mark_done(entry: _Entry) -> bool:
    """Mark `entry` done in its line, in place (``false`` becomes ``true `` of the same
    length): no rewrite. False when its line is not found as written. Caller holds the lock."""
    fd = _open_journal(os.O_RDWR)
    if fd < 0:
        return False
    try:
        data = os.pread(fd, os.fstat(fd).st_size, 0)
        needle = _DONE + entry.key.encode("ascii") + b'"'
        at = data.find(needle)
        if not entry.key or at < 0 or data.find(needle, at + 1) >= 0:
            return False
        return os.pwrite(fd, b"true ", at + len(b'"done": ')) == 5
    except (OSError, UnicodeEncodeError):
        return False
    finally:
        os.close(fd)


def _write(entries: list[_Entry]) -> None:
    """Rewrite the journal. Not synced to disk (`durable=False`): it is a memory, written twice
    per append, and a journal lost to a power cut only means nothing is checked."""
    target = _file()
    text = "".join(json.dumps(e.to_dict()) + "\n" for e in entries)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic.replace_file(target, text, mode=0o600, durable=False)
    except (OSError, DiscussionsError):
        pass  # no journal, no check: never a reason to fail a write


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """Hold the journal's lock (a lock file beside it) while it is read and rewritten."""
    fd = -1
    try:
        _file().parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(_file().with_suffix(".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:
        pass  # no lock, as no journal: never a reason to fail a write
    try:
        yield
    finally:
        if fd >= 0:
            os.close(fd)


def begin(path: Path, data: bytes, what: str, offset: int) -> _Entry:
    """Remember that `data` is about to be written to `path` at `offset` (not yet whole)."""
    norm = _normalise(data.decode("utf-8", errors="replace"))
    entry = _Entry(
        str(path),
        norm[:120],
        len(norm),
        _digest(norm),
        time.time(),
        what,
        len(data),
        hashlib.sha256(data).hexdigest(),
        "",
        0,
        git_head(path),
        offset,
        False,
        os.urandom(8).hex(),
        data[:64].hex(),
    )
    with _locked():
        if not _add_line(entry):
            now = entry.when
            entries = [e for e in _read() if now - e.when < _MAX_AGE][-(KEEP - 1) :]
            _write([*entries, entry])
    return entry


def finish(entry: _Entry) -> None:
    """The bytes of `entry` are written whole (marked in place where its line is found)."""
    with _locked():
        if _mark_done(entry):
            return
    _update(entry, done=True)


def abandon(entry: _Entry) -> None:
    """The write of `entry` failed and was undone: forget it."""
    _update(entry, done=None)


def _update(entry: _Entry, *, done: bool | None) -> None:
    with _locked():
        entries = _read()
        kept = []
        for e in entries:
            if e.key == entry.key:
                if done is None:
                    continue
                e.done = done
            kept.append(e)
        _write(kept)


@dataclass(slots=True)
class Lost:
    """An append of ours that is not in the file as it was written."""

    entry: _Entry
    cut_line: int = 0
    """For a write cut short: the line of the file where its first part stands (0: none of
    it is in the file, or it was written whole and then lost)."""

    def message(self, name: str) -> str:
        e = self.entry
        at = time.strftime("%H:%M:%S", time.localtime(e.when))
        if e.done:
            return (
                f"{e.what} that discussions appended to {name} at {at} is no longer in the "
                "file as it was written: it was edited since, or an editor holding an older "
                "copy saved over it"
            )
        if self.cut_line:
            return (
                f"{e.what} that discussions was appending to {name} at {at} was cut short (the "
                f"process was stopped during the write): only its first part stands at line "
                f"{self.cut_line}; delete that part, or complete it, and add the comment again"
            )
        return (
            f"{e.what} that discussions was appending to {name} at {at} was never written (the "
            "process was stopped during the write); add it again"
        )


def missing(
    path: Path, read: Callable[[], bytes | mmap.mmap], *, forget: bool = True
) -> list[Lost]:
    """Recent appends to `path` that are not in its bytes (``read()``): gone (an editor saved
    an older copy over them) or never written whole (`_Entry.done` is False). Each is reported
    once, then forgotten (unless not `forget`). The caller holds the file's lock (shared will
    do): an append under way is not mistaken for one cut short."""
    with _locked():
        entries = _read()
        head = git_head(path)
        now = time.time()
        mine = [
            e
            for e in entries
            if e.path == str(path) and now - e.when < _MAX_AGE and e.git_head == head
        ]
        if not mine:
            return []
        data = read()
        gone = _not_found(mine, data)
        if gone and forget:
            drop = {id(e) for e in gone}
            _write([e for e in entries if id(e) not in drop])
    return [Lost(e, _cut_line(e, data)) for e in gone]


def _not_found(mine: list[_Entry], data: bytes | mmap.mmap) -> list[_Entry]:
    """The entries of `mine` with no place of their own in `data`: each place (where the
    bytes were written, else another copy of them) accounts for one entry only."""
    claimed: set[int] = set()
    # Entries whose bytes are where they were written claim those places first.
    rest = [e for e in mine if not _at_offset(data, e, claimed)]
    rest = [e for e in rest if not _contains_raw(data, e, claimed)]
    if not rest:
        return []
    # The others are looked for as an editor's save may have changed them, among the places
    # the entries found so far do not account for.
    norm = _normalise(data[:].decode("utf-8", errors="replace"))
    claimed_norm: set[int] = set()
    looked_for = {id(e) for e in rest}
    for e in mine:
        if id(e) not in looked_for:
            _contains(norm, e, claimed_norm)
    return [e for e in rest if not _contains(norm, e, claimed_norm)]


def _at_offset(data: bytes | mmap.mmap, e: _Entry, claimed: set[int]) -> bool:
    if e.offset < 0 or not e.raw_digest or e.offset in claimed:
        return False
    if hashlib.sha256(data[e.offset : e.offset + e.raw_length]).hexdigest() != e.raw_digest:
        return False
    claimed.add(e.offset)
    return True


def git_head(path: Path) -> str:
    """What ``.git/HEAD`` of the repository holding `path` names (a branch ref or a commit);
    empty outside git. Read directly: no git process per append."""
    for folder in path.parents:
        dot_git = folder / ".git"
        try:
            if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
                pointer = dot_git.read_text(encoding="utf-8").strip()
                if pointer.startswith("gitdir:"):
                    dot_git = (folder / pointer[7:].strip()).resolve()
            if dot_git.is_dir():
                return (dot_git / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return ""
    return ""


def _contains_raw(data: bytes | mmap.mmap, e: _Entry, claimed: set[int]) -> bool:
    """The bytes, untouched, at a place no other entry claimed (C-speed search). Looked for
    by their first bytes, which start with the comment's ``Name:`` line or a marker: few
    places hold them, even in a file of one repeated character."""
    key, at = _search_key(e)
    if not e.raw_digest or not key:
        return False
    start = data.find(key)
    while start >= 0:
        begin = start - at
        if begin >= 0 and begin not in claimed:
            digest = hashlib.sha256(data[begin : begin + e.raw_length]).hexdigest()
            if digest == e.raw_digest:
                claimed.add(begin)
                return True
        start = data.find(key, start + 1)
    return False


def _search_key(e: _Entry) -> tuple[bytes, int]:
    """What `_contains_raw` looks for, and its offset in the appended bytes: their first bytes
    (entries written before those were kept: the longest of their first lines)."""
    try:
        head = bytes.fromhex(e.head_raw)
    except ValueError:
        head = b""
    if head:
        return head, 0
    return e.anchor.encode("utf-8"), e.anchor_at


def _contains(norm: str, e: _Entry, claimed: set[int]) -> bool:
    """The text, as an editor's save may have changed it, at a place no other entry claimed."""
    if not e.head:
        return False
    start = norm.find(e.head)
    while start >= 0:
        if start not in claimed and _digest(norm[start : start + e.length]) == e.digest:
            claimed.add(start)
            return True
        start = norm.find(e.head, start + 1)
    return False


def _cut_line(e: _Entry, data: bytes | mmap.mmap) -> int:
    """For an entry never written whole whose first bytes stand where it was to be written:
    the line they start on (1-based, at the ``Name:`` line when they hold one), else 0."""
    if e.done or e.offset < 0 or len(data) <= e.offset:
        return 0
    try:
        head = bytes.fromhex(e.head_raw)
    except ValueError:
        return 0
    start = bytes(data[e.offset : e.offset + len(head)])
    if not head or not head.startswith(start):
        return 0
    line = data[: e.offset].count(b"\n") + 1
    name = head.find(b"Name:")
    return line + (head[:name].count(b"\n") if name >= 0 else 0)


def forget(folder: Path) -> None:
    """Forget every append to a file under `folder`: a folder of discussions made to be
    deleted (a trial's councils), whose entries would push this user's own appends out of the
    last `KEEP`, with nothing left to check."""
    prefix = str(folder.resolve()) + os.sep
    with _locked():
        try:
            lines = _file().read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return
        kept = [line for line in lines if not _entry_under(line, prefix)]
        if len(kept) == len(lines):
            return
        try:
            text = "".join(f"{line}\n" for line in kept)
            atomic.replace_file(_file(), text, mode=0o600, durable=False)
        except (OSError, DiscussionsError):
            pass


def _entry_under(line: str, prefix: str) -> bool:
    try:
        path = json.loads(line).get("path")
    except (ValueError, AttributeError):
        return False
    return isinstance(path, str) and path.startswith(prefix)
