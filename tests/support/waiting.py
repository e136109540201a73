"""Waiting on what can be observed (a file written, a line printed, a process gone, a server
answering), bounded by a deadline: the tests never sleep a fixed time and hope."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TypeVar

T = TypeVar("T")

POLL = 0.02
"""Seconds between two looks: short, since each look is cheap."""


def _looks(
    condition: Callable[[], T], timeout: float, poll: float, forgive: tuple[type[Exception], ...]
) -> Iterator[tuple[T | None, object]]:
    """Each look at `condition` until `timeout` seconds passed: (its value, what to report:
    that value or the exception forgiven, an exception of `forgive` counting as "not yet")."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value: T | None = condition()
            last: object = value
        except forgive as exc:
            value, last = None, exc
        yield value, last
        if time.monotonic() >= deadline:
            return
        time.sleep(poll)


def poll_until(condition: Callable[[], T], timeout: float) -> T | None:
    """`condition()` once it is truthy, or its last (falsy) value when `timeout` seconds
    passed: for a test that asserts on the outcome itself."""
    value = None
    for value, _ in _looks(condition, timeout, POLL, ()):
        if value:
            break
    return value


def wait_for(
    condition: Callable[[], T], timeout: float = 10.0, poll: float = POLL, message: str = ""
) -> T:
    """Call ``condition`` every ``poll`` seconds until it returns something truthy; return that.

    Exceptions raised by ``condition`` (say, an element not there yet) count as "not yet";
    after ``timeout`` seconds an AssertionError names `message` and the last value or exception.
    """
    last: object = None
    for value, seen in _looks(condition, timeout, poll, (Exception,)):
        if value:
            return value
        last = seen
    what = message or getattr(condition, "__name__", "condition")
    raise AssertionError(f"timed out after {timeout}s waiting for {what}; last: {last!r}")


async def wait_for_async(condition: Callable[[], T], timeout: float = 30, what: str = "") -> T:
    """`wait_for` in a coroutine: the event loop runs on between two looks."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or condition}")
        await asyncio.sleep(POLL)
    return value


def file_text(path: Path) -> str:
    """The file's text, or "" while it does not exist."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def wait_for_text(path: Path, text: str, timeout: float = 30) -> str:
    """The file's content once it holds `text`."""

    def holding() -> str:
        now = file_text(path)
        return now if text in now else ""

    return wait_for(holding, timeout, message=f"{text!r} in {path}")


def wait_pid(pidfile: Path, seconds: float = 20) -> int:
    """The process id a program wrote into `pidfile`, once it is there."""
    return int(wait_for(lambda: file_text(pidfile).strip(), seconds, message=f"a pid in {pidfile}"))


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie left for a container's init to reap does not count)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def process_ids() -> list[int]:
    """Every process id in /proc (none where there is no /proc)."""
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # "pid (comm) state ppid ...": comm may contain spaces and parentheses
    try:
        return int(stat.rsplit(")", 1)[1].split()[1])
    except (IndexError, ValueError):
        return None


def command_line(pid: int) -> str:
    """The process's arguments joined by spaces ("" once it is gone)."""
    try:
        return (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:
        return ""


def descendants(root: int) -> set[int]:
    """The processes below `root` (children, their children ...), as /proc shows them now."""
    children: dict[int, list[int]] = {}
    for pid in process_ids():
        parent = parent_of(pid)
        if parent is not None:
            children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def running_below(root: int, marker: str) -> list[int]:
    """The live processes below `root` whose command line holds `marker` (a provider's
    script, say): the observable sign that `root` started them."""
    return [pid for pid in descendants(root) if marker in command_line(pid) and alive(pid)]


def wait_dead(pid: int, seconds: float = 5) -> bool:
    """Whether `pid` is gone within `seconds`."""
    return bool(poll_until(lambda: not alive(pid), seconds))


def kill_quietly(pid: int) -> None:
    """Test hygiene only: never leave a sleeper behind, whatever the code under test did."""
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Output:
    """A child's text output read in a thread as it comes, so a test can wait for a line (the
    sign that the child is ready) and still have the whole output at the end."""

    def __init__(self, stream: IO[str]) -> None:
        self._parts: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        with stream:  # closed at its end, as `communicate` would
            for line in stream:
                self._parts.append(line)

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def wait_for(self, text: str, timeout: float = 30) -> str:
        """The output so far, once it holds `text`."""
        return wait_for(lambda: self.text if text in self.text else "", timeout, message=repr(text))

    def finish(self, proc: subprocess.Popen[str], timeout: float) -> str:
        """The whole output, once `proc` ended (failing the test if it does not in time)."""
        proc.wait(timeout=timeout)
        self._thread.join(timeout)
        return self.text
