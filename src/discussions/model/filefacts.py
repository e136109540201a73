"""What a discussion file's bytes say that an append only adds to, kept so that a person's
`comment` on a file of 20,000 comments scans what is new rather than the whole file.

Two facts are asked of the whole file on every append: whether it may hold merge-conflict
lines (`conflicts.may_have_conflicts`: every writer refuses such a file) and who has spoken
as an AI in it (`speakers.ai_author_names`: a person cannot sign as one of them). Both are
answers about lines, and both can be put together from the answers for the file's parts cut
just before a ``\\nName:`` (a comment's name line, a line start): no conflict line and no
match of the AI-author patterns crosses such a cut (see `speakers.ai_author_names`).

So the file is summarised up to its last ``\\nName:`` (`_Summary`: where the summary ends,
the CRC-32 of those bytes, the facts found in them) and the summary kept, one small JSON file
per discussion, in the user's cache folder (``facts/<digest of the path>.json``). The next
reader checks the summary against the file as it is now: the bytes it covers must still have
its CRC-32 (one pass over them, about 2-3 ms for 12 MB, against the 30-80 ms the scans and
the decoding took) and still be followed by a ``\\nName:`` (the same bytes followed by
something else are no cut: a line then runs across them). Not the size, time and inode of
`filecache`: an append changes all three, and the question is whether the bytes before it
are the ones summarised. A file changed by
anyone else (an editor, git, another process), in the middle or anywhere before the cut, of
the same size or not, fails that check and is scanned whole again; a missing, damaged or
foreign cache file is ignored. The cache is never the source of truth:
the answers are computed from the bytes read now, part from the verified summary, part from
scanning the rest. (CRC-32 catches every change of 32 consecutive bits or fewer and all but
one in four billion of the others; a hand that can edit the file can write any comment it
likes, so the check guards against accidents, which it catches, not against a forger.)

A `comment` reads the file this way once, under its lock (`reading`): the author's name, the
writer's safety checks and, with the bytes it then writes (`Reading.after`), the count it
reports all come from that one reading (`remember`).
"""

from __future__ import annotations

import io
import json
import mmap
import os
import stat
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..atomic import replace_file
from ..derive.speakers import ai_author_names
from ..errors import DiscussionsError
from ..settings.config import user_cache_dir
from ..syntax.conflicts import may_have_conflicts
from ..syntax.digest import sha256_hex
from ..syntax.lastcomment import Boundaries, boundaries
from ..syntax.record import Record

__all__ = ["Facts", "Reading", "facts", "facts_of_file", "reading", "remember"]

_FORMAT = 2
"""The layout of a summary file; another one is ignored."""
_CUT = b"\nName:"
_SLICE = 1 << 18
"""Bytes read at a time to check a summary against a file (`_file_crc`)."""
_BOM = "\ufeff"


class Facts(Record):
    """The facts of a whole file."""

    __slots__ = ("ai_authors", "may_have_conflicts", "comments")

    def __init__(
        self, may_have_conflicts: bool, ai_authors: list[str], comments: Boundaries
    ) -> None:
        self.may_have_conflicts = may_have_conflicts
        """`conflicts.may_have_conflicts` of the file's bytes."""
        self.ai_authors = ai_authors
        """`speakers.ai_authors` of the file's text."""
        self.comments = comments
        """`lastcomment.boundaries` of the file's bytes: how many comments, the last one."""


class _Summary(Record):
    """The facts of the file's first `upto` bytes, which end just before a ``\\nName:`` (or
    are none)."""

    __slots__ = ("conflicts", "crc", "passed", "spoken", "upto", "comments")

    def __init__(
        self,
        upto: int = 0,
        crc: int = 0,
        conflicts: bool = False,
        spoken: list[str] | None = None,
        passed: list[str] | None = None,
        comments: Boundaries | None = None,
    ) -> None:
        self.upto = upto
        self.crc = crc
        """`zlib.crc32` of the bytes summarised."""
        self.conflicts = conflicts
        self.spoken: list[str] = spoken or []
        """The names `speakers.ai_author_names` finds on ``Name:`` lines (`_distinct`)."""
        self.passed: list[str] = passed or []
        """The names it finds in ``PASS`` markers (`_distinct`)."""
        self.comments = comments
        """`lastcomment.boundaries` of the bytes summarised (None: none are)."""

    def to_json(self) -> dict[str, Any]:
        found = {s: getattr(self, s) for s in self.__slots__}
        found["comments"] = self.comments.to_json() if self.comments else None
        return found


