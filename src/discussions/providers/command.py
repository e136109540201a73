"""A provider that runs a command: prompt on stdin (or as its last argument), answer on stdout.

* The command string is split with `shlex` (never a shell); ``$VARS`` and ``~`` are expanded in
  each word.
* The timeout holds whatever the command's children do. The pipes are read on the calling thread
  with a selector and non-blocking descriptors, so the reader itself enforces the deadline; it
  stops at the deadline, or shortly after the command exits even if a daemon it started keeps
  the pipes open. Nothing ever closes a stream that another thread is reading.
* The command runs in its own process group. When the call ends (answer, timeout, flood, Ctrl-C,
  SIGTERM) the group is killed, and so is every descendant that escaped into a session of its own
  and that we can find: processes carrying this call's tag in their environment (inherited across
  fork, exec and ``setsid``) and processes whose parent chain leads to the command (`escapes`).
  Inside a turn, calls that ended cleanly are searched for together when the turn ends.
  A call spawned as the calls are stopped is killed once registered (`slots.stoppable`).
* On Linux the command also gets ``PR_SET_PDEATHSIG``: if `discussions` dies without a chance to
  clean up (SIGKILL), the kernel kills the command (armed by ``setpriv`` where it is installed,
  so that the spawn needs no ``preexec_fn`` and Python can use vfork; see `_with_pdeathsig`).
* stdout is capped (`max_output`); stderr keeps its last 64 KiB for error messages.
"""

from __future__ import annotations

import functools
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from ..errors import (
    ProviderFailed,
    ProviderNotFound,
    ProviderOutputError,
    ProviderTimeout,
)
from ..syntax.lazyre import Lazy
from ..syntax.record import Record
from . import escapes
from .argv_prompt import with_prompt_argument
from .base import Completion, Provider, ProviderRequest, ProviderSpec, call_timeout
from .environment import command_env
from .escapes import RUN_TAG_VAR, Call, signal_pid
from .reports import codex_last_message, failure_reason
from .slots import stop_waiting, stopped_since, stops_seen
from .streaming import output_sink
from .usage import ANSWER_PARSERS, UNKNOWN, codex_usage

DEFAULT_MAX_OUTPUT = 4 * 1024 * 1024
_STDERR_KEEP = 64 * 1024
_CHUNK = 65536
_TICK = 0.05
"""Longest wait between checks of the command's exit status, in seconds."""
_EXIT_GRACE = 1.0
"""After the command exits, how long to wait for more output before ignoring open pipes."""
_KILL_GRACE = 2.0
"""After a timeout, how long the command may take to exit on SIGTERM before SIGKILL."""
_REAP_WAIT = 5.0
"""How long to wait for a SIGKILLed command to be reaped."""


