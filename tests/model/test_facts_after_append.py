"""The facts of a file after this process appended to it (`filefacts.remember`): told from
the bytes checked under the lock and the bytes written, not from another pass over the file,
and the same as a fresh reading; any change to the file since is read afresh (issue 36)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from discussions import Discussion
from discussions.errors import NotWritable, ReservedName
from discussions.model import filefacts
from discussions.ops.comments import comment
from discussions.settings.config import user_cache_dir
from discussions.settings.workspace import Workspace

HEADER = "<!-- DISCUSSION -->\n<!-- Participants: architect -->\n\n# D\n\n"
SIGNED = "---\n\nName: AI-Architect\n\n<!-- provider: x -->\n\nPlan.\n\n"


def _file(isolated: Path, comments: int = 5) -> Path:
    path = isolated / "discussions" / "d.md"
    path.parent.mkdir()
    people = "".join(f"---\n\nName: P{i}\n\nThought {i}.\n\n" for i in range(comments))
    path.write_text(HEADER + SIGNED + people, encoding="utf-8")
    return path


def _fresh(path: Path) -> filefacts.Facts:
    """The facts of the file read and checked now, nothing taken from what was remembered."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return filefacts.facts_of_file(path.resolve(), fd)
    finally:
        os.close(fd)


def _remembered(path: Path) -> filefacts.Facts:
    fd = os.open(path, os.O_RDONLY)
    try:
        return filefacts.facts_of_file(path.resolve(), fd, ours=True)
    finally:
        os.close(fd)


def _count(path: Path) -> int:
    return len(Discussion.load(path).comments)


@pytest.mark.parametrize("cached", [True, False], ids=["summary kept", "no summary kept"])
def test_the_facts_after_an_append_are_those_of_a_fresh_reading(
    isolated: Path, cached: bool
) -> None:
    path = _file(isolated)
    ws = Workspace.discover()
    for text in ["One.", "```\n---\n\nName: Fake\n```", "Three.\n\n---", "<<<<<<< x"]:
        if not cached:
            shutil.rmtree(user_cache_dir() / "facts", ignore_errors=True)
        comment(ws, path, "Rob", text)
        remembered = _remembered(path)
        assert remembered == _fresh(path)
        assert remembered.comments.count == _count(path)


