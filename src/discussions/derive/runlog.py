"""The runs a file records, and whether a run without its stop is still going.

``discussions run`` writes a ``ROUND`` block before each round and a ``RUN-STOP`` block when it
ends. Both carry the run's identity: ``run: N`` (the run's number in this file, shown to a
reader as "Run N, round M"), ``host: H`` (a digest of the machine's name, not the name) and
``pid: P`` (the process). A process killed outright (``kill -9``, a crash of the machine)
writes no stop, so a run without its ``RUN-STOP`` is one of:

* ``running``      started on this machine and its process is alive;
* ``interrupted``  started on this machine and its process is gone; or a later run started
  after it (then it ended, whatever machine it ran on);
* ``unknown``      started on another machine (or written before runs carried their identity)
  and nothing came after it: it may be running there or may have been killed.

The next `discussions run` on the machine that ran an interrupted run writes its stop for it
(``RUN-STOP: interrupted`` with that run's identity), so the file says so on every machine.

Only the file is read, plus, for a run of this machine, whether its process exists: no lock
or pid file. A process number reused by another program after the kill makes the run look
``running`` until a later run starts; nothing else does.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..syntax.record import Record

if TYPE_CHECKING:
    from .state import RunMark

_RUN_STATES = ("stopped", "running", "interrupted", "unknown")


class RunRecord(Record):
    """One run as the file records it."""

    __slots__ = ("number", "rounds", "stop", "host", "pid", "key")
    number: int
    rounds: list[RunMark]
    stop: RunMark | None
    host: str
    """Digest of the machine's name (empty: not recorded)."""
    pid: int | None
    key: tuple[str, str, str] | None
    """(run, host, pid) as written; None for blocks without an identity."""

    def __init__(
        self,
        number: int,
        rounds: list[RunMark] | None = None,
        stop: RunMark | None = None,
        host: str = "",
        pid: int | None = None,
        key: tuple[str, str, str] | None = None,
    ) -> None:
        self.number = number
        self.rounds = [] if rounds is None else rounds
        self.stop = stop
        self.host = host
        self.pid = pid
        self.key = key

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "rounds": len(self.rounds),
            "round_lines": [r.line for r in self.rounds],
            "stopped": self.stop.value if self.stop else None,
            "stop_line": self.stop.line if self.stop else None,
        }

    @property
    def line(self) -> int:
        marks = [*self.rounds, *([self.stop] if self.stop else [])]
        return min(m.line for m in marks) if marks else 0


def group_runs(marks: Sequence[RunMark]) -> list[RunRecord]:
    """The runs of `marks` (``round`` and ``run-stop`` marks, in file order), in the order
    they started. Blocks with an identity join the open run of that identity (runs whose
    blocks interleave stay apart); blocks without one continue the open run before them,
    and ``ROUND: 1`` starts a new run."""
    runs: list[RunRecord] = []
    for mark in marks:
        key = _key(mark)
        current = _open_run(runs, key)
        if mark.kind == "round":
            if current is None or (key is None and mark.value == "1"):
                current = _new_run(runs, mark, key)
            current.rounds.append(mark)
        elif mark.kind == "run-stop":
            if current is None and key is not None and any(r.key == key for r in runs):
                continue  # that run's end, recorded twice (two runs noted the same kill)
            if current is None:
                current = _new_run(runs, mark, key)
            current.stop = mark
    return runs


def _key(mark: RunMark) -> tuple[str, str, str] | None:
    f = mark.fields
    return (f["run"], f.get("host", ""), f.get("pid", "")) if "run" in f else None


def _open_run(runs: list[RunRecord], key: tuple[str, str, str] | None) -> RunRecord | None:
    if key is None:
        last = runs[-1] if runs else None
        return last if last is not None and last.stop is None and last.key is None else None
    for run in reversed(runs):
        if run.key == key and run.stop is None:
            return run
    return None


