"""A command answered by a person at a real pseudo-terminal: standard input, output and error
are the terminal, each question is waited for, then the answer typed (the stdlib `pty`'s
`openpty`, as `terminal.run_in_terminal`, with the keyboard side too)."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Dialogue:
    output: str
    """Everything written to the terminal, decoded."""
    code: int
    unanswered: list[str]
    """Questions of the script that never appeared (each then ends the dialogue)."""


def converse(
    args: list[str],
    script: list[tuple[str, str]],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    within: float = 120.0,
) -> Dialogue:
    """Run `discussions ARGS` on a pseudo-terminal; for each (question, answer) of `script`,
    wait until the output holds the question (after the previous one), then type the answer.
    The command is killed after `within` seconds."""
    master, slave = os.openpty()
    import discussions

    src = str(Path(discussions.__file__).resolve().parents[1])
    full_env = {**os.environ, "TERM": "dumb", "PYTHONPATH": src, "CI": "", **(env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "discussions", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=cwd,
        env=full_env,
        close_fds=True,
        start_new_session=True,
    )
    os.close(slave)
    data, seen_to, pending = b"", 0, list(script)
    deadline = time.monotonic() + within
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the other side is closed
                    break
                if not chunk:
                    break
                data += chunk
            while pending and pending[0][0].encode() in data[seen_to:]:
                question, answer = pending.pop(0)
                seen_to = data.index(question.encode(), seen_to) + len(question)
                os.write(master, answer.encode())
            if not ready and proc.poll() is not None:
                break
        code = proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return Dialogue(data.decode("utf-8", "replace"), code, [q for q, _ in pending])
