"""The cache of what is derived from each discussion file of a folder: the one place the
listings (`catalog.list_discussions`, the TUI's browser, the web list page, the LSP's
workspace symbols) and the ledger commands (`ledger.scan`, `memory.read_folder`) keep what
they derived, so a folder of a thousand discussions is derived once per change, not once per
request or per command.

A `Shelf` holds one kind of summary (a listing row, a file's decisions, its memory). Each entry
is keyed by the file's absolute path and checked, on every use, against the file's signature
(size, modification time in nanoseconds, inode: an append changes the size, an editor's save
the inode) and against the context it was derived in (`context_of`: the package's code and
the project's settings, personas and templates). A stale entry is recomputed, never trusted;
an entry whose file changed while it was derived is used once but not kept. A file changed
less than `_RACY_NS` before it was derived may change again without its signature changing
(timestamps are coarse: a clock tick on Linux, two seconds elsewhere; a rewrite of the same
length keeps the size and the inode), so its entry also keeps a digest of the text it was
derived from and is used only while the text still has that digest (git's "racily clean"
rule); once the file is older than that, the digest is dropped.

Within a process the entries live in memory. Between processes (the CLI's warm runs) each
shelf keeps one file per folder in the user's cache folder (``$XDG_CACHE_HOME/discussions``,
`config.user_cache_dir`), ``derived/<kind>-<digest of the folder>.pickle``. It is rebuildable
and never the source of truth: a missing, corrupt, foreign or unreadable file is ignored; it
is written atomically (`atomic.replace_file`) under an exclusive lock on a side file, after
merging what is on disk, so two processes writing at once lose nothing; it is read through an
unpickler that builds only the package's own records and plain values.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import stat
import threading
import time
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..atomic import replace_file
from ..errors import DiscussionsError
from ..settings.config import user_cache_dir
from ..syntax.digest import sha256_hex

if TYPE_CHECKING:
    from ..settings.workspace import Workspace

__all__ = ["Batch", "Shelf", "context_of", "signature"]

T = TypeVar("T")
_Signature = tuple[int, int, int]
_Entry = tuple[_Signature, bytes | None, Any]
"""(the file's signature, the digest of its text when it was racy, the derived value)."""
_RACY_NS = 3_000_000_000
_FORMAT = 1
"""The layout of a cache file; another one is ignored."""
_LIMIT = 20_000
"""Entries a shelf keeps in memory before it starts again (a long-lived server)."""
_PLAIN = frozenset(
    {"frozenset", "set", "tuple", "list", "dict", "str", "int", "float", "bool", "bytes"}
)


def signature(path: Path | str) -> _Signature | None:
    """(size, modification time in ns, inode) of the file at `path`; None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


def _racy(sig: _Signature, now: int) -> bool:
    """Whether a file with `sig` may yet change without its signature changing."""
    return sig[1] + _RACY_NS > now


def _digest(path: Path) -> bytes | None:
    """A digest of the file's bytes (None when it cannot be read)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return bytes.fromhex(sha256_hex(data))


_DERIVING = ("model", "derive", "settings", "syntax")
"""The packages whose code a summary is derived by: the shelves' users are in `model`, which
may import only these (and the package's top-level modules): pyproject's layers contract,
checked by tests/test_architecture.py."""


@cache
def _code_stamp() -> str:
    """A digest of the source files the summaries are derived by (name, size, modification
    time): derived summaries from another version of that code are not used. The interfaces,
    the engine and the providers are left out: stamping them cost every turn ~2 ms before its
    first call, and no summary depends on them."""
    root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    parts = [_stamp(root, os.listdir(root))]
    for package in _DERIVING:
        for folder, dirs, files in os.walk(os.path.join(root, package)):
            dirs.sort()
            parts.append(_stamp(folder, files))
    return sha256_hex("".join(parts).encode())


def _stamp(folder: str, names: list[str]) -> str:
    """The names, sizes and modification times of the Python files among `names` in
    `folder`, in name order."""
    stamps = []
    for name in sorted(n for n in names if n.endswith(".py")):
        st = os.stat(os.path.join(folder, name))
        stamps.append(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns};")
    return "".join(stamps)


def context_of(workspace: Workspace) -> str:
    """A digest of everything a file's derivation depends on besides the file: the code, the
    settings as loaded, and the persona and template files (names and signatures)."""
    config = workspace.config
    parts = [
        _code_stamp(),
        repr((str(config.base_dir), sorted(map(str, config.sources)))),
        repr(sorted((str(k), repr(v)) for k, v in config.settings.items())),
    ]
    for kind in ("participants", "templates"):
        for folder in workspace.folders(kind):
            parts.append(f"{kind}:{folder}:{_listing(folder)};")
    # one digest of the parts joined (no hashlib: it loads OpenSSL before a turn's first call)
    return sha256_hex("\0".join(parts).encode())


def _listing(folder: Path) -> str:
    """The names and signatures of the entries of `folder` ("" when it cannot be listed)."""
    try:
        with os.scandir(folder) as it:
            entries = sorted((e.name, signature(e.path)) for e in it)
    except OSError:
        return ""
    return repr(entries)


class Shelf(Generic[T]):
    """The entries of one `kind` of derived summary, in memory and on disk. Thread-safe;
    entries are shared, so a value put on a shelf must not be changed afterwards."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._lock = threading.Lock()
        self._memory: dict[tuple[str, str], _Entry] = {}
        """(context, absolute path) -> entry."""
        self._loaded: set[tuple[str, str]] = set()

    def clear(self) -> None:
        """Forget every entry held in memory (the files on disk are read again when next
        needed)."""
        with self._lock:
            self._memory.clear()
            self._loaded.clear()

    @contextlib.contextmanager
    def batch(self, workspace: Workspace, folder: Path) -> Iterator[Batch[T]]:
        """Entries of the files of `folder`, derived in `workspace`'s context; what was derived
        meanwhile is written to the cache file when the batch ends (never raises for that)."""
        b = Batch(self, os.path.abspath(folder), context_of(workspace))
        self._load(b.folder, b.context)
        try:
            yield b
        finally:
            file = self._file(b.folder) if b.fresh else None
            if file is not None:
                _save(file, b.folder, b.context, b.fresh)

    def file_for(self, folder: str) -> Path:
        """The cache file of `folder` for this shelf."""
        digest = sha256_hex(os.fsencode(folder))[:20]
        return user_cache_dir() / "derived" / f"{self.kind}-{digest}.pickle"

    def _file(self, folder: str) -> Path | None:
        """`file_for`, or None when there is no home folder to keep a cache in."""
        try:
            return self.file_for(folder)
        except RuntimeError:  # no HOME, and none in the password database
            return None

    def _load(self, folder: str, context: str) -> None:
        with self._lock:
            if (folder, context) in self._loaded:
                return
            self._loaded.add((folder, context))
        file = self._file(folder)
        entries = _read(file, context) if file is not None else {}
        with self._lock:
            for name, entry in entries.items():
                self._memory.setdefault((context, os.path.join(folder, name)), entry)

    def get(self, key: tuple[str, str]) -> _Entry | None:
        with self._lock:
            return self._memory.get(key)

    def put(self, key: tuple[str, str], entry: _Entry) -> None:
        with self._lock:
            if len(self._memory) > _LIMIT:
                self._memory.clear()
            self._memory[key] = entry


class Batch(Generic[T]):
    """One use of a shelf for the files of one folder (see `Shelf.batch`)."""

    def __init__(self, shelf: Shelf[T], folder: str, context: str) -> None:
        self.shelf = shelf
        self.folder = folder
        self.context = context
        self.fresh: dict[str, _Entry] = {}
        """Entries derived in this batch, by file name, to be written to disk."""

    def peek(self, path: Path) -> tuple[bool, T | None]:
        """(True, the entry) when `path` has an entry that is still valid, else (False, None)."""
        sig = signature(path)
        key = self._key(path)
        hit = self.shelf.get(key)
        if sig is None or hit is None or hit[0] != sig:
            return False, None
        if hit[1] is not None:  # racy when derived: the text decides
            if _digest(path) != hit[1]:
                return False, None
            if not _racy(sig, time.time_ns()):
                self._keep(key, (sig, None, hit[2]))
        return True, hit[2]

    def get(self, path: Path, derive: Callable[[Path], T]) -> T:
        """The entry of `path`, or `derive(path)` kept as its entry when the file did not
        change while it was derived. An exception from `derive` is not kept."""
        found, value = self.peek(path)
        if found:
            return value  # type: ignore[return-value]
        now = time.time_ns()
        before = signature(path)
        digest = _digest(path) if before is not None and _racy(before, now) else None
        result = derive(path)
        if before is not None and signature(path) == before:
            self._keep(self._key(path), (before, digest, result))
        return result

    def _keep(self, key: tuple[str, str], entry: _Entry) -> None:
        self.shelf.put(key, entry)
        if os.path.dirname(key[1]) == self.folder:
            self.fresh[os.path.basename(key[1])] = entry

    def _key(self, path: Path) -> tuple[str, str]:
        return self.context, os.path.abspath(path)


# --------------------------------------------------------------------------- the file on disk


_MODULES = ("discussions.syntax.", "discussions.settings.", "discussions.derive.")
"""Where the records a cache file holds are defined (and ``discussions.model.``)."""


class _Unpickler(pickle.Unpickler):
    """Builds the classes of the package's records, paths, times and plain values, nothing
    else (no function, no other module): a cache file is data, never code."""

    def find_class(self, module: str, name: str) -> Any:
        ours = module.startswith((*_MODULES, "discussions.model."))
        allowed = (
            ours or module in ("pathlib", "datetime") or (module == "builtins" and name in _PLAIN)
        )
        found = super().find_class(module, name) if allowed else None
        if not isinstance(found, type):
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache file")
        return found


def _read(file: Path, context: str) -> dict[str, _Entry]:
    """The entries of the cache `file` derived in `context`; empty when it is missing,
    corrupt, of another layout or context, or not the user's own (owned by someone else or
    writable by others)."""
    try:
        with open(file, "rb") as f:
            st = os.fstat(f.fileno())
            if st.st_uid != os.getuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return {}
            data = _Unpickler(io.BytesIO(f.read())).load()
    except Exception:  # noqa: BLE001 - a cache file that cannot be used is ignored
        return {}
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return {}
    entries = data.get("entries")
    if data.get("context") != context or not isinstance(entries, dict):
        return {}
    return {k: v for k, v in entries.items() if _well_formed(k, v)}


def _well_formed(name: object, entry: object) -> bool:
    return (
        isinstance(name, str)
        and isinstance(entry, tuple)
        and len(entry) == 3
        and (entry[1] is None or isinstance(entry[1], bytes))
        and isinstance(entry[0], tuple)
        and len(entry[0]) == 3
        and all(isinstance(n, int) for n in entry[0])
    )


def _save(file: Path, folder: str, context: str, fresh: dict[str, _Entry]) -> None:
    """Merge `fresh` into the cache `file` of `folder` (under its lock; entries of files gone
    from `folder` left out) and write it atomically. A cache that cannot be written is left
    as it is."""
    try:
        file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with _locked(file.with_suffix(".lock")):
            entries = _read(file, context)
            entries.update(fresh)
            kept = {k: v for k, v in entries.items() if os.path.lexists(os.path.join(folder, k))}
            payload = {"format": _FORMAT, "context": context, "entries": kept}
            data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
            replace_file(file, data, mode=0o600, durable=False)
    except (OSError, DiscussionsError, pickle.PicklingError, TypeError, AttributeError):
        return


@contextlib.contextmanager
def _locked(lock: Path) -> Iterator[None]:
    """An exclusive lock on the file `lock` (created), held for the block: writers of one
    cache file take turns. Where there is no ``fcntl`` (Windows) the write is still atomic."""
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            yield
            return
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
