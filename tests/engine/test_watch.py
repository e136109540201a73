"""`discussions watch`: the rules (driven directly) and the real thing (a subprocess)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions import Discussion, DiscussionNotFound
from discussions.cli import cli
from discussions.ops.watch import Watcher
from discussions.settings.workspace import Workspace

from ..conftest import script_command, signed, write
from ..support.waiting import Output, poll_until


def new(title: str) -> Path:
    assert CliRunner().invoke(cli, ["new", title]).exit_code == 0
    return Path.cwd() / "discussions" / (title.lower().replace(" ", "-") + ".md")


def comment(path: Path, text: str, author: str = "Rob") -> None:
    r = CliRunner().invoke(cli, ["comment", str(path), text, "--author", author])
    assert r.exit_code == 0, r.output


def make_watcher(logs: list[str], **kw: object) -> Watcher:
    return Watcher(
        Workspace.discover(), log=logs.append, provider=kw.pop("provider", "mock"), debounce=0, **kw
    )  # type: ignore[arg-type]


def test_human_mention_starts_a_turn_once(isolated: Path) -> None:
    path = new("Watch me")
    logs: list[str] = []
    w = make_watcher(logs)
    w.add(path)
    comment(path, "@security is the token storage safe?")
    w.process(path)
    d = Discussion.load(path)
    assert [c.author for c in d.comments] == ["Rob", "AI-Security"]
    assert any("Rob mentioned @security" in line for line in logs)
    # The event caused by our own append, and a plain re-save, do nothing.
    w.process(path)
    w.process(path)
    assert len(Discussion.load(path).comments) == 2
    assert w.turns_run == 1


def test_old_comments_and_ai_comments_do_not_trigger(isolated: Path) -> None:
    path = new("Quiet")
    comment(path, "@architect before the watcher started")
    logs: list[str] = []
    w = make_watcher(logs)
    w.add(path)
    # An AI's comment, as the engine writes it (a person cannot sign as a participant).
    d = Discussion.load(path)
    d.add_block(signed("AI-Pragmatist", "@security from an AI"))
    d.save()
    w.process(path)
    assert w.turns_run == 0
    comment(path, "no mentions here")
    w.process(path)
    assert w.turns_run == 0


def test_editing_earlier_text_does_not_make_comments_new(isolated: Path) -> None:
    path = new("Edits")
    comment(path, "@security first")
    logs: list[str] = []
    w = make_watcher(logs)
    w.add(path)
    text = path.read_text()
    path.write_text(text.replace("## Context\n", "## Context\nAn extra line typed by hand.\n\n"))
    w.process(path)
    assert w.turns_run == 0


def test_loop_guard_bounds_ai_ping_pong(isolated: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    providers_file(
        {
            "pingpong": script_command(
                # Three words: a participant saying again what another said in a line this
                # short still means it (`syntax.answers.Echo`); a longer line copied would be an echo.
                "answer.py",
                '{"comment": "@architect @security, yours", "vote": null}',
            ),
        }
    )
    path = new("Ping pong")
    logs: list[str] = []
    w = make_watcher(logs, provider="pingpong", max_chain=3)
    w.add(path)
    comment(path, "@security start")
    w.process(path)
    assert w.turns_run == 3
    assert any("loop guard: stopped after 3 AI turn(s) for Rob's comment" in line for line in logs)
    ai = [c for c in Discussion.load(path).comments if c.author.startswith("AI-")]
    assert 3 <= len(ai) <= 6


def test_problem_files_are_reported_not_fatal(isolated: Path) -> None:
    path = write(
        isolated / "discussions" / "bad.md", "<!-- DISCUSSION -->\n\n---\nName: Rob\nVOTE: nah\n"
    )
    logs: list[str] = []
    w = make_watcher(logs)
    w.add(path)
    w.process(path)
    assert any("bad.md: 1 problem(s): line 5: invalid vote" in line for line in logs)
    path.unlink()
    w.process(path)
    assert any("bad.md: skipped: no such discussion file" in line for line in logs)


def test_debounce_collapses_bursts(isolated: Path) -> None:
    path = new("Burst")
    logs: list[str] = []
    w = Watcher(Workspace.discover(), log=logs.append, provider="mock", debounce=1.0)
    w.add(path)
    comment(path, "@security one")
    for t in (0.0, 0.3, 0.6):
        w.notify(path, now=100 + t)
    w.run_due(now=101.0)
    assert w.turns_run == 0  # still inside the quiet period after the last save
    w.run_due(now=101.7)
    assert w.turns_run == 1


def test_watch_takes_folders_and_files(isolated: Path) -> None:
    """A folder: its discussion files, and a change of any file right in it; a file: that
    file only, observed through its folder."""
    path = new("One")
    folder = isolated / "discussions"
    write(folder / "notes.md", "Not a discussion.\n")
    w = make_watcher([])
    targets = w.watch([folder])
    assert set(w.files) == {path.resolve()}
    assert targets.folders == targets.dirs == {folder.resolve()}
    assert targets.wants(folder.resolve() / "later.md")
    assert not targets.wants(isolated.resolve() / "later.md")
    single = isolated / "elsewhere" / "two.md"
    single.parent.mkdir()
    single.write_bytes(path.read_bytes())
    w = make_watcher([])
    targets = w.watch([single])
    assert set(w.files) == {single.resolve()}
    assert (targets.folders, targets.dirs) == ({single.parent.resolve()}, set())
    assert targets.wants(single.resolve())
    assert not targets.wants(single.parent.resolve() / "other.md")
    with pytest.raises(DiscussionNotFound, match="nothing to watch at missing: no such file"):
        make_watcher([]).watch([Path("missing")])


def test_configured_reads_the_watch_settings(isolated: Path) -> None:
    write(isolated / "discussions.yaml", "watch:\n  debounce: 2.5\n  max_chain: 1\n")
    w = Watcher.configured(Workspace.discover(), log=print)
    assert (w.debounce, w.max_chain) == (2.5, 1)
    w = Watcher.configured(Workspace.discover(), log=print, debounce=0, max_chain=5)
    assert (w.debounce, w.max_chain) == (0, 5)


@pytest.mark.slow
def test_watch_command_end_to_end(isolated: Path) -> None:
    """The real thing: watchdog sees a new file and a save, answers, and Ctrl-C ends it."""
    folder = isolated / "discussions"
    folder.mkdir()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "discussions",
            "watch",
            str(folder),
            "--debounce",
            "0.2",
            "--provider",
            "mock",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    output = Output(proc.stdout)
    try:
        output.wait_for("Ctrl-C to stop")  # the observer watches the folder
        path = new("Live")
        comment(path, "@pragmatist can we ship this week?")
        assert poll_until(
            lambda: any(c.author == "AI-Pragmatist" for c in Discussion.load(path).comments), 30
        )
    finally:
        proc.send_signal(signal.SIGINT)
        out = output.finish(proc, 20)
    assert proc.returncode == 0, out
    assert "live.md: new file, watching it" in out
    assert "Rob mentioned @pragmatist" in out
    assert out.rstrip().endswith("stopped")
    d = Discussion.load(path)
    assert d.warnings == []
    assert (
        json.loads(CliRunner().invoke(cli, ["status", str(path), "--json"]).stdout)[
            "pending_mentions"
        ]
        == []
    )


def test_an_answer_an_editor_saved_over_is_noticed_and_asked_again(isolated: Path) -> None:
    path = new("Stale buffer")
    logs: list[str] = []
    w = make_watcher(logs, max_chain=1)
    w.add(path)
    comment(path, "@security is the token storage safe?")
    stale = path.read_bytes()  # what the editor still holds: no answer yet
    w.process(path)
    assert [c.author for c in Discussion.load(path).comments] == ["Rob", "AI-Security"]
    path.write_bytes(stale)  # the editor saves its stale buffer over the answer
    w.process(path)
    assert any("AI-Security's answer is gone from the file" in line for line in logs), logs
    assert [c.author for c in Discussion.load(path).comments] == ["Rob", "AI-Security"]
    # Within the loop guard: a second loss is reported, not answered again.
    path.write_bytes(stale)
    w.process(path)
    assert any("loop guard: not asking @security again" in line for line in logs), logs
    assert [c.author for c in Discussion.load(path).comments] == ["Rob"]


def test_watchdogs_stop_race_message_is_not_printed(
    isolated: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """watchdog logs "queue_events() called when the thread is inactive" when a stop races an
    event; the watcher silences that one message (it reached the terminal after "stopped")
    and nothing else watchdog logs."""
    import logging
    import queue

    from discussions.ops.watch import WatchTargets, observe

    observer = observe(WatchTargets({isolated}, set(), {isolated}), queue.Queue())
    observer.stop()
    observer.join()
    log = logging.getLogger("watchdog.observers.inotify")
    log.error("InotifyEmitter.queue_events() called when the thread is inactive")
    log.error("something else went wrong")
    said = [r.getMessage() for r in caplog.records]
    assert not any("thread is inactive" in m for m in said)
    assert "something else went wrong" in said