def _new_run(runs: list[RunRecord], mark: RunMark, key: tuple[str, str, str] | None) -> RunRecord:
    number = len(runs) + 1
    if key is not None and key[0].isdigit():
        number = int(key[0])
    pid = key[2] if key is not None else ""
    record = RunRecord(
        number, host=key[1] if key else "", pid=int(pid) if pid.isdigit() else None, key=key
    )
    runs.append(record)
    return record


def next_number(runs: Sequence[RunRecord]) -> int:
    return max((r.number for r in runs), default=0) + 1


# --------------------------------------------------------------------------- this machine


def host_id() -> str:
    """A digest of this machine's name (and machine id where the system has one): equal on
    the same machine, and it does not put the machine's name into a shared file."""
    # os.uname is what socket.gethostname reads on POSIX, without importing socket on every
    # command's start-up path (this module is part of deriving state).
    name = os.uname().nodename if hasattr(os, "uname") else os.environ.get("COMPUTERNAME", "")
    parts = [name]
    for path in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            parts.append(Path(path).read_text(encoding="utf-8").strip())
            break
        except OSError:
            continue
    import hashlib  # only when a run is asked about: not on every command's start-up

    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:12]


def identity(number: int) -> str:
    """The fields every block of run `number` of this process carries."""
    return f"run: {number} | host: {host_id()} | pid: {os.getpid()}"


def _process_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if os.name == "nt":  # signal 0 would end the process there; the project needs POSIX
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: it exists
    except OSError:
        return False
    return _not_a_zombie(pid)


def _not_a_zombie(pid: int) -> bool:
    """A killed child its parent has not reaped yet still answers signal 0 (Linux: state Z)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


# --------------------------------------------------------------------------- the state


class _RunState(Record):
    """A run and what became of it."""

    __slots__ = ("run", "state", "why")
    run: RunRecord
    state: str
    """One of `_RUN_STATES`."""
    why: str
    """For a run without its stop: what the state rests on."""

    def __init__(
        self,
        run: RunRecord,
        state: str,
        why: str = "",
    ) -> None:
        self.run = run
        self.state = state
        self.why = why

    def to_dict(self) -> dict[str, Any]:
        return {**self.run.to_dict(), "state": self.state, "why": self.why}

    def text(self) -> str:
        """The line `status` shows."""
        ran = f"Last run (run {self.run.number}): {len(self.run.rounds)} round(s)"
        stop = self.run.stop
        if stop is not None:
            return ran + f", stopped: {stop.value} (line {stop.line})"
        return ran + f", {self.state} ({self.why})"


def run_state(runs: Sequence[RunRecord], index: int = -1) -> _RunState:
    """What became of ``runs[index]`` (see the module docstring)."""
    run = runs[index]
    if run.stop is not None:
        return _RunState(run, "stopped")
    later = [r for r in runs if r.rounds and r.line > run.line]  # runs, not a turn's stop
    if run.host and run.host == host_id() and run.pid is not None:
        if not _process_alive(run.pid):
            return _RunState(
                run, "interrupted", f"no stop record; process {run.pid} on this machine is gone"
            )
        if not any((r.host, r.pid) == (run.host, run.pid) for r in later):
            return _RunState(run, "running", f"process {run.pid} on this machine")
    if later:
        return _RunState(run, "interrupted", "no stop record; a later run started after it")
    if run.host:
        return _RunState(
            run, "unknown", "no stop record; started on another machine: running there or not"
        )
    return _RunState(
        run, "unknown", "no stop record; written by a version that does not record its process"
    )


def interrupted_runs(runs: Sequence[RunRecord]) -> list[RunRecord]:
    """Runs of this machine without their stop whose process is gone: the next run records
    their end."""
    here = host_id()
    return [
        r
        for i, r in enumerate(runs)
        if r.stop is None
        and r.host == here
        and r.pid is not None
        and r.pid != os.getpid()
        and run_state(runs, i).state == "interrupted"
    ]