def facts(path: Path, data: bytes | mmap.mmap) -> Facts:
    """The facts of `data`, the bytes of the discussion file at `path` (an absolute path with
    links resolved: the cache's key) as read now (or mapped: only the bytes the kept summary
    does not cover are copied). Uses and updates the kept summary."""
    return reading(path, data).facts


def reading(path: Path, data: bytes | mmap.mmap) -> Reading:
    """`facts` of `data`, kept with what it takes to tell the facts of `data` followed by
    bytes appended to it (`Reading.after`) without reading or checking `data` again."""
    kept, rest = _verified(path, len(data), lambda end: _crc(data, end), lambda at: data[at:])
    return Reading(path, kept, rest)


def facts_of_file(path: Path, fd: int, *, ours: bool = False) -> Facts:
    """`facts` of the file open as `fd` (at `path`), read as it is now: the bytes the kept
    summary covers are checked a slice at a time (never copied whole), the rest read.
    With `ours`, the facts `remember`ed for the file this process just appended to, when the
    file is still the one it left (`_stamp`): what it wrote was the last change to it."""
    if ours:
        left = _LEFT.get(path)
        if left is not None and left[0] == _stamp(fd):
            return left[1]
    size = os.fstat(fd).st_size
    kept, rest = _verified(
        path,
        size,
        lambda end: _file_crc(fd, end),
        lambda start: os.pread(fd, max(size - start, 0), start),
    )
    return Reading(path, kept, rest).facts


_LEFT: dict[Path, tuple[tuple[int, ...], Facts]] = {}
"""The file this process last appended to (one: the next append replaces it), with its
`_stamp` right after the append and its facts then (`remember`)."""


def remember(path: Path, fd: int, size: int, found: Facts) -> None:
    """Keep `found`, the facts of the file `fd` (at `path`) as this process has just left it,
    `size` bytes long (under its lock, after the write and ``fsync``), for `facts_of_file`
    with `ours`; nothing when it is not that long (a writer that takes no lock wrote too).

    So a `comment` tells the count from the bytes it checked under the lock and the ones it
    wrote, not from a third pass over the file. Any change since shows in `_stamp`: another
    append (the size), a new file renamed into place (the inode), a write in place (the
    modification and change times, to the nanosecond the file system keeps; Linux gives a
    file whose times were just asked, as here, a fine-grained time at its next change)."""
    _LEFT.clear()
    stamp = _stamp(fd)
    if stamp[2] == size:
        _LEFT[path] = (stamp, found)


def _stamp(fd: int) -> tuple[int, ...]:
    """What changes with any change to the file open as `fd`."""
    st = os.fstat(fd)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _verified(
    path: Path, size: int, crc_to: Callable[[int], int], read_from: Callable[[int], bytes]
) -> tuple[_Summary, bytes]:
    """(the kept summary of the file of `size` bytes at `path` as checked against it now, the
    file's bytes after the ones it covers): `crc_to(n)` is the CRC-32 of its first `n` bytes,
    `read_from(n)` its bytes from offset `n`."""
    kept = _load(path, size, crc_to)
    rest = read_from(kept.upto)
    if kept.upto and not rest.startswith(_CUT):  # the same bytes, then no comment after them:
        kept, rest = _Summary(), read_from(0)  # the cut is no cut here (a line runs across it)
    return kept, rest


class Reading:
    """The facts of a file's bytes, read and checked once (`reading`)."""

    __slots__ = ("_last", "_path", "_summary", "facts")

    def __init__(self, path: Path, kept: _Summary, rest: bytes) -> None:
        """`kept`, a summary checked against the file at `path`; `rest`, its bytes after it."""
        self._path = path
        self._summary = summary = _extend(kept, rest)
        if summary.upto != kept.upto:
            _save(path, summary)
        self._last = rest[summary.upto - kept.upto :]
        """The bytes after `_summary`: from the file's last ``\nName:`` (or its start)."""
        conflicts, spoken, passed = _scan(self._last, summary.upto == 0)
        names = [*summary.spoken, *spoken, *summary.passed, *passed]
        comments = boundaries(self._last, summary.upto, summary.comments)
        self.facts = Facts(summary.conflicts or conflicts, _distinct(names), comments)

    def after(self, written: bytes) -> Facts:
        """The facts of the bytes read followed by `written` (and nothing else changed): only
        the bytes after the summary's end and `written` are scanned (the summary extended
        over them is kept)."""
        return Reading(self._path, self._summary, self._last + written).facts


