"""Ending the `discussions` process quickly once a command is done and everything is written.

Python's own shutdown tears down every module and object one by one; with the engine loaded
that takes 30-60 ms, after the last byte is already on disk. `finish` does what shutdown must
do for nothing to be lost (run the atexit handlers, flush standard output and error) and then
ends the process with `os._exit`. Files are no concern: the package opens every file it writes
in a ``with`` block or as a descriptor it closes itself (`tests/cli/test_exiting.py` checks the
source), so none is left open with unwritten bytes when a command returns; a full garbage
collection to be sure would cost as much as the teardown it saves. It falls back to the normal
shutdown whenever it cannot vouch for that: another non-daemon thread still runs, the exit
status is not a number, or standard output cannot be flushed (a closed pipe: Python then
reports it as usual).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading


def _status(code: object) -> int | None:
    """The process exit status of ``SystemExit(code)``, or None when Python must print it."""
    if code is None:
        return 0
    if isinstance(code, bool) or not isinstance(code, int):
        return None
    return code & 0xFF


def _other_threads_running() -> bool:
    main = threading.main_thread()
    return any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate())


def _flushed() -> bool:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            return False
    return True


def finish(code: object) -> None:
    """End the process with `code` (as `sys.exit` would), skipping Python's teardown when
    nothing can be lost by it; otherwise raise `SystemExit` for the normal shutdown."""
    status = _status(code)
    main = threading.current_thread() is threading.main_thread()
    if status is None or not main or _other_threads_running() or not _flushed():
        raise SystemExit(code)  # Python prints the message, waits, or reports the closed pipe
    atexit._run_exitfuncs()  # they run once: the list is emptied (logging flushes here)
    if not _flushed():
        raise SystemExit(code)
    os._exit(status)
