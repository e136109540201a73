"""A run killed outright (no stop record) is shown as interrupted, and the next run is run 2.

The run is a real `discussions run` process, killed with SIGKILL while a slow provider script
is answering; `status` and the next run read only the file (and whether that process exists).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from discussions import Discussion
from discussions.derive.runlog import host_id, run_state

from ..conftest import code, out, result_of, run, script_command, write
from ..support.waiting import running_below, wait_for, wait_for_text


@pytest.mark.slow
def test_a_killed_run_is_interrupted_and_the_next_run_is_numbered_after_it(
    isolated: Path, providers_file
) -> None:  # type: ignore[no-untyped-def]
    providers_file(
        {
            "slow": script_command("answer.py", '{"comment": "thinking", "vote": null}', "30"),
            "quick": script_command("answer.py", '{"comment": "done", "vote": null}'),
        }
    )
    write(isolated / "discussions.yaml", "providers:\n  detect: false\n")
    assert code(run("new", "Kill me", "--template", "deliberation")) == 0
    path = isolated / "discussions" / "kill-me.md"
    proc = subprocess.Popen(
        [sys.executable, "-m", "discussions", "run", "kill-me.md", "--provider", "slow"],
        cwd=isolated,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    try:
        wait_for_text(path, "<!-- ROUND: 1")
        wait_for(lambda: running_below(proc.pid, "answer.py"), 30, message="the providers")
        shown = json.loads(out(run("status", "kill-me.md", "--json")))["run"]
        assert shown["state"] == "running" and shown["number"] == 1
        assert f"process {proc.pid} on this machine" in shown["why"]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert "RUN-STOP" not in path.read_text(encoding="utf-8")  # nothing could write it

    shown = json.loads(out(run("status", "kill-me.md", "--json")))["run"]
    assert shown["state"] == "interrupted" and shown["stopped"] is None
    assert f"process {proc.pid} on this machine is gone" in shown["why"]
    text = out(run("status", "kill-me.md"))
    assert "Last run (run 1): 1 round(s), interrupted (no stop record; process" in text
    assert "running" not in text

    r = run("run", "kill-me.md", "--provider", "quick", "--rounds", "1", "--json")
    assert code(r) == 0, out(r)
    assert result_of(r)["rounds"] == 1
    written = path.read_text(encoding="utf-8")
    lost = (
        f"<!-- RUN-STOP: interrupted | rounds: 1 | run: 1 | host: {host_id()} | pid: {proc.pid} -->"
    )
    assert lost in written
    assert "*Run 1 stopped after 1 round: interrupted (its process ended" in written
    second = written[written.index(lost) :]  # recorded before run 2's first round
    assert "<!-- ROUND: 1 | phase: " in second and f"| run: 2 | host: {host_id()} |" in second
    assert "*Run 2, round 1 (" in second
    d = Discussion.load(path)
    assert [(r.number, len(r.rounds), r.stop.value if r.stop else None) for r in d.runs] == [
        (1, 1, "interrupted"),
        (2, 1, "max_rounds"),
    ]
    assert d.warnings == []
    assert "Last run (run 2): 1 round(s), stopped: max_rounds" in out(run("status", "kill-me.md"))


def _blocks(path: Path, *blocks: str) -> Discussion:
    d = Discussion.load(path)
    for block in blocks:
        d.add_block(block)
    d.save()
    return Discussion.load(path)


def test_runs_without_a_stop_from_elsewhere_or_older_versions(isolated: Path) -> None:
    assert code(run("new", "Old")) == 0
    path = isolated / "discussions" / "old.md"
    old_round = "<!-- ROUND: {n} | phase: initial_feedback | order: architect -->\n"
    # Written by a version whose blocks carried no identity: a later ROUND 1 is a later run.
    d = _blocks(path, old_round.format(n=1), old_round.format(n=2), old_round.format(n=1))
    assert [len(r.rounds) for r in d.runs] == [2, 1]
    first, latest = run_state(d.runs, 0), run_state(d.runs)
    assert first.state == "interrupted" and "a later run started after it" in first.why
    assert latest.state == "unknown" and "does not record its process" in latest.why
    # Another machine's run: its process cannot be checked from here.
    elsewhere = "<!-- ROUND: 1 | phase: initial_feedback | order: architect | run: 3 | host: 0000 | pid: 1 -->\n"
    d = _blocks(path, elsewhere)
    assert run_state(d.runs).state == "unknown" and "another machine" in run_state(d.runs).why
    assert run_state(d.runs, 1).state == "interrupted"  # a later run started after it
    # A run of this machine whose process is gone, and a live one (this process).
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    mine = f"run: 4 | host: {host_id()} | pid: {{pid}}"
    d = _blocks(
        path, f"<!-- ROUND: 1 | phase: p | order: a | {mine.format(pid=gone.stdout.strip())} -->\n"
    )
    assert run_state(d.runs).state == "interrupted"
    d = _blocks(
        path,
        f"<!-- ROUND: 1 | phase: p | order: a | {mine.format(pid=os.getpid()).replace('run: 4', 'run: 5')} -->\n",
    )
    assert run_state(d.runs).state == "running"
    assert run_state(d.runs, -2).state == "interrupted"


def test_interleaved_runs_keep_their_own_rounds_and_stops(isolated: Path) -> None:
    assert code(run("new", "Two")) == 0
    path = isolated / "discussions" / "two.md"
    a, b = "run: 1 | host: aa | pid: 10", "run: 1 | host: bb | pid: 20"
    d = _blocks(
        path,
        f"<!-- ROUND: 1 | phase: p | order: x | {a} -->\n",
        f"<!-- ROUND: 1 | phase: p | order: y | {b} -->\n",
        f"<!-- ROUND: 2 | phase: p | order: x | {a} -->\n",
        f"<!-- RUN-STOP: consensus | rounds: 1 | {b} -->\n",
    )
    assert [(len(r.rounds), r.stop.value if r.stop else None) for r in d.runs] == [
        (2, None),
        (1, "consensus"),
    ]
    # Two later runs that both noted run `a`'s end: one end, no phantom run.
    twice = f"<!-- RUN-STOP: interrupted | rounds: 2 | {a} -->\n"
    d = _blocks(path, twice, twice)
    assert [(len(r.rounds), r.stop.value if r.stop else None) for r in d.runs] == [
        (2, "interrupted"),
        (1, "consensus"),
    ]


def test_an_error_in_a_run_is_recorded_as_its_stop(isolated: Path) -> None:
    from discussions.engine.council.deliberation import RoundEvent, run_discussion
    from discussions.engine.runner import Runner

    write(isolated / "discussions.yaml", "providers:\n  detect: false\n")
    assert code(run("new", "Err")) == 0
    path = isolated / "discussions" / "err.md"
    r = run("run", "err.md", "--provider", "nosuch")
    assert code(r) != 0 and "nosuch" in out(r)
    assert not Discussion.load(path).runs  # a misspelled provider: refused before a round

    def display(ev: RoundEvent) -> None:  # a display whose output went away (a closed pipe)
        if ev.round == 2:
            raise BrokenPipeError(32, "Broken pipe")

    d = Discussion.load(path)
    try:
        run_discussion(Runner(d.workspace), d, provider="mock", rounds=3, on_round=display)
    except BrokenPipeError:
        pass
    else:
        raise AssertionError("the display's error must reach the caller")
    (only,) = Discussion.load(path).runs
    assert only.stop is not None and only.stop.value == "error" and len(only.rounds) == 2
    assert "*Run 1 stopped after 2 rounds: an error ended it.*" in path.read_text(encoding="utf-8")