def _scan(part: bytes, at_start: bool) -> tuple[bool, list[str], list[str]]:
    """The facts of `part` of a file: may it hold conflict lines, the AI authors' names and
    the passes' names in it. `part` starts at the file's start (`at_start`) or at a
    ``\nName:``."""
    text = part.decode("utf-8", errors="replace")
    spoken, passed = ai_author_names(text.removeprefix(_BOM) if at_start else text)
    return may_have_conflicts(part), spoken, passed


def _extend(summary: _Summary, rest: bytes) -> _Summary:
    """`summary` extended over `rest`, the file's bytes after the ones it covers, to the last
    ``\nName:`` in `rest`."""
    cut = rest.rfind(_CUT)
    if cut <= 0:
        return summary
    part = rest[:cut]
    conflicts, spoken, passed = _scan(part, summary.upto == 0)
    return _Summary(
        summary.upto + cut,
        zlib.crc32(part, summary.crc),
        summary.conflicts or conflicts,
        _distinct([*summary.spoken, *spoken]),
        _distinct([*summary.passed, *passed]),
        boundaries(part, summary.upto, summary.comments),
    )


def _distinct(names: list[str]) -> list[str]:
    """`names` without the empty ones and repeats (the first of each kept): what `facts` makes
    of a list is the same, and a file's 13,000 AI comments have a handful of authors."""
    return list(dict.fromkeys(n for n in names if n))


def _crc(data: bytes | mmap.mmap, end: int) -> int:
    """`zlib.crc32` of ``data[:end]``, without copying the bytes (the views are released at
    once: a mapping with views left cannot be closed)."""
    with memoryview(data) as whole, whole[:end] as part:
        return zlib.crc32(part)


def _file_crc(fd: int, end: int) -> int:
    """`zlib.crc32` of the first `end` bytes of the file open as `fd`, read a slice at a time
    into one buffer (steadier on a busy machine than one read of the whole file, which makes
    the system zero and map fresh pages for it); -1 (no CRC-32) when it holds fewer."""
    crc = at = 0
    with io.FileIO(fd, "rb", closefd=False) as f, memoryview(bytearray(_SLICE)) as buf:
        f.seek(0)
        while at < end:
            n = f.readinto(buf[: min(_SLICE, end - at)])
            if not n:
                return -1
            crc = zlib.crc32(buf[:n], crc)
            at += n
    return crc


def _file(path: Path) -> Path | None:
    """Where the summary of the file at `path` is kept; None without a home folder."""
    try:
        folder = user_cache_dir() / "facts"
    except RuntimeError:  # no HOME, and none in the password database
        return None
    return folder / f"{sha256_hex(os.fsencode(path))[:32]}.json"


def _load(path: Path, size: int, crc_to: Callable[[int], int]) -> _Summary:
    """The kept summary of `path` when it still describes the start of the file (`size`
    bytes, `crc_to` as for `_verified`); else an empty one (nothing summarised)."""
    found = _read(path)
    if found is None or found.upto > size:
        return _Summary()
    if crc_to(found.upto) != found.crc:
        return _Summary()  # changed since: by an editor, git, anyone
    return found


def _read(path: Path) -> _Summary | None:
    """The summary kept for `path`, or None (none, unreadable, damaged, of another layout,
    for another path, or not the user's own file)."""
    file = _file(path)
    try:
        if file is None:
            return None
        with open(file, "rb") as f:
            st = os.fstat(f.fileno())
            if st.st_uid != os.getuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return None
            raw = json.loads(f.read())
        return _summary_of(raw, path)
    except (OSError, ValueError):
        return None


def _summary_of(raw: object, path: Path) -> _Summary | None:
    """The `_Summary` a kept JSON object holds, if it is one for `path`."""
    if not isinstance(raw, dict) or raw.get("format") != _FORMAT or raw.get("path") != str(path):
        return None
    upto, crc, conflicts = raw.get("upto"), raw.get("crc"), raw.get("conflicts")
    spoken, passed = raw.get("spoken"), raw.get("passed")
    if not (isinstance(upto, int) and isinstance(crc, int) and isinstance(conflicts, bool)):
        return None
    if not (_names(spoken) and _names(passed)) or upto < 0:
        return None
    comments = Boundaries.from_json(raw.get("comments"))
    if (comments is None) != (upto == 0):
        return None
    return _Summary(upto, crc, conflicts, spoken, passed, comments)


def _names(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(n, str) for n in value)


def _save(path: Path, summary: _Summary) -> None:
    """Keep `summary` for `path` (atomically; never fails the command that asked)."""
    file = _file(path)
    if file is None:
        return
    payload = {"format": _FORMAT, "path": str(path), **summary.to_json()}
    try:
        file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        replace_file(file, json.dumps(payload), mode=0o600, durable=False)
    except (OSError, DiscussionsError):
        return
