"""The answers of one turn: those arriving while another is written go in one append."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.engine.turn import appending
from discussions.engine.turn.appending import GroupAppend
from discussions.errors import NotWritable
from discussions.model import storage

from ..support.waiting import wait_for


@pytest.fixture
def disc(isolated: Path) -> Path:
    assert CliRunner().invoke(cli, ["new", "Auth"]).exit_code == 0
    return isolated / "discussions" / "auth.md"


def comment(n: int) -> str:
    return f"Name: AI-Bench{n}\n\nAnswer number {n}.\n"


def queue_behind(group: GroupAppend, calls: list[threading.Thread]) -> None:
    """Start `calls` one after the other, each once the one before waits in the group's
    queue (so they queue in this order), while the first write is held."""
    for queued, t in enumerate(calls, start=1):
        t.start()
        wait_for(lambda n=queued: len(group._queue) == n, message=f"{queued} calls queued")


@pytest.mark.slow
def test_blocks_queued_during_a_write_go_together_and_in_order(
    disc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = storage.append

    def slow_append(path: Path, blocks: list[str], *, root: Path | None = None):  # type: ignore[no-untyped-def]
        calls.append(len(blocks))
        writing.set()
        assert release.wait(30)  # the others queue up meanwhile
        return real(path, blocks, root=root)

    writing, release = threading.Event(), threading.Event()

    monkeypatch.setattr(appending.storage, "append", slow_append)
    group = GroupAppend(disc, disc.parent.parent)
    returned: dict[int, bool] = {}

    def answer(n: int) -> None:
        group.append(comment(n))
        returned[n] = f"Answer number {n}." in disc.read_text()  # in the file on return

    first = threading.Thread(target=answer, args=(0,))
    first.start()
    assert writing.wait(30)
    others = [threading.Thread(target=answer, args=(n,)) for n in (1, 2, 3)]
    queue_behind(group, others)
    release.set()
    for t in [first, *others]:
        t.join(timeout=30)
    assert calls == [1, 3]
    assert returned == {0: True, 1: True, 2: True, 3: True}
    text = disc.read_text()
    positions = [text.index(f"Answer number {n}.") for n in range(4)]
    assert positions == sorted(positions)


@pytest.mark.slow
def test_a_failed_write_raises_in_every_call_it_held(
    disc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = storage.append
    failing = threading.Event()
    failing.set()

    def append(path: Path, blocks: list[str], *, root: Path | None = None):  # type: ignore[no-untyped-def]
        writing.set()
        assert release.wait(30)  # the others queue up meanwhile
        if failing.is_set() and len(blocks) > 1:
            raise NotWritable("disk full")
        return real(path, blocks, root=root)

    writing, release = threading.Event(), threading.Event()
    monkeypatch.setattr(appending.storage, "append", append)
    group = GroupAppend(disc, disc.parent.parent)
    errors: dict[int, str] = {}

    def answer(n: int) -> None:
        try:
            group.append(comment(n))
        except NotWritable as exc:
            errors[n] = str(exc)

    threads = [threading.Thread(target=answer, args=(n,)) for n in range(3)]
    threads[0].start()
    assert writing.wait(30)
    queue_behind(group, threads[1:])
    release.set()
    for t in threads:
        t.join(timeout=30)
    assert errors == {1: "disk full", 2: "disk full"}
    failing.clear()
    group.append(comment(9))  # the group writes again after a failure
    text = disc.read_text()
    assert "Answer number 0." in text and "Answer number 9." in text
    assert "Answer number 1." not in text


def test_held_blocks_go_first_and_answers_wait_for_them(disc: Path) -> None:
    """A round's block, held while the providers think: an answer that comes back before it
    is written waits, and goes into the file after it."""
    group = GroupAppend(disc, disc.parent.parent)
    group.hold(["<!-- ROUND: 1 -->\n"])
    answered = threading.Event()

    def answer() -> None:
        group.append(comment(1))
        answered.set()

    t = threading.Thread(target=answer)
    t.start()
    wait_for(lambda: len(group._queue) == 2, message="the answer queued behind the held block")
    assert not answered.is_set()  # held: nothing written yet
    assert "ROUND: 1" not in disc.read_text()
    group.release()
    group.release()  # once only
    t.join(timeout=30)
    text = disc.read_text()
    assert text.count("<!-- ROUND: 1 -->") == 1
    assert text.index("<!-- ROUND: 1 -->") < text.index("Answer number 1.")


def test_a_run_writes_each_round_block_before_its_answers(isolated: Path) -> None:
    assert CliRunner().invoke(cli, ["new", "Auth"]).exit_code == 0
    r = CliRunner().invoke(cli, ["run", "auth.md", "--rounds", "2", "--provider", "mock"])
    assert r.exit_code == 0, r.output
    text = (isolated / "discussions" / "auth.md").read_text()
    first, second = text.index("<!-- ROUND: 1"), text.index("<!-- ROUND: 2")
    names = ("Name: AI-Architect", "Name: AI-Security", "Name: AI-Pragmatist")
    for name in names:
        assert first < text.index(name, first) < second < text.index(name, second)
