"""The ``command`` kind: a command line run as a subprocess, the prompt on its standard input
(`providers.command`); every preset is one. Installed when its program is on PATH."""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Mapping
from typing import Any

from ...errors import DiscussionsError
from ..base import Provider, ProviderSpec
from ..command import CommandProvider, split_command

DECLARABLE = True
REQUIRED = ("name", "command")
SERVER = False


def entry_problem(item: Mapping[str, Any]) -> tuple[str, str] | None:
    """Nothing beyond its command (checked when it runs)."""
    return None


def build(spec: ProviderSpec) -> Provider:
    """The subprocess provider of `spec`'s command line."""
    return CommandProvider(spec)


def status(spec: ProviderSpec) -> str:
    """``installed`` when the program of its command line is on PATH, else ``missing``."""
    return "installed" if program_on_path(spec.command or "") else "missing"


def location(spec: ProviderSpec) -> tuple[bool, str]:
    """Its executable's full path (``$VARS`` expanded), or ``not found``."""
    exe = CommandProvider(spec).executable()
    return exe is not None, exe or "not found"


def target(spec: ProviderSpec) -> str:
    """Its command line."""
    return spec.command or "(built in)"


def program(command: str) -> str:
    """The program a command line runs (the command itself when it cannot be split)."""
    try:
        argv = split_command(command)
    except DiscussionsError:
        return command
    return argv[0] if argv else command


def program_on_path(command: str) -> str | None:
    """Where the program of `command` is on PATH (`find_executable`), or None, also for a
    command line that cannot be split."""
    try:
        argv = split_command(command)
    except DiscussionsError:
        return None
    return find_executable(argv[0]) if argv else None


@functools.lru_cache(maxsize=256)
def _which(executable: str, path_env: str | None) -> str | None:
    return shutil.which(executable, path=path_env)


def find_executable(executable: str) -> str | None:
    """`shutil.which`, cached per process (and per PATH value)."""
    return _which(executable, os.environ.get("PATH"))