def split_command(command: str) -> list[str]:
    """Split a command line without a shell and expand ``$VARS`` / ``~`` in each word."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise ProviderFailed("command", f"cannot parse command line: {exc}") from None
    return [os.path.expanduser(os.path.expandvars(w)) for w in words]


# --------------------------------------------------------------------------- running calls

_active: set[_Run] = set()
_active_lock = threading.Lock()


_also_stopped: list[Callable[[], int]] = []


def also_on_terminate(stop: Callable[[], int]) -> None:
    """Have `terminate_all` also call `stop` (for calls that are not processes: a server's);
    `stop` returns how many calls it ended."""
    if stop not in _also_stopped:
        _also_stopped.append(stop)


def terminate_all() -> int:
    """Kill every running command with all its descendants, and end every other running call
    registered with `also_on_terminate` (Ctrl-C, SIGTERM). Returns how many."""
    waiting = stop_waiting()  # first: no waiting call starts once the running ones end
    with _active_lock:
        running = list(_active)
    for run in running:
        run.kill()
    return waiting + len(running) + sum(stop() for stop in list(_also_stopped))


def install_signal_handlers() -> None:
    """Make SIGTERM and SIGHUP kill every running provider and exit with status 128+signum.

    Python allows installing handlers from the main thread only; elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None:
            signal.signal(signum, on_termination_signal)


def on_termination_signal(signum: int, frame: FrameType | None) -> None:
    """Signal handler: kill the running providers, then exit cleanly with 128+signum."""
    signal.signal(signum, signal.SIG_DFL)  # a second signal ends us at once
    terminate_all()
    raise SystemExit(128 + signum)


def _kill_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


# --------------------------------------------------------------------------- one call


_GUARD = '[ "$PPID" = "$1" ] || exit 137; shift; exec "$@"'
"""Run by ``/bin/sh`` after ``setpriv --pdeathsig``: if the parent died before the death
signal was armed the shell has been handed to another parent already, and stops there."""


@functools.cache
def _setpriv() -> str | None:
    """``setpriv`` (util-linux) if it can arm the parent-death signal, else None. Its help
    text lists ``--pdeathsig``; looking for the option in the binary costs no process."""
    if not sys.platform.startswith("linux") or not os.path.exists("/bin/sh"):
        return None
    path = shutil.which("setpriv")
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            found = b"pdeathsig" in f.read()
    except OSError:
        return None
    return path if found else None


def _with_pdeathsig(argv: list[str]) -> tuple[list[str], Callable[[], None] | None]:
    """`argv` made to die with us, and the preexec function that needs (if any).

    Linux's PR_SET_PDEATHSIG makes the kernel SIGKILL the command when the thread that
    started it dies, even by SIGKILL. Preferably ``setpriv --pdeathsig KILL`` arms it and a
    shell checks the parent is still us before exec'ing the command, so Python can spawn
    with vfork (a ``preexec_fn`` forces a full fork of this large process: ~3 ms each, with
    the interpreter lock held). Without setpriv the preexec function does the same.
    PR_SET_PDEATHSIG fires when the *thread* that forked the child exits; our calls spawn
    and wait on the same thread, so the thread outlives the child.
    """
    if not sys.platform.startswith("linux"):
        return argv, None
    setpriv = _setpriv()
    if setpriv is not None:
        guard = [setpriv, "--pdeathsig", "KILL", "--", "/bin/sh", "-c", _GUARD, "sh"]
        return [*guard, str(os.getpid()), *argv], None
    return argv, _pdeathsig_preexec()


def _pdeathsig_preexec() -> Callable[[], None] | None:
    """A preexec function asking Linux to SIGKILL the child when its parent thread dies.

    Caveats: ``preexec_fn`` runs between fork and exec and is not safe in the presence of
    threads if it takes locks another thread held at fork time; the ctypes function is looked
    up here, in the parent, so the child only makes one foreign call. Returns None where
    prctl is unavailable.
    """
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def set_pdeathsig() -> None:
        prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        if os.getppid() != parent:  # the parent died before prctl: do not outlive it
            os.kill(os.getpid(), signal.SIGKILL)

    return set_pdeathsig


class _Run:
    """One running command: its pipes, what it said, how it ended (not a dataclass: start-up)."""

    cap: int
    """Bytes of answer after which the command is stopped and what it wrote kept (0: none)."""
    clean: bool
    """The command exited by itself and closed its output: nothing holds our pipes."""
    since: int
    """The command's start in clock ticks since boot (see `escapes.Call`)."""
    on_out: Callable[[bytes], None] | None
    """Streaming: called with each stdout chunk as it is read (see `streaming.output_sink`)."""

    def __init__(
        self, proc: subprocess.Popen[bytes], tag: str, max_output: int, since: int = 0
    ) -> None:
        self.proc = proc
        self.tag = tag
        self.max_output = max_output
        self.out = bytearray()
        self.err = bytearray()
        self.timed_out = False
        self.flooded = False
        self.cap = 0
        self.capped = False
        self.clean = False
        self.since = since
        self.started = time.monotonic()
        self.on_out = None

    @classmethod
    def spawn(
        cls,
        name: str,
        argv: list[str],
        env: dict[str, str],
        max_output: int,
        cwd: Path | None = None,
    ) -> _Run:
        tag = uuid.uuid4().hex
        guarded, preexec = _with_pdeathsig(argv)
        seen = stops_seen()
        try:
            proc = subprocess.Popen(
                guarded,
                cwd=cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**env, RUN_TAG_VAR: tag},
                start_new_session=True,
                preexec_fn=preexec,
            )
        except OSError as exc:
            raise ProviderNotFound(name, f"cannot run `{argv[0]}`: {exc.strerror}") from None
        run = cls(proc, tag, max_output, since=escapes.start_tick(proc.pid))
        with _active_lock:
            _active.add(run)
        if stopped_since(seen):  # stopped as it started: `terminate_all` may not have seen it
            run.kill()
        return run

    def collect(self, prompt: bytes, timeout: float) -> None:
        """Feed `prompt`, read stdout/stderr until the command is done, floods, or times out."""
        deadline = self.started + timeout
        with selectors.DefaultSelector() as sel:
            self._register(sel, prompt)
            exit_grace: float | None = None
            while sel.get_map():
                now = time.monotonic()
                if exit_grace is None and self.proc.poll() is not None:
                    exit_grace = now + _EXIT_GRACE
                until = deadline if exit_grace is None else min(deadline, exit_grace)
                if now >= until:
                    self.timed_out = exit_grace is None
                    return
                for key, _ in sel.select(min(until - now, _TICK)):
                    if not self._service(sel, key):
                        return  # flooded
                    if exit_grace is not None:
                        exit_grace = time.monotonic() + _EXIT_GRACE
            if self.proc.poll() is None:  # pipes closed, command still running
                self._wait_exit(deadline)
            self.clean = not self.timed_out

    def _register(self, sel: selectors.BaseSelector, prompt: bytes) -> None:
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            os.set_blocking(stream.fileno(), False)
        if prompt:
            sel.register(self.proc.stdin, selectors.EVENT_WRITE, memoryview(prompt))
        else:
            self.proc.stdin.close()
        sel.register(self.proc.stdout, selectors.EVENT_READ, self._keep_out)
        sel.register(self.proc.stderr, selectors.EVENT_READ, self._keep_err)

    def _service(self, sel: selectors.BaseSelector, key: selectors.SelectorKey) -> bool:
        """Move data for one ready pipe. Returns False when output must stop (flood)."""
        if isinstance(key.data, memoryview):
            return self._feed(sel, key)
        try:
            chunk = os.read(key.fd, _CHUNK)
        except BlockingIOError:
            return True
        except OSError:
            chunk = b""
        if not chunk:
            sel.unregister(key.fileobj)
            return True
        keep: Callable[[bytes], bool] = key.data
        return keep(chunk)

    def _feed(self, sel: selectors.BaseSelector, key: selectors.SelectorKey) -> bool:
        view: memoryview = key.data
        try:
            written = os.write(key.fd, view[:_CHUNK])
        except BlockingIOError:
            return True
        except OSError:  # the command stopped reading; its exit status tells the rest
            written = len(view)
        rest = view[written:]
        if rest:
            sel.modify(key.fileobj, selectors.EVENT_WRITE, rest)
        else:
            sel.unregister(key.fileobj)
            _close(key.fileobj)
        return True

    def _keep_out(self, chunk: bytes) -> bool:
        self.out.extend(chunk)
        if self.on_out is not None and len(self.out) <= self.max_output:
            self.on_out(chunk)
        if self.cap and len(self.out) > self.cap:  # long enough: the engine cuts the answer
            del self.out[self.cap :]
            self.capped = True
            _kill_group(self.proc.pid, signal.SIGKILL)
            return False
        if len(self.out) > self.max_output:
            self.flooded = True
            _kill_group(self.proc.pid, signal.SIGKILL)
            return False
        return True

    def _keep_err(self, chunk: bytes) -> bool:
        self.err.extend(chunk)
        if len(self.err) > 2 * _STDERR_KEEP:
            del self.err[:-_STDERR_KEEP]
        return True

    def _wait_exit(self, deadline: float) -> None:
        try:
            self.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.timed_out = True

    def kill(self) -> None:
        """SIGKILL the group and every escaped descendant we can find. Safe to call twice."""
        # Once the leader is reaped its pid may belong to an unrelated process: look only for
        # tagged processes then (the leader's children carry the tag anyway).
        leader = self.proc.pid if self.proc.returncode is None else None
        escaped = escapes.stop_escaped([Call(self.tag, leader, self.since)])
        _kill_group(self.proc.pid, signal.SIGKILL)
        for pid in escaped:
            signal_pid(pid, signal.SIGKILL)

    def finish(self) -> None:
        """Kill what is left, reap the command, close our ends of the pipes. A call that
        ended cleanly inside a turn leaves the search for escaped descendants to the turn's
        one pass (`escapes.one_sweep`); any other searches now."""
        if self.timed_out:  # give the command a moment to clean up after itself
            _kill_group(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=_KILL_GRACE)
            except subprocess.TimeoutExpired:
                pass
        sweep = escapes.current()
        if sweep is not None and self.clean and self.proc.poll() is not None:
            _kill_group(self.proc.pid, signal.SIGKILL)  # what stayed in the group
            sweep.add(Call(self.tag, None, self.since))
        else:
            self.kill()
        try:
            self.proc.wait(timeout=_REAP_WAIT)
        except subprocess.TimeoutExpired:  # pragma: no cover - stuck in the kernel
            pass
        with _active_lock:
            _active.discard(self)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            _close(stream)

    def stderr_text(self) -> str:
        """The end of stderr, terminal colour and title codes left out (opencode colours its
        stderr even without a terminal): what error messages and records quote."""
        text = bytes(self.err[-_STDERR_KEEP:]).decode("utf-8", errors="replace")
        return strip_terminal_codes(text).strip()


