"""A provider that runs a command: prompt on stdin, answer on stdout.

* The command string is split with `shlex` (never a shell); ``$VARS`` and ``~`` are expanded in
  each word.
* The command runs in its own process group; on timeout or flood the whole group is killed, and
  it is cleaned up after a normal exit too, so no CLI is left orphaned.
* stdout is capped (`max_output`); stderr keeps its last 64 KiB for error messages.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import IO

from ..errors import (
    ProviderFailed,
    ProviderNotFound,
    ProviderOutputError,
    ProviderTimeout,
)
from .base import Provider, ProviderRequest, ProviderSpec

DEFAULT_MAX_OUTPUT = 4 * 1024 * 1024
_STDERR_KEEP = 64 * 1024
_KILL_GRACE = 2.0


def split_command(command: str) -> list[str]:
    """Split a command line without a shell and expand ``$VARS`` / ``~`` in each word."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise ProviderFailed("command", f"cannot parse command line: {exc}") from None
    return [os.path.expanduser(os.path.expandvars(w)) for w in words]


_active: set[subprocess.Popen[bytes]] = set()
_active_lock = threading.Lock()


def terminate_all() -> int:
    """Kill the process groups of every command running now (used on Ctrl-C). Returns how many."""
    with _active_lock:
        running = list(_active)
    for proc in running:
        _kill_group(proc, signal.SIGKILL)
    return len(running)


def _kill_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class CommandProvider(Provider):
    """Runs `spec.command` for each request."""

    def __init__(self, spec: ProviderSpec, *, max_output: int = DEFAULT_MAX_OUTPUT) -> None:
        if not spec.command:
            raise ValueError("a command provider needs a command")
        self.spec = spec
        self.name = spec.name
        self.max_output = max_output

    def argv(self) -> list[str]:
        return split_command(self.spec.command or "")

    def executable(self) -> str | None:
        """Full path of the command's executable, if it is installed."""
        argv = self.argv()
        return shutil.which(argv[0]) if argv else None

    def complete(self, request: ProviderRequest) -> str:
        argv = self.argv()
        if not argv:
            raise ProviderFailed(self.name, "empty command")
        exe = shutil.which(argv[0])
        if exe is None:
            raise ProviderNotFound(self.name, f"not installed: `{argv[0]}` not found on PATH")
        env = dict(os.environ)
        for var in self.spec.env_remove:
            env.pop(var, None)
        timeout = self.spec.timeout or request.timeout
        try:
            proc = subprocess.Popen(
                [exe, *argv[1:]],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            raise ProviderNotFound(self.name, f"cannot run `{argv[0]}`: {exc.strerror}") from None

        with _active_lock:
            _active.add(proc)
        out = bytearray()
        err = bytearray()
        flooded = threading.Event()

        def feed(stream: IO[bytes]) -> None:
            try:
                stream.write(request.prompt.encode("utf-8"))
            except (BrokenPipeError, OSError):
                pass  # the command stopped reading; its exit status tells the rest
            finally:
                try:
                    stream.close()
                except OSError:
                    pass

        def keep_out(chunk: bytes) -> bool:
            out.extend(chunk)
            if len(out) > self.max_output:
                flooded.set()
                _kill_group(proc, signal.SIGKILL)
                return False
            return True

        def keep_err(chunk: bytes) -> bool:
            err.extend(chunk)
            if len(err) > 2 * _STDERR_KEEP:
                del err[:-_STDERR_KEEP]
            return True

        assert proc.stdin and proc.stdout and proc.stderr
        threads = [
            threading.Thread(target=feed, args=(proc.stdin,), daemon=True),
            threading.Thread(target=_drain, args=(proc.stdout, keep_out), daemon=True),
            threading.Thread(target=_drain, args=(proc.stderr, keep_err), daemon=True),
        ]
        for t in threads:
            t.start()
        started = time.monotonic()
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc, signal.SIGTERM)
            try:
                proc.wait(timeout=_KILL_GRACE)
            except subprocess.TimeoutExpired:
                pass
        except BaseException:  # Ctrl-C: take the whole group down with us
            _kill_group(proc, signal.SIGKILL)
            proc.wait()
            raise
        finally:
            _kill_group(proc, signal.SIGKILL)  # leave no orphans holding the pipes
            proc.wait()
            with _active_lock:
                _active.discard(proc)
            for t in threads:
                t.join(timeout=5)
            for stream in (proc.stdout, proc.stderr):
                try:
                    stream.close()
                except OSError:
                    pass

        elapsed = time.monotonic() - started
        stderr_text = bytes(err[-_STDERR_KEEP:]).decode("utf-8", errors="replace").strip()
        if timed_out:
            raise ProviderTimeout(self.name, f"timed out after {timeout:g}s; process group killed")
        if flooded.is_set():
            raise ProviderOutputError(
                self.name,
                f"output exceeded {self.max_output // (1024 * 1024)} MiB; stopped and discarded",
            )
        rc = proc.returncode
        if rc is not None and rc < 0:
            raise ProviderFailed(
                self.name, f"killed by signal {signal.Signals(-rc).name}", _last_lines(stderr_text)
            )
        if rc != 0 and not (self.spec.nonzero_ok and out.strip()):
            raise ProviderFailed(self.name, f"exited with status {rc}", _last_lines(stderr_text))
        try:
            text = bytes(out).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProviderOutputError(
                self.name, f"output is not UTF-8 (bad byte at offset {exc.start})"
            ) from None
        if self.spec.output == "codex-jsonl":
            text = _codex_messages(self.name, text)
        if not text.strip():
            detail = _last_lines(stderr_text)
            raise ProviderOutputError(self.name, f"empty output after {elapsed:.1f}s", detail)
        return text


def _drain(stream: IO[bytes], keep: Callable[[bytes], bool]) -> None:
    """Read `stream` in chunks into `keep` until EOF or until `keep` says stop."""
    read = getattr(stream, "read1", stream.read)
    while True:
        chunk = read(65536)
        if not chunk or not keep(chunk):
            return


def _last_lines(text: str, n: int = 3, limit: int = 400) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()][-n:]
    joined = " / ".join(lines)
    return joined if len(joined) <= limit else "..." + joined[-limit:]


def _codex_messages(name: str, text: str) -> str:
    """Join the agent messages of `codex exec --json` output (one JSON event per line)."""
    messages: list[str] = []
    errors: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(event, dict):
            continue
        etype = event.get("type")
        if etype == "item.completed":
            item = event.get("item") or {}
            kind = item.get("type") or item.get("item_type")
            if kind in ("agent_message", "assistant_message") and isinstance(item.get("text"), str):
                messages.append(item["text"])
        elif etype in ("turn.failed", "error"):
            e = event.get("error") or event.get("message") or event
            errors.append(e.get("message", str(e)) if isinstance(e, dict) else str(e))
    if not messages and errors:
        raise ProviderFailed(name, "reported an error", _last_lines("\n".join(errors)))
    return "\n\n".join(messages)
