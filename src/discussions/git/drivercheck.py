"""`driver_warning`: whether this clone can run the merge driver its ``.gitattributes`` names.

`discussions status` and `check` ask on every run, so this module holds only the check and
the driver's name, not the set-up (`setup`).
"""

from __future__ import annotations

import os
from pathlib import Path

from .run import find_git_root, run_git

DRIVER = "discussions"
"""The merge driver's name in ``.gitattributes`` and in the clone's configuration."""


def driver_warning(path: Path) -> str | None:
    """A one-line warning when `path`'s ``merge`` attribute names the discussions driver but
    this clone has no such driver configured (git would then merge it line by line and
    conflict). Runs git only when the repository's root ``.gitattributes`` mentions
    ``discussions``, so it costs nothing elsewhere."""
    root = find_git_root(path)
    if root is None:
        return None
    attributes = root / ".gitattributes"
    try:
        if b"discussions" not in attributes.read_bytes():
            return None
    except OSError:
        return None
    try:
        rel = path.resolve().relative_to(root).as_posix()
    except ValueError:
        return None
    proc = run_git(["check-attr", "merge", "--", rel], root, check=False)
    if proc.returncode != 0:
        return None
    value = proc.stdout.decode("utf-8", "replace").rsplit(": ", 1)[-1].strip()
    if value != DRIVER:
        return None
    cfg = run_git(["config", "--get", f"merge.{DRIVER}.driver"], root, check=False)
    command = cfg.stdout.decode("utf-8", "replace").strip()
    if cfg.returncode != 0 or not command:
        return "this clone has no merge driver for discussions: run `discussions init`"
    import shlex  # only when the driver is configured

    try:
        program = shlex.split(command)[0]
    except (ValueError, IndexError):
        program = ""
    if os.path.isabs(program) and not os.path.exists(program):
        return (
            f"the discussions merge driver points at {program}, which no longer exists: "
            "run `discussions init`"
        )
    if " -m discussions " in command and " -P " not in command:
        return (
            "the discussions merge driver runs without -P, so a repository's own "
            "`discussions` folder could be imported in its place: run `discussions init`"
        )
    return None
