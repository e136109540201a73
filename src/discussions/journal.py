"""A short memory of this user's own appends, to notice when one is gone.

An editor holding an old copy of a discussion can save it over the file just after the engine
appended, and the appended comment is lost without a trace. Nothing in the file can tell (it
is the file that was replaced), so each append is remembered here: the file, where the bytes
went, how many, and their digest. The next write to that file checks the recent entries and
reports a block that is no longer anywhere in the file.

This is not state: the discussion is still only the file. The journal lives in the user dir
(``appends.jsonl``), keeps the last `KEEP` entries, and a missing or damaged journal simply
means nothing is checked.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .config import user_dir

KEEP = 200
MAX_AGE = 7 * 24 * 3600.0
_NAME = "appends.jsonl"


@dataclass(slots=True)
class Entry:
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
    """The longest of the first lines of the appended text: few places in a file hold it."""
    anchor_at: int = 0
    """Byte offset of `anchor` within the appended bytes."""
    git_head: str = ""
    """The git branch (or commit) checked out when it was appended: after a checkout of
    another branch the file legitimately lacks it, so it is only looked for on the same one."""

    def to_dict(self) -> dict[str, object]:
        return {f: getattr(self, f) for f in self.__slots__}


def normalise(text: str) -> str:
    """What an editor's save keeps: line endings and trailing whitespace may change."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip(" \t") for line in lines).strip("\n")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()


def _file() -> Path:
    return user_dir() / _NAME


def _read() -> list[Entry]:
    try:
        lines = _file().read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    entries: list[Entry] = []
    for line in lines[-KEEP:]:
        try:
            entries.append(Entry(**json.loads(line)))
        except (ValueError, TypeError):
            continue
    return entries


def _write(entries: list[Entry]) -> None:
    target = _file()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{_NAME}.", dir=target.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("".join(json.dumps(e.to_dict()) + "\n" for e in entries))
        os.replace(tmp, target)
    except OSError:
        pass  # no journal, no check: never a reason to fail a write


def record(path: Path, data: bytes, what: str) -> None:
    """Remember that `data` was appended to `path`."""
    norm = normalise(data.decode("utf-8", errors="replace"))
    now = time.time()
    entries = [e for e in _read() if now - e.when < MAX_AGE][-(KEEP - 1) :]
    raw = hashlib.sha256(data).hexdigest()
    lines = data[:4096].split(b"\n")[:12]
    anchor = max(lines, key=len).rstrip(b"\r") if lines else b""
    entries.append(
        Entry(
            str(path),
            norm[:120],
            len(norm),
            _digest(norm),
            now,
            what,
            len(data),
            raw,
            anchor.decode("utf-8", errors="replace"),
            data.find(anchor),
            git_head(path),
        )
    )
    _write(entries)


def missing(path: Path, read: Callable[[], bytes | mmap.mmap]) -> list[Entry]:
    """Recent appends to `path` that are no longer anywhere in its bytes (``read()``). Each
    is reported once (then forgotten)."""
    entries = _read()
    head = git_head(path)
    mine = [
        e
        for e in entries
        if e.path == str(path) and time.time() - e.when < MAX_AGE and e.git_head == head
    ]
    if not mine:
        return []
    data = read()
    norm: str | None = None
    gone = []
    for e in mine:
        if _contains_raw(data, e):
            continue
        if norm is None:
            norm = normalise(data[:].decode("utf-8", errors="replace"))
        if not _contains(norm, e):
            gone.append(e)
    if gone:
        drop = {id(e) for e in gone}
        _write([e for e in entries if id(e) not in drop])
    return gone


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


def _contains_raw(data: bytes | mmap.mmap, e: Entry) -> bool:
    """The fast path: the bytes are where they were written, untouched (C-speed search)."""
    anchor = e.anchor.encode("utf-8")
    if not e.raw_digest or not anchor:
        return False
    start = data.find(anchor)
    while start >= 0:
        begin = start - e.anchor_at
        digest = hashlib.sha256(data[max(begin, 0) : begin + e.raw_length]).hexdigest()
        if begin >= 0 and digest == e.raw_digest:
            return True
        start = data.find(anchor, start + 1)
    return False


def _contains(norm: str, e: Entry) -> bool:
    start = norm.find(e.head)
    while start >= 0:
        if _digest(norm[start : start + e.length]) == e.digest:
            return True
        start = norm.find(e.head, start + 1)
    return False
