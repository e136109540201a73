"""The API key an HTTP provider sends: from an environment variable (``api_key_env``) or from
a command that prints a token (``api_key_command``, cached for ``api_key_ttl`` seconds).

The key lives in this process's memory only: it is never written to a file, a discussion, a
log or an error. A command's failure is told by its exit status alone (its output could be
the token, its error stream could quote it), and a printed token is trimmed of the white
space around it (a line end). The cache is keyed by the command line, so two entries that
ask the same helper share one token; `forget_keys` empties it (a token revoked early).

A project's ``providers.yaml`` is used only once trusted (`trust`), and the trust covers
``api_key_command`` like ``command``: a cloned repository cannot make a key helper run.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

from ..errors import ProviderFailed
from .base import ProviderSpec

DEFAULT_TTL = 300.0
"""Seconds a token printed by ``api_key_command`` is reused when ``api_key_ttl`` is not set."""
_COMMAND_TIMEOUT = 30.0
"""Seconds a key helper may take."""
_MAX_TOKEN_BYTES = 16 * 1024

_cache: dict[str, tuple[str, float]] = {}
"""``{command line: (token, monotonic time it was printed)}``: in memory only; each entry
that uses it judges its age by its own ``api_key_ttl``."""
_lock = threading.Lock()


def forget_keys() -> None:
    """Drop every cached token (the next call runs its helper again)."""
    with _lock:
        _cache.clear()


def wants_key(spec: ProviderSpec) -> bool:
    """Whether `spec` sends an API key (from a variable or a command)."""
    return bool(spec.api_key_env or spec.api_key_command)


def key_source(spec: ProviderSpec) -> str:
    """Where the key comes from, for listings and errors (never the key):
    ``$NAME`` or ``the command `helper```."""
    if spec.api_key_command:
        return f"the command `{spec.api_key_command}`"
    return f"${spec.api_key_env}" if spec.api_key_env else ""


def api_key(spec: ProviderSpec) -> str:
    """The key `spec` sends ("" when it sends none); `ProviderFailed` when the variable is
    unset or the command fails, saying which, never quoting what it printed."""
    if spec.api_key_command:
        return _from_command(spec)
    name = spec.api_key_env
    return os.environ.get(name, "").strip() if name else ""


def _from_command(spec: ProviderSpec) -> str:
    command = spec.api_key_command or ""
    ttl = spec.api_key_ttl if spec.api_key_ttl is not None else DEFAULT_TTL
    with _lock:
        cached = _cache.get(command)
        if cached is not None and time.monotonic() - cached[1] < ttl:
            return cached[0]
    token = _run_helper(spec.name, command)
    with _lock:
        _cache[command] = (token, time.monotonic())
    return token


def _run_helper(name: str, command: str) -> str:
    """What `command` prints, trimmed; its failure said without its output."""
    from .command import run_contained, split_command

    argv = split_command(command)
    exe = shutil.which(argv[0]) if argv else None
    if exe is None:
        raise ProviderFailed(name, f"api_key_command `{command}`: its program is not installed")
    done = run_contained(
        f"{name} (api_key_command)",
        [exe, *argv[1:]],
        cwd=Path.cwd(),
        env=dict(os.environ),
        timeout=_COMMAND_TIMEOUT,
        max_output=_MAX_TOKEN_BYTES,
    )
    if done.timed_out:
        raise ProviderFailed(name, f"api_key_command timed out after {_COMMAND_TIMEOUT:g}s")
    if done.returncode != 0 or done.flooded:
        why = "printed too much" if done.flooded else f"exited with status {done.returncode}"
        raise ProviderFailed(name, f"api_key_command {why} (its output is not shown)")
    token = done.out.decode("utf-8", "replace").strip()
    if not token:
        raise ProviderFailed(name, "api_key_command printed nothing")
    return token
