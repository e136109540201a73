"""The cache of derived summaries (`model.filecache`) is never the source of truth: a file
changed behind it is read again, a corrupt or hostile cache file is ignored, and processes
writing it at the same time lose nothing."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import discussions
from discussions.atomic import replace_file
from discussions.model.filecache import Shelf
from discussions.settings.workspace import Workspace

from ..support.documents import discussion

SRC = str(Path(discussions.__file__).resolve().parents[1])
"""Where this test's `discussions` is imported from (the checkout's src, or site-packages
after a plain install, as in CI): the writers must run the same code, or their cache is
another version's (`filecache.context_of` digests the code)."""


def _reader(seen: list[str]):  # type: ignore[no-untyped-def]
    def derive(path: Path) -> str:
        seen.append(path.name)
        return path.read_text(encoding="utf-8")

    return derive


def _at_rest(path: Path) -> None:
    """Date the file an hour back: no longer changing, as most files of a folder are."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 3600 * 10**9))


def _changing(path: Path) -> None:
    """Date the file a minute ahead: still within the window in which a rewrite may keep its
    signature (as a file written a clock tick ago is, without depending on how fast the test
    runs on a loaded machine)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, time.time_ns() + 60 * 10**9))


def test_a_file_changed_behind_the_cache_is_read_again(isolated: Path) -> None:
    folder = isolated / "discussions"
    folder.mkdir()
    fresh, old = folder / "fresh.md", folder / "old.md"
    fresh.write_text("version A", encoding="utf-8")
    old.write_text("first", encoding="utf-8")
    _changing(fresh)
    _at_rest(old)
    ws = Workspace.discover()
    seen: list[str] = []
    shelf: Shelf[str] = Shelf("test")
    with shelf.batch(ws, folder) as b:
        assert [b.get(fresh, _reader(seen)), b.get(old, _reader(seen))] == ["version A", "first"]
        assert b.get(old, _reader(seen)) == "first" and seen == ["fresh.md", "old.md"]
    # Rewritten in place to the same length with the same modification time: the signature
    # (size, mtime_ns, inode) is unchanged, but the file was derived while it could still
    # change unseen, so its text decides.
    st = fresh.stat()
    fresh.write_text("version B", encoding="utf-8")
    os.utime(fresh, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert fresh.stat().st_ino == st.st_ino and fresh.stat().st_size == st.st_size
    with shelf.batch(ws, folder) as b:
        assert b.get(fresh, _reader(seen)) == "version B"
    # Another process (a new shelf: only the cache file is shared) trusts nothing stale.
    with old.open("a", encoding="utf-8") as f:
        f.write(", then more")
    again: list[str] = []
    with Shelf[str]("test").batch(ws, folder) as b:
        assert b.get(old, _reader(again)) == "first, then more"
        assert b.get(fresh, _reader(again)) == "version B"
    assert again == ["old.md"]  # fresh.md came from the cache file, checked by its digest


def test_a_corrupt_or_hostile_cache_file_is_ignored(isolated: Path) -> None:
    folder = isolated / "discussions"
    folder.mkdir()
    path = folder / "a.md"
    path.write_text("text", encoding="utf-8")
    ws = Workspace.discover()
    shelf: Shelf[str] = Shelf("test")
    cache_file = shelf.file_for(str(folder.absolute()))
    cache_file.parent.mkdir(parents=True)
    cache_file.write_bytes(b"\x80\x05 not a pickle at all")
    seen: list[str] = []
    with shelf.batch(ws, folder) as b:
        assert b.get(path, _reader(seen)) == "text"
    assert seen == ["a.md"]
    assert pickle.loads(cache_file.read_bytes())["entries"].keys() == {"a.md"}  # rewritten

    marker = isolated / "ran"

    class Hostile:
        def __reduce__(self):  # type: ignore[no-untyped-def]
            return (os.system, (f"touch {marker}",))

    class Ours:  # a function of the package is code too
        def __reduce__(self):  # type: ignore[no-untyped-def]
            return (replace_file, (marker, "written"))

    for hostile in (Hostile(), Ours()):
        payload = {"format": 1, "context": "x", "entries": hostile}
        cache_file.write_bytes(pickle.dumps(payload))
        with Shelf[str]("test").batch(ws, folder) as b:
            assert b.get(path, _reader(seen)) == "text"
    assert seen == ["a.md", "a.md", "a.md"] and not marker.exists()


_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from discussions.model.filecache import Shelf
    from discussions.settings.workspace import Workspace

    folder, prefix, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    ws = Workspace.discover()
    shelf = Shelf("test")
    sys.stdout.write("ready\\n")
    sys.stdout.flush()
    sys.stdin.readline()  # both start writing together
    for r in range(rounds):
        with shelf.batch(ws, folder) as b:
            b.get(folder / f"{prefix}{r}.md", lambda p: p.read_text(encoding="utf-8"))
    """
)


@pytest.mark.slow
def test_two_processes_writing_the_cache_at_once_lose_nothing(isolated: Path) -> None:
    folder = isolated / "discussions"
    folder.mkdir()
    rounds = 40
    for prefix in ("a", "b"):
        for r in range(rounds):
            (folder / f"{prefix}{r}.md").write_text(f"{prefix} {r}", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": SRC}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(folder), prefix, str(rounds)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        for prefix in ("a", "b")
    ]
    for w in writers:
        assert w.stdout is not None and w.stdout.readline() == "ready\n"
    for w in writers:
        assert w.stdin is not None
        w.stdin.write("go\n")
        w.stdin.flush()
    for w in writers:
        assert w.wait(timeout=120) == 0
        assert w.stdin is not None and w.stdout is not None
        w.stdin.close()
        w.stdout.close()
    stored = pickle.loads(Shelf("test").file_for(str(folder.absolute())).read_bytes())
    expected = {f"{p}{r}.md" for p in ("a", "b") for r in range(rounds)}
    assert set(stored["entries"]) == expected
    seen: list[str] = []
    with Shelf[str]("test").batch(Workspace.discover(), folder) as b:
        assert b.get(folder / "b7.md", _reader(seen)) == "b 7"
    assert seen == []  # served from the file both wrote


@pytest.mark.slow
def test_list_in_a_new_process_shows_a_file_changed_since_the_last(isolated: Path) -> None:
    folder = isolated / "discussions"
    discussion(folder, "one.md", "One", comments=(("Rob", "Hello."),))
    path = discussion(folder, "two.md", "Two", status="OPEN")
    _changing(path)
    env = {**os.environ, "PYTHONPATH": SRC}

    def listed() -> list[tuple[str, str, int]]:
        done = subprocess.run(
            [sys.executable, "-m", "discussions", "list", "--json"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=120,
        )
        return [(r["title"], r["status"], r["comments"]) for r in json.loads(done.stdout)]

    first = listed()
    assert first == [("One", "OPEN", 1), ("Two", "OPEN", 0)]
    assert listed() == first  # warm: from the cache file
    st = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace("Two", "Owt"), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, time and inode
    assert listed() == [("One", "OPEN", 1), ("Owt", "OPEN", 0)]
