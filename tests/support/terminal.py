"""A command in a real pseudo-terminal, its screen read as it is drawn."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def run_in_terminal(
    args: list[str],
    width: int,
    env: dict[str, str] | None = None,
    when: tuple[str | Callable[[bytes], bool], Callable[[], None]] | None = None,
    when_within: float = 60.0,
) -> TerminalRun:
    """Run `discussions ARGS` with a pseudo-terminal of `width` columns as its standard
    output and error. `when` = (text, action): call action as soon as the output holds text
    (or the output makes `text`, a function, true), or after `when_within` seconds if it
    never does."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, width, 0, 0))
    import discussions

    src = str(Path(discussions.__file__).resolve().parents[1])  # this checkout, not an install
    full_env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": src, **(env or {})}
    full_env.pop("COLUMNS", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "discussions", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=full_env,
        close_fds=True,
    )
    os.close(slave)
    data = b""
    triggered = False
    started = time.monotonic()
    deadline = started + when_within + 60
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the terminal's other side is closed
                    break
                if not chunk:
                    break
                data += chunk
            seen = when and (when[0](data) if callable(when[0]) else when[0].encode() in data)
            if when and seen:
                triggered = True
                when[1]()
                when = None
            elif when and time.monotonic() - started > when_within:
                when[1]()
                when = None
            if not ready and proc.poll() is not None:
                break
        code = proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return TerminalRun(data.decode("utf-8", "replace"), code, triggered)


@dataclass
class TerminalRun:
    output: str
    """Everything written to the terminal, decoded."""
    code: int
    triggered: bool
    """The `when` text appeared in time (else its action ran at the deadline, to clean up)."""
