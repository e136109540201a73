"""Appends that do not survive: cut short by SIGKILL, or saved over by an editor. Real
processes: the CLI in subprocesses, an editor as a script that rewrites the file from an
older copy while appends happen. Every loss is reported, by the next append or `check`."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ..conftest import code, out, run


def cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "discussions", *args],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _popen(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "discussions", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _kill_during_write(path: Path, big: bytes) -> int:
    """Start `comment -` with `big`, SIGKILL it as soon as the file grows; bytes written."""
    before = path.stat().st_size
    proc = _popen("comment", str(path), "-", "--author", "Rob")
    assert proc.stdin is not None
    stdin = proc.stdin
    feeder = threading.Thread(target=lambda: (stdin.write(big), stdin.close()), daemon=True)
    feeder.start()
    deadline = time.monotonic() + 120
    while path.stat().st_size == before and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.0002)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    feeder.join(5)
    return path.stat().st_size - before


@pytest.mark.slow
def test_a_comment_cut_short_by_sigkill_is_reported(isolated: Path) -> None:
    assert code(run("new", "Killed")) == 0
    path = isolated / "discussions" / "killed.md"
    # 50 MB in long paragraphs (neutralising it takes about a second).
    big = (("lorem ipsum dolor sit amet " * 1000).encode() + b"\n\n") * 1850
    written = 0
    for _ in range(3):  # the kill can come after the last byte: then try again
        written = _kill_during_write(path, big)
        if 0 < written < len(big):
            break
    assert 0 < written < len(big), f"the kill never landed during the write ({written} bytes)"
    checked = cli("check", str(path))
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert re.search(
        r"a comment by Rob that discussions was appending to killed\.md at "
        r"\S+ was cut short .* at line \d+",
        checked.stdout,
    ), checked.stdout
    # Reported once; the next append carries on after the torn part.
    again = cli("comment", str(path), "after the kill", "--author", "Ann")
    assert again.returncode == 0
    assert "cut short" not in again.stdout + again.stderr


@pytest.mark.slow
def test_the_next_append_reports_a_cut_short_write(isolated: Path) -> None:
    assert code(run("new", "Torn")) == 0
    path = isolated / "discussions" / "torn.md"
    big = (("x" * 20000).encode() + b"\n\n") * 2500
    for _ in range(3):
        written = _kill_during_write(path, big)
        if 0 < written < len(big):
            break
    done = cli("comment", str(path), "next", "--author", "Ann")
    assert done.returncode == 0
    assert "was cut short" in done.stderr, done.stderr


def test_a_lost_copy_of_a_repeated_comment_is_reported(isolated: Path) -> None:
    assert code(run("new", "Twice")) == 0
    path = isolated / "discussions" / "twice.md"
    assert code(run("comment", str(path), "+1", "--author", "Rob")) == 0
    stale = path.read_bytes()  # the editor's buffer holds the first "+1"
    assert code(run("comment", str(path), "+1", "--author", "Rob")) == 0
    path.write_bytes(stale)  # saved over the second one
    r = run("check", str(path))
    assert code(r) == 1
    assert out(r).count("a comment by Rob that discussions appended") == 1, out(r)


def test_check_reports_an_append_an_editor_saved_over(isolated: Path) -> None:
    assert code(run("new", "Checked")) == 0
    path = isolated / "discussions" / "checked.md"
    stale = path.read_bytes()
    assert code(run("comment", str(path), "mine", "--author", "Rob")) == 0
    path.write_bytes(stale)
    r = run("check", str(path))
    assert code(r) == 1 and "no longer in the file" in out(r)
    assert code(run("check", str(path))) == 0  # reported once


EDITOR = r"""
import os, random, sys, time
path, stop = sys.argv[1], sys.argv[2]
random.seed(int(sys.argv[3]))
old = open(path, "rb").read()
while not os.path.exists(stop):
    if random.random() < 0.5:
        old = open(path, "rb").read()  # the editor reloads now and then
    time.sleep(random.uniform(0.05, 0.4))
    tmp = path + ".swp"
    with open(tmp, "wb") as f:
        f.write(old)
    os.replace(tmp, path)  # saved the way editors do: a new file renamed into place
"""


@pytest.mark.slow
def test_every_comment_an_editor_saved_over_is_reported(isolated: Path) -> None:
    assert code(run("new", "Busy")) == 0
    assert code(run("new", "Other")) == 0  # appended to at the same time, by other people
    path = isolated / "discussions" / "busy.md"
    stop = isolated / "stop"
    editor = subprocess.Popen([sys.executable, "-c", EDITOR, str(path), str(stop), "4"])
    said: list[str] = []
    procs = []
    for i in range(24):
        for target, author in ((path, f"P{i}"), (path.with_name("other.md"), f"O{i}")):
            p = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "discussions",
                    "comment",
                    str(target),
                    f"comment number {i}",
                    "--author",
                    author,
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            procs.append(p)
        time.sleep(0.05)  # the scenario's pace (not a wait): comments land among the saves
    for p in procs:
        said.append(p.communicate(timeout=120)[0])
    stop.touch()
    editor.wait(10)
    final = cli("comment", str(path), "final", "--author", "Z")
    said.append(final.stdout + final.stderr)
    checked = cli("check", str(path))
    said.append(checked.stdout + checked.stderr)
    text = path.read_text(encoding="utf-8")
    lost = {i for i in range(24) if f"comment number {i}\n" not in text}
    reported = {int(n) for n in re.findall(r"a comment by P(\d+) that", "".join(said))}
    assert lost <= reported, f"lost {sorted(lost)}, reported {sorted(reported)}"
    assert reported <= lost


JOURNAL_WRITER = r"""
import sys
from pathlib import Path
from discussions.model import journal
n, rounds = int(sys.argv[1]), int(sys.argv[2])
for i in range(rounds):
    data = f"\nName: W{n}\n\nentry {i}\n\n---\n".encode()
    journal.finish(journal.begin(Path(f"/nowhere/{n}.md"), data, f"entry {n}.{i}", 0))
"""


@pytest.mark.slow
def test_processes_appending_at_once_never_drop_each_others_journal_entries(
    isolated: Path,
) -> None:
    # Appends to different files (or to an old and a new copy of one file an editor just
    # renamed into place) run at the same time; each must find its entry in the journal.
    procs = [
        subprocess.Popen([sys.executable, "-c", JOURNAL_WRITER, str(n), "20"]) for n in range(6)
    ]
    assert all(p.wait(120) == 0 for p in procs)
    from discussions.model import journal

    entries = journal._read()
    assert len(entries) == 120
    assert all(e.done for e in entries)
