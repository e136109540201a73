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

DRIVER_SCRIPT = (
    'set -f; q=; IFS=:; for e in $PATH; do case $e in /*) q="$q${q:+:}$e";; esac; done; '
    "unset IFS; PATH=$q; y=$1 f=$2 o=$3 a=$4 b=$5 l=$6 p=$7 m= h='<' n=$6; "
    'while [ "$n" -gt 0 ]; do [ $((n - n / 2 * 2)) = 1 ] && m="$m$h"; h="$h$h"; n=$((n / 2)); '
    "done; "
    'for c in 0 1 2 3; do case $c in 0) [ -f "$f" ] || continue; set -- "$y" -I -S "$f";; '
    '1) set -- "$y" -P -m discussions;; '
    "2) command -v discussions >/dev/null 2>&1 || continue; set -- discussions;; "
    "3) set -- python3 -P -m discussions;; esac; "
    '"$@" merge-file --marker-size "$l" "$o" "$a" "$b" "$p"; s=$?; '
    '[ $s = 0 ] && exit 0; grep -q -e "^$m ours" -- "$a" && exit $s; done; '
    'echo "discussions: no merge driver could run for $p (not $y, not discussions on PATH, '
    'not python3): merged line by line; run discussions init, then discussions resolve $p" >&2; '
    'git merge-file --marker-size="$l" -L ours -L base -L theirs "$a" "$o" "$b"'
)
"""The merge driver as git runs it, after ``set -- PYTHON ENTRY %O %A %B %L %P; `` (git runs a
driver's command with its own ``sh -c``, ll-merge.c's ``RUN_USING_SHELL``, with the temporary
files' names and the sq-quoted path put in place of the placeholders; so no second shell
starts): the first of this installation's Python
on its own file ``ENTRY`` (`git.mergefile`), the same Python with ``-m discussions``,
``discussions`` on PATH and ``python3`` that merges the file.

``-I -S``: no ``site`` (its ``.pth`` files and site-packages folders cost a quarter of a bare
Python's start, and no code of theirs runs), no ``PYTHON*`` variables and nothing of the work
tree on ``sys.path`` (git runs the driver from the work tree's root, whose files must never be
imported); `mergefile` puts its own package's folder on it and merges the usual appends without
importing ``re`` (`plain`). A candidate that fails without writing its conflict (ours then has
no ``<<<<<<< ours`` line: it could not start, could not import discussions, or could not read
the files) gives way to the next; when none can, ``git merge-file`` writes the conflict git
would have written without a driver. Git needs conflict markers in ours: a failed driver that
left ours as it was would have the other side's comments dropped by the commit that follows
(`appends.merge_losses` catches that too). Only builtins run before the driver; the marker
(``<`` times ``%L``, a size the repository's ``.gitattributes`` may set) is built by doubling,
in steps that grow with the size's digits, not with the size. PATH keeps only its absolute
folders, so no file of the work tree is taken for ``discussions``, ``python3`` or ``grep``.
The script has no ``%`` (git expands its placeholders in the whole command)."""

DRIVER_SCRIPT_P = (
    'set -f; q=; IFS=:; for e in $PATH; do case $e in /*) q="$q${q:+:}$e";; esac; done; '
    "unset IFS; PATH=$q; o=$1 a=$2 b=$3 l=$4 p=$5 m= h='<' n=$4; "
    'while [ "$n" -gt 0 ]; do [ $((n - n / 2 * 2)) = 1 ] && m="$m$h"; h="$h$h"; n=$((n / 2)); '
    "done; "
    'for c in 1 2 3; do case $c in 1) set -- "$0" -P -m discussions;; '
    "2) command -v discussions >/dev/null 2>&1 || continue; set -- discussions;; "
    "3) set -- python3 -P -m discussions;; esac; "
    '"$@" merge-file --marker-size "$l" "$o" "$a" "$b" "$p"; s=$?; '
    '[ $s = 0 ] && exit 0; grep -q -e "^$m ours" -- "$a" && exit $s; done; '
    'echo "discussions: no merge driver could run for $p (not $0, not discussions on PATH, '
    'not python3): merged line by line; run discussions init, then discussions resolve $p" >&2; '
    'git merge-file --marker-size="$l" -L ours -L base -L theirs "$a" "$o" "$b"'
)
"""The command `setup.driver_command` registered before `DRIVER_SCRIPT` (``sh -c SCRIPT
PYTHON %O %A %B %L %P``: this installation's Python with ``-P -m discussions`` first, then the
same fallbacks): clones set up then still merge with it, and `driver_warning` knows it."""


def registered_python(command: str) -> str | None:
    """The Python a driver command registered by `setup.driver_command` (now or before) tries
    first; None for a command of another shape."""
    found = _registered(command)
    return found[0] if found else None


def registered_entry(command: str) -> str | None:
    """The file (`git.mergefile`) a driver command registered by `setup.driver_command` runs its
    Python on first; None for a command of another shape (one registered before it)."""
    found = _registered(command)
    return found[1] if found and len(found) > 1 else None


def _registered(command: str) -> list[str] | None:
    """What a registered command gives its script: [PYTHON, ENTRY] (``set -- PYTHON ENTRY %O
    %A %B %L %P; DRIVER_SCRIPT``) or [PYTHON] (``sh -c DRIVER_SCRIPT_P PYTHON %O ...``)."""
    import shlex

    tail = "; " + DRIVER_SCRIPT
    try:
        if command.endswith(tail):
            argv = shlex.split(command[: -len(tail)])
            return argv[2:4] if argv[:2] == ["set", "--"] and len(argv) == 9 else None
        argv = shlex.split(command)
    except ValueError:
        return None
    return argv[3:4] if argv[:3] == ["sh", "-c", DRIVER_SCRIPT_P] and len(argv) > 3 else None


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

    python = registered_python(command)
    if python is not None:
        return _registered_warning(command, python)
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
    if " -m discussions merge-file" in command:  # what init registered before the fallbacks
        return (
            "the discussions merge driver has no fallback should its Python go away (a merge "
            "would then keep only your side): run `discussions init`"
        )
    return None


def _registered_warning(command: str, python: str) -> str | None:
    """The warning for a command `setup.driver_command` registered (now or before): its
    Python, or the file it runs first, is gone."""
    if os.path.isabs(python) and not os.path.exists(python):
        return (
            f"the discussions merge driver's Python {python} no longer exists (merges "
            "fall back to `discussions` on PATH, python3, else a line-merge conflict): "
            "run `discussions init`"
        )
    entry = registered_entry(command)
    if entry is not None and not os.path.exists(entry):
        return (
            f"the discussions merge driver's file {entry} no longer exists (merges fall "
            f"back to {python} -m discussions, a slower start): run `discussions init`"
        )
    return None