_TERMINAL_CODES = Lazy(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def strip_terminal_codes(text: str) -> str:
    """`text` without terminal control sequences (CSI colours and cursor moves, OSC titles)."""
    return _TERMINAL_CODES.sub("", text)


def _close(stream: object) -> None:
    close = getattr(stream, "close", None)
    if close is None:
        return
    try:
        close()
    except OSError:
        pass


# --------------------------------------------------------------------------- the provider


class CommandProvider(Provider):
    """Runs `spec.command` for each request."""

    def __init__(self, spec: ProviderSpec, *, max_output: int = DEFAULT_MAX_OUTPUT) -> None:
        if not spec.command:
            raise ValueError("a command provider needs a command")
        self.spec = spec
        self.name = spec.name
        self.max_output = max_output
        self.context_window = spec.context_window
        self.parallel = spec.parallel

    def argv(self) -> list[str]:
        return split_command(self.spec.command or "")

    def executable(self) -> str | None:
        """Full path of the command's executable, if it is installed."""
        argv = self.argv()
        return shutil.which(argv[0]) if argv else None

    def complete(self, request: ProviderRequest) -> str:
        return self.complete_with_usage(request).text

    def complete_with_usage(self, request: ProviderRequest) -> Completion:
        """The answer and the usage the command reported (``claude-json``, ``codex-jsonl``,
        ``gemini-json``)."""
        timeout = call_timeout(self.spec, request)
        argv, env, stdin = self._argv_for(request), self._env(), request.prompt.encode("utf-8")
        if self.spec.prompt_via == "argument":  # opted in: see `argv_prompt`
            argv, stdin = with_prompt_argument(self.name, argv, request.prompt, env), b""
        run = _Run.spawn(self.name, argv, env, self.max_output)
        if request.max_answer_chars and self.spec.output == "text":
            run.cap = 4 * request.max_answer_chars + 4  # past the cap in any UTF-8 text
        if request.on_output is not None:
            run.on_out = output_sink(self.spec.output, request.on_output)
        try:
            run.collect(stdin, timeout)
        finally:
            run.finish()
        return self._classify(run, timeout)

    def _argv_for(self, request: ProviderRequest) -> list[str]:
        """The command line, with the ``output_limit`` words where the engine caps answers."""
        argv = self._resolved_argv()
        if self.spec.output_limit and request.max_answer_chars:
            tokens = str(max(1, request.max_answer_chars // 4))
            argv += [w.replace("{tokens}", tokens) for w in split_command(self.spec.output_limit)]
        return argv

    def _decode(self, out: bytes, cut: bool = False) -> str:
        """`out` as UTF-8 text; with `cut` (reading stopped at the cap), a character cut in
        two at the end is dropped."""
        try:
            return out.decode("utf-8")
        except UnicodeDecodeError as exc:
            if cut and exc.start >= len(out) - 3:
                return out[: exc.start].decode("utf-8")
            raise ProviderOutputError(
                self.name, f"output is not UTF-8 (bad byte at offset {exc.start})"
            ) from None

    def _resolved_argv(self) -> list[str]:
        argv = self.argv()
        if not argv:
            raise ProviderFailed(self.name, "empty command")
        exe = shutil.which(argv[0])
        if exe is None:
            raise ProviderNotFound(self.name, f"not installed: `{argv[0]}` not found on PATH")
        return [exe, *argv[1:]]

    def _env(self) -> dict[str, str]:
        return command_env(os.environ, self.spec.env_remove, self.spec.env)

    def _classify(self, run: _Run, timeout: float) -> Completion:
        """The answer text, or the error that says why there is none."""
        if run.timed_out:
            why = f"timed out after {timeout:g}s; process group killed"
            raise ProviderTimeout(self.name, why, self._retrying(run))
        if run.flooded:
            raise ProviderOutputError(
                self.name,
                f"output exceeded {self.max_output // (1024 * 1024)} MiB; stopped and discarded",
            )
        stderr_text = run.stderr_text()
        rc = run.proc.returncode
        if run.capped:  # stopped by us, past the cap: what it wrote is the answer
            return Completion(self._decode(bytes(run.out), cut=True), UNKNOWN, stopped=True)
        if rc is not None and rc < 0:
            raise ProviderFailed(
                self.name, f"killed by signal {signal.Signals(-rc).name}", _last_lines(stderr_text)
            )
        if rc != 0 and not (self.spec.nonzero_ok and run.out.strip()):
            raise ProviderFailed(self.name, f"exited with status {rc}", self._reason(run))
        text = self._decode(bytes(run.out))
        usage = UNKNOWN
        if self.spec.output == "codex-jsonl":
            usage = codex_usage(text)
            text = _codex_messages(self.name, text)
        elif self.spec.output in ANSWER_PARSERS:
            text, usage = ANSWER_PARSERS[self.spec.output](self.name, text, stderr_text)
        if not text.strip():
            detail, took = _last_lines(stderr_text), time.monotonic() - run.started
            raise ProviderOutputError(self.name, f"empty output after {took:.1f}s", detail)
        return Completion(text, usage)

    def _retrying(self, run: _Run) -> str:
        """What a command that timed out last said went wrong, where its output format says
        it (gemini retries a server error for minutes, quoting the API's error each time)."""
        return failure_reason(self.spec.output, "", run.stderr_text()) or ""

    def _reason(self, run: _Run) -> str:
        """Why a command that exited non-zero failed: the reason its structured output reports
        (`failure_reason`), which stderr's last lines often are not, else those lines."""
        stderr_text = run.stderr_text()
        out = bytes(run.out).decode("utf-8", errors="replace")
        said = failure_reason(self.spec.output, out, stderr_text)
        return said or _last_lines(stderr_text)


class ContainedRun(Record):
    """How a command run by `run_contained` ended (a `Record`, cheaper to make than a dataclass)."""

    __slots__ = ("out", "err", "returncode", "timed_out", "flooded")
    out: bytes
    """stdout, at most `max_output` bytes (cut when `flooded`)."""
    err: str
    """The end of stderr."""
    returncode: int | None
    timed_out: bool
    flooded: bool

    def __init__(
        self, out: bytes, err: str, returncode: int | None, timed_out: bool, flooded: bool
    ) -> None:
        self.out = out
        self.err = err
        self.returncode = returncode
        self.timed_out = timed_out
        self.flooded = flooded


def run_contained(
    name: str,
    argv: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    max_output: int,
    stdin: bytes = b"",
    on_output: Callable[[str], None] | None = None,
) -> ContainedRun:
    """Run `argv` (no shell; `stdin` fed to it) in `cwd` with the containment of a provider
    call: its own process group, killed with every escaped descendant when it ends, times out
    or writes more than `max_output` bytes. `on_output` gets stdout as decoded text while it
    arrives. `ProviderNotFound` when it cannot start."""
    run = _Run.spawn(name, argv, env, max_output, cwd)
    if on_output is not None:
        run.on_out = output_sink("text", on_output)
    try:
        run.collect(stdin, timeout)
    finally:
        run.finish()
    out = bytes(run.out[:max_output])
    return ContainedRun(out, run.stderr_text(), run.proc.returncode, run.timed_out, run.flooded)


def _last_lines(text: str, n: int = 3, limit: int = 400) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()][-n:]
    joined = " / ".join(lines)
    return joined if len(joined) <= limit else "..." + joined[-limit:]


def _codex_messages(name: str, text: str) -> str:
    """The answer in `codex exec --json` output (one JSON event per line): its last agent
    message (`reports.codex_last_message`), or the error it reported instead."""
    message = codex_last_message(text)
    if message is None:
        reason = failure_reason("codex-jsonl", text)
        if reason is not None:
            raise ProviderFailed(name, "reported an error", reason)
    return message or ""
