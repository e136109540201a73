"""Code comments that summon a council: a line such as ``# @discuss: should this retry
forever?`` in a source file (TheRoundtAIble's ``@roundtable`` comments). `find_in` lists them
in the files the evidence rule lets a participant read (`confine.Confinement.files`: tracked
and untracked files git does not ignore, secrets and ``evidence.exclude`` left out), so a
secret or an ignored file is never opened; the discussions folder is left out too (a
discussion quotes the comment it was started from). `hook_script` and `install_hook` put
``discussions summon --hook`` in the repository's pre-commit hook. Nothing here writes a
source file.

A summons is the prefix (``@discuss`` unless ``summon.prefix`` says otherwise) and a colon,
after a comment opener at the start of a line or after white space: ``#``, ``//``, ``--``,
``/*``, ``<!--``, ``;``, ``%``, or the ``*`` of a block comment's inner line; a closing
``*/`` or ``-->`` is not part of the question. An opener right after a quote or a letter
(``"# @discuss: x"`` in a string) is not one.
"""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .confine import Confinement
from .run import run_git

DEFAULT_PREFIX = "@discuss"
_OPENERS = r"(?:#+|//+|--+|/\*+|<!--|\*|;+|%+)"
_MAX_BYTES = 1 << 20
"""Files larger than this are not scanned (generated or data files)."""
HOOK_MARK = "# discussions: code comments that summon a council"


@dataclass(slots=True, frozen=True)
class CodeSummons:
    """One summoning comment."""

    path: str
    """Posix path relative to the project's root."""
    line: int
    question: str
    text: str
    """The whole line, stripped."""

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def to_dict(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "question": self.question, "text": self.text}


def pattern(prefix: str = DEFAULT_PREFIX) -> re.Pattern[str]:
    """The summons line pattern for `prefix` (module docstring)."""
    word = re.escape(prefix)
    closing = r"(?:\*+/|-->)?"
    return re.compile(
        rf"(?:^|(?<=\s)){_OPENERS}[ \t]*{word}:[ \t]*(?P<q>.*?)[ \t]*{closing}[ \t]*$"
    )


def scan_text(path: str, text: str, prefix: str = DEFAULT_PREFIX) -> list[CodeSummons]:
    """The summonses in `text` (the file `path`), one per line that holds a question."""
    found: list[CodeSummons] = []
    rx = pattern(prefix)
    for n, line in enumerate(text.splitlines(), 1):
        if prefix not in line:
            continue
        m = rx.search(line)
        if m and m.group("q").strip():
            found.append(CodeSummons(path, n, " ".join(m.group("q").split()), line.strip()))
    return found


def find_in(
    where: Confinement, paths: list[str] | None = None, *, skip: tuple[str, ...] = (),
    prefix: str = DEFAULT_PREFIX,
) -> list[CodeSummons]:  # fmt: skip
    """The summonses in the readable files of `where` under `paths` (relative posix paths of
    files or folders; None or empty: all), outside the folders `skip` (relative, ending
    ``/``), in path and line order."""
    found: list[CodeSummons] = []
    for rel in sorted(where.files()):
        if rel.startswith(skip) or not _under(rel, paths):
            continue
        text = _text(where.root / rel)
        if text is not None:
            found += scan_text(rel, text, prefix)
    return found


def _under(rel: str, paths: list[str] | None) -> bool:
    if not paths:
        return True
    return any(p in (".", "") or rel == p or PurePosixPath(rel).is_relative_to(p) for p in paths)


def _text(path: Path) -> str | None:
    """A file's text, or None for one too large, binary, not UTF-8, a link or gone."""
    try:
        if path.is_symlink() or path.stat().st_size > _MAX_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def staged_files(where: Confinement) -> list[str]:
    """The files added, copied, modified or renamed in the index (what a commit takes)."""
    run = where.git(["diff", "--cached", "--name-only", "-z", "--diff-filter=ACMR", "--"])
    return [n for n in run.out.decode("utf-8", "replace").split("\0") if n]


def hook_script(python: str | None = None) -> str:
    """The pre-commit hook: lists the summonses of the commit, never stops it. This
    installation's Python by absolute path (``-P``: the repository's folder is not put on
    ``sys.path``, so a ``discussions/`` package of its own is never run)."""
    exe = shlex.quote(python or sys.executable)
    return f"#!/bin/sh\n{HOOK_MARK}\n{exe} -P -m discussions summon --hook || true\n"


def install_hook(root: Path) -> tuple[str, str]:
    """Write the pre-commit hook where git reads hooks (``core.hooksPath`` honoured: asked of
    git as it is configured, not confined); (action, detail). A hook of someone else's is left
    alone, the line to add named."""
    found = run_git(["rev-parse", "--git-path", "hooks/pre-commit"], root)
    hook = Path(found.stdout.decode("utf-8", "replace").strip())
    hook = hook if hook.is_absolute() else root / hook
    script = hook_script()
    if hook.exists():
        current = hook.read_text(encoding="utf-8", errors="replace")
        if current == script:
            return "unchanged", str(hook)
        if HOOK_MARK not in current:
            line = script.splitlines()[-1]
            return "skipped", f"{hook} is someone else's hook; add this line to it: {line}"
    hook.parent.mkdir(parents=True, exist_ok=True)
    existed = hook.exists()
    hook.write_text(script, encoding="utf-8")
    hook.chmod(0o755)
    return ("updated" if existed else "created"), str(hook)
