"""End to end: the real `discussions ui` in a pseudo-terminal (keys in, screen out, q quits)."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli


def read_until(master: int, wanted: bytes, seen: bytearray, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return wanted in seen
            if not chunk:
                return wanted in seen
            seen.extend(chunk)
            if wanted in seen:
                return True
    return False


@pytest.mark.slow
def test_ui_in_a_terminal_opens_a_discussion_and_quits(isolated: Path) -> None:
    assert CliRunner().invoke(cli, ["new", "Pty check", "--context", "c"]).exit_code == 0
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    import discussions

    src = str(Path(discussions.__file__).resolve().parents[1])  # this checkout, not an install
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": src}
    env.pop("COLUMNS", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "discussions", "ui"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
        start_new_session=True,
    )
    os.close(slave)
    seen = bytearray()
    try:
        assert read_until(master, b"Pty check", seen), seen[-2000:]
        os.write(master, b"\r")  # Enter opens the discussion
        assert read_until(master, b"Phase", seen), seen[-2000:]
        os.write(master, b"\x1b")  # Escape: back to the browser
        # The one fixed sleep left: no output marks the moment the browser takes keys again
        # (waiting for its redraw instead lost the "q" in 4 runs of 5).
        time.sleep(0.3)
        os.write(master, b"q")
        # keep reading: a closing terminal waits for its last output to be read
        deadline = time.monotonic() + 15
        while proc.poll() is None and time.monotonic() < deadline:
            read_until(master, b"\x00never", seen, timeout=0.2)
        code = proc.wait(timeout=5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert code == 0
