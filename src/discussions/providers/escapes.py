"""What a provider command left behind outside its process group, found through ``/proc``.

A process belongs to a call if it carries the call's tag in its environment (inherited across
fork, exec and ``setsid``) or descends from the call's leader or from a tagged process. Only
processes started at or after the leader can be either, so the search reads the environment
of those alone. A turn gathers the calls that ended cleanly in an `EscapeSweep` and searches
once for all of them when it ends (`one_sweep`); a call outside a turn searches when it ends.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from ..syntax.record import FrozenRecord

RUN_TAG_VAR = "DISCUSSIONS_PROVIDER_RUN"
"""Environment variable holding a per-call tag, used to find escaped descendants."""

_PROC = Path("/proc")
_STARTTIME = 19
"""Index of ``starttime`` (field 22 of ``/proc/PID/stat``) in the fields after the name."""


class Call(FrozenRecord):
    """One provider call as the search sees it.
    (A frozen `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("tag", "leader", "since")
    tag: str
    leader: int | None
    """The command's pid while it is not reaped (after that the pid may be anyone's)."""
    since: int
    """The leader's start time in clock ticks since boot (0: unknown, search everything)."""

    def __init__(self, tag: str, leader: int | None, since: int = 0) -> None:
        self._init(tag, leader, since)


def start_tick(pid: int) -> int:
    """When `pid` started, in clock ticks since boot; 0 if it cannot be read."""
    try:
        fields = (_PROC / str(pid) / "stat").read_bytes().rsplit(b")", 1)[-1].split()
        return int(fields[_STARTTIME])
    except (OSError, IndexError, ValueError):
        return 0


def signal_pid(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _stat_line(pid: str) -> bytes:
    """``/proc/PID/stat`` (one short line, read in one call: the sweep reads it for every
    process on the machine, so no path objects and no buffered file); raises `OSError`."""
    fd = os.open(f"{_PROC}/{pid}/stat", os.O_RDONLY)
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def _process_table(since: int) -> dict[int, int]:
    """``{pid: parent pid}`` of the live processes started at or after `since` (clock ticks)
    that we can see (empty where there is no /proc)."""
    table: dict[int, int] = {}
    try:
        names = os.listdir(_PROC)
    except OSError:
        return table
    for name in names:
        if not name.isdigit():
            continue
        try:
            stat = _stat_line(name)
        except OSError:
            continue
        fields = stat.rsplit(b")", 1)[-1].split()
        if len(fields) <= _STARTTIME or fields[0] in (b"Z", b"X"):
            continue
        if int(fields[_STARTTIME]) >= since:
            table[int(name)] = int(fields[1])
    return table


def _carries_tag(pid: int, markers: set[bytes]) -> bool:
    try:
        environ = (_PROC / str(pid) / "environ").read_bytes()
    except OSError:  # gone, or another user's process
        return False
    return not markers.isdisjoint(environ.split(b"\0"))


def _descendants(roots: Iterable[int], table: dict[int, int]) -> set[int]:
    found = set(roots)
    children: dict[int, list[int]] = {}
    for pid, ppid in table.items():
        children.setdefault(ppid, []).append(pid)
    stack = list(found)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def stop_escaped(calls: Sequence[Call]) -> set[int]:
    """Freeze (SIGSTOP) every process of `calls`, until no new one appears; returns them.

    Freezing first means nothing can fork away while we look. One pass over ``/proc``
    serves every call.
    """
    if not calls:
        return set()
    markers = {f"{RUN_TAG_VAR}={c.tag}".encode() for c in calls}
    leaders = {c.leader for c in calls if c.leader is not None}
    since = min(c.since for c in calls)
    me = os.getpid()
    stopped: set[int] = set()
    for _ in range(8):
        table = _process_table(since)
        tagged = {pid for pid in table if pid != me and _carries_tag(pid, markers)}
        roots = (leaders | tagged) & table.keys()
        targets = _descendants(roots, table) - {me} - stopped
        if not targets:
            break
        for pid in targets:
            signal_pid(pid, signal.SIGSTOP)
        stopped |= targets
    return stopped


class EscapeSweep:
    """Calls that ended cleanly, whose escaped descendants are searched for in one pass."""

    def __init__(self) -> None:
        self._calls: list[Call] = []
        self._lock = threading.Lock()

    def add(self, call: Call) -> None:
        with self._lock:
            self._calls.append(call)

    def run(self) -> int:
        """SIGKILL what the calls gathered so far left behind; returns how many processes."""
        with self._lock:
            calls, self._calls = self._calls, []
        stopped = stop_escaped(calls)
        for pid in stopped:
            signal_pid(pid, signal.SIGKILL)
        return len(stopped)


_current: ContextVar[EscapeSweep | None] = ContextVar("discussions_escape_sweep", default=None)


def current() -> EscapeSweep | None:
    """The sweep gathering this context's calls, or None: search when each call ends."""
    return _current.get()


@contextmanager
def one_sweep() -> Iterator[EscapeSweep]:
    """Within the block, calls that end cleanly (the command exited and closed its output)
    leave the search for their escaped descendants to one pass when the block ends, however
    it ends. Threads started inside need the context (``contextvars.copy_context().run``)."""
    sweep = EscapeSweep()
    token = _current.set(sweep)
    try:
        yield sweep
    finally:
        _current.reset(token)
        sweep.run()
