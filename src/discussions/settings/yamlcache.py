"""The YAML documents parsed by earlier runs, so that a command's start neither parses nor even
imports YAML (``import yaml`` alone is ~8 ms, a tenth of a turn's start) for the settings,
personas and templates that did not change since.

Entries are keyed by a document's whole text, not by its file: a file whose text changed is
parsed again whatever its timestamps say (no stale entry can be found for it: it has another
key), and two files with the same text share one entry. The text is read anyway (`config`
checks its size and encoding first), so a lookup costs one dictionary probe. Only documents
that parsed without error are kept, and only those whose values `marshal` can hold (plain
data: a YAML date is parsed every time); each lookup unpacks a fresh copy, so a caller may
change what it got.

The cache lives in one file of the user's cache folder per installation (``yaml/``), read
once per process and written back at exit when something was added; only the user may write
it (a file another user owns, or could change, is not read). It is rebuildable and never
the source of truth: a missing, corrupt or foreign file, or one written by another version of
the parsing code (`stamp`), is ignored; it is replaced atomically, after merging what another
process wrote meanwhile; an error writing it is ignored.
"""

from __future__ import annotations

import atexit
import marshal
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..atomic import replace_file
from ..errors import DiscussionsError

__all__ = ["DocumentCache", "Parsed"]

Parsed = tuple[Any, dict[tuple[str | int, ...], int]]
"""A document's data and the line of each key path (`config.YamlDocument`)."""
_FORMAT = 1
"""The layout of the cache file; another one is ignored."""
_LIMIT = 2_000
"""Entries kept in memory; a long-lived process reading ever-new texts starts again past it."""
_MAX_BYTES = 1 << 20
"""Size of the cache file past which only the entries this process used or added are written
back (each file's old versions would otherwise pile up, and the file is read at every start)."""


class DocumentCache:
    """Parsed documents by text, in memory and in the file `locate` names (None: no cache
    file, e.g. no home folder), valid for the parsing code `stamp` describes."""

    def __init__(self, locate: Callable[[], Path | None], stamp: Callable[[], str]) -> None:
        self._locate = locate
        self._stamp = stamp
        self._lock = threading.Lock()
        self._entries: dict[str, bytes] | None = None
        self._file: Path | None = None
        self._used: set[str] = set()
        self._added = False

    def get(self, text: str) -> Parsed | None:
        """A fresh copy of what `text` parsed to, or None when it is not kept."""
        entries = self._load()
        packed = entries.get(text)
        if packed is None:
            return None
        self._used.add(text)
        return _unpack(packed)

    def put(self, text: str, parsed: Parsed) -> None:
        """Keep what `text` parsed to (not when marshal cannot hold its values)."""
        try:
            packed = marshal.dumps(parsed)
        except ValueError:  # a date, or another value marshal does not know
            return
        entries = self._load()
        with self._lock:
            if len(entries) >= _LIMIT:  # a long-lived server reading ever-new texts
                entries.clear()
            entries[text] = packed
            self._used.add(text)
            if not self._added:
                self._added = True
                atexit.register(self.save)

    def save(self) -> None:
        """Write the entries to the cache file, merged with what is there now; never raises
        (the cache is only ever a shortcut)."""
        with self._lock:
            if not self._added or self._file is None or self._entries is None:
                return
            self._added = False
            ours = dict(self._entries)
            used = set(self._used)
        merged = {**_read(self._file, self._stamp()), **ours}
        if sum(len(text) + len(packed) for text, packed in merged.items()) > _MAX_BYTES:
            merged = {text: packed for text, packed in merged.items() if text in used}
        payload = marshal.dumps({"format": _FORMAT, "stamp": self._stamp(), "entries": merged})
        try:
            self._file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            replace_file(self._file, payload, new_mode=0o600, durable=False)
        except (DiscussionsError, OSError):
            return

    def _load(self) -> dict[str, bytes]:
        with self._lock:
            if self._entries is None:
                self._file = _located(self._locate)
                self._entries = _read(self._file, self._stamp()) if self._file else {}
            return self._entries


def _located(locate: Callable[[], Path | None]) -> Path | None:
    try:
        return locate()
    except RuntimeError:  # no HOME, and none in the password database
        return None


def _read(file: Path, stamp: str) -> dict[str, bytes]:
    """The entries in `file` when it is a cache file of this format and `stamp`, and the
    user's own (what it holds stands for their settings: a file someone else wrote, or could
    write, is not used), else none."""
    try:
        with open(file, "rb") as f:
            st = os.fstat(f.fileno())
            if st.st_uid != os.getuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return {}
            found = marshal.load(f)
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if (
        not isinstance(found, dict)
        or found.get("format") != _FORMAT
        or found.get("stamp") != stamp
        or not isinstance(found.get("entries"), dict)
    ):
        return {}
    entries: dict[str, bytes] = found["entries"]
    return {k: v for k, v in entries.items() if isinstance(k, str) and isinstance(v, bytes)}


def _unpack(packed: bytes) -> Parsed | None:
    try:
        parsed = marshal.loads(packed)
    except (ValueError, EOFError, TypeError):
        return None
    if isinstance(parsed, tuple) and len(parsed) == 2 and isinstance(parsed[1], dict):
        return parsed
    return None


def file_stamp(*paths: str | None) -> str:
    """The names, sizes and modification times of `paths` (None or a missing file: a dash):
    a stamp of the code a document is parsed by."""
    parts = []
    for path in paths:
        try:
            st = os.stat(path) if path else None
        except OSError:
            st = None
        parts.append(f"{path}:{st.st_size}:{st.st_mtime_ns}" if st else f"{path}:-")
    return ";".join(parts)