def test_a_comment_checks_the_whole_file_once_under_the_lock(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The author's name and the append's safety checks are checked on one reading under the
    lock; the count takes its facts and the bytes written."""
    path = _file(isolated)
    ws = Workspace.discover()
    comment(ws, path, "Rob", "Warm.")
    passes: list[str] = []

    def counted(what: str, real: Callable[..., int]) -> Callable[..., int]:
        def crc(*args: object) -> int:
            passes.append(what)
            return real(*args)

        return crc

    monkeypatch.setattr(filefacts, "_file_crc", counted("read", filefacts._file_crc))
    monkeypatch.setattr(filefacts, "_crc", counted("mapped", filefacts._crc))
    posted = comment(ws, path, "Rob", "Counted.")
    assert passes == ["mapped"]
    assert posted.comments == _count(path) == 8


def _append_unlocked(path: Path) -> None:
    with path.open("a", encoding="utf-8") as f:  # `>>`: no lock taken
        f.write("---\n\nName: Other\n\nBy hand.\n\n")


def _replace(path: Path) -> None:
    """An editor saving by renaming a new file into place: one comment less."""
    new = path.with_suffix(".new")
    new.write_text(HEADER + SIGNED + "---\n\nName: P0\n\nThought 0.\n\n", encoding="utf-8")
    os.replace(new, path)


def _rewrite_in_place(path: Path) -> None:
    """A write in place of the same size that takes a comment away (``Name:`` to ``Nome:``),
    at a later time (as a write after ours is stamped)."""
    data = path.read_bytes()
    at = data.rindex(b"Name: P")
    with path.open("r+b") as f:
        f.write(data[:at] + b"Nome" + data[at + 4 :])
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


CHANGES: dict[str, Callable[[Path], None]] = {
    "appended without the lock": _append_unlocked,
    "replaced by a new file": _replace,
    "rewritten in place": _rewrite_in_place,
}


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
def test_a_file_changed_between_the_append_and_the_count_is_counted_as_it_is(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    path = _file(isolated)
    ws = Workspace.discover()
    comment(ws, path, "Rob", "Warm.")
    saved = Discussion.save

    def save_then_change(d: Discussion, *, signed_by: str | None = None) -> None:
        saved(d, signed_by=signed_by)
        CHANGES[change](path)

    monkeypatch.setattr(Discussion, "save", save_then_change)
    posted = comment(ws, path, "Rob", "Then changed.")
    assert posted.comments == _count(path) == _fresh(path).comments.count
    assert _remembered(path) == _fresh(path)


def test_an_append_that_fails_leaves_nothing_remembered(isolated: Path) -> None:
    """A refused append (conflict lines) writes nothing and remembers nothing for the file."""
    path = _file(isolated)
    comment(Workspace.discover(), path, "Rob", "Fine.")
    with path.open("a", encoding="utf-8") as f:
        f.write("<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\n")
    with pytest.raises(NotWritable):
        comment(Workspace.discover(), path, "Rob", "Refused.")
    assert _remembered(path) == _fresh(path)


def test_a_name_that_spoke_as_an_ai_meanwhile_is_refused_and_nothing_written(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The name is checked against the file as it is under the lock: an AI that spoke between
    the comment's making and its writing has its name refused all the same."""
    path = _file(isolated)
    ws = Workspace.discover()
    comment(ws, path, "Rob", "Warm.")
    queue = Discussion.add_block

    def speak_then_queue(d: Discussion, block: str) -> None:
        with path.open("a", encoding="utf-8") as f:
            f.write("---\n\nName: AI-Oracle\n\n<!-- provider: x -->\n\nMeanwhile.\n\n")
        queue(d, block)

    monkeypatch.setattr(Discussion, "add_block", speak_then_queue)
    before = path.read_bytes()
    with pytest.raises(ReservedName):
        comment(ws, path, "AI-Oracle", "Me too.")
    assert path.read_bytes().startswith(before)
    assert b"Me too." not in path.read_bytes()


def test_the_name_is_refused_before_the_conflict_lines(isolated: Path) -> None:
    """As before the check moved under the lock: a name that spoke as an AI is what a person
    is told first, on a file with conflict lines too; nothing is written."""
    path = _file(isolated)
    with path.open("a", encoding="utf-8") as f:
        f.write("<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\n")
    before = path.read_bytes()
    with pytest.raises(ReservedName):
        comment(Workspace.discover(), path, "AI-Architect", "Me.")
    with pytest.raises(NotWritable):
        comment(Workspace.discover(), path, "Rob", "Me.")
    assert path.read_bytes() == before


def _oracle_spoke(path: Path) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write("---\n\nName: AI-Oracle\n\n<!-- provider: x -->\n\nOk.\n\n")


def test_a_name_that_spoke_as_an_ai_is_refused_before_a_bad_vote(isolated: Path) -> None:
    path = _file(isolated)
    _oracle_spoke(path)
    with pytest.raises(ReservedName):
        comment(Workspace.discover(), path, "AI-Oracle", "Me.", vote="maybe")
    with pytest.raises(ReservedName):
        comment(Workspace.discover(), path, "AI-Oracle", "", vote="maybe")


def test_a_name_that_spoke_as_an_ai_is_refused_before_a_link_out_of_the_project(
    isolated: Path,
) -> None:
    """The append refuses to write through the link before it reads the file under the lock:
    the name is what the person is told, as when it was checked before the lock."""
    outside = _file(isolated.parent)
    _oracle_spoke(outside)
    (isolated / "discussions").mkdir()
    link = isolated / "discussions" / "d.md"
    link.symlink_to(outside)
    ws = Workspace.discover()
    with pytest.raises(ReservedName):
        comment(ws, link, "AI-Oracle", "Me.")
    with pytest.raises(NotWritable):
        comment(ws, link, "Rob", "Me.")
