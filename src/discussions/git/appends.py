"""The append-only check (`check --since`, hooks, CI): the discussion files changed or
deleted since a revision, and whether each only had comments added to it."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DiscussionsError
from .run import is_discussion_bytes, relative_path, repo_root, run_git, verify_rev


@dataclass(slots=True)
class AppendViolation:
    """A discussion file whose bytes from `rev` were changed, not only appended to."""

    path: Path
    line: int
    """First line (1-based, in the current file) that differs from the file at `rev`."""
    message: str


def changed_discussion_files(rev: str, start: Path) -> list[Path]:
    """Discussion files (`is_discussion_bytes`; not a file the engine derives) in the work
    tree that differ from `rev`, committed or not, and new ones git does not track yet."""
    from ..model.storage import is_derived

    root = repo_root(start)
    verify_rev(rev, root)
    out = run_git(["diff", "--name-only", "-z", "--no-renames", rev, "--"], root).stdout
    untracked = run_git(["ls-files", "-z", "--others", "--exclude-standard"], root).stdout
    found: list[Path] = []
    for raw in sorted(set(out.split(b"\0")) | set(untracked.split(b"\0"))):
        if not raw:
            continue
        path = root / raw.decode("utf-8", "surrogateescape")
        if path.suffix != ".md" or is_derived(path) or not path.is_file():
            continue
        if is_discussion_bytes(path.read_bytes()):
            found.append(path)
    return found


def deleted_discussion_files(rev: str, start: Path) -> list[Path]:
    """Discussion files that existed at `rev` and are gone from the work tree (deleted,
    committed or not, or renamed: a discussion's name is part of what it says)."""
    from ..model.storage import is_derived

    root = repo_root(start)
    verify_rev(rev, root)
    out = run_git(
        ["diff", "--name-only", "-z", "--no-renames", "--diff-filter=D", rev, "--"], root
    ).stdout
    found: list[Path] = []
    for raw in sorted(set(out.split(b"\0"))):
        if not raw or not raw.endswith(b".md"):
            continue
        rel = raw.decode("utf-8", "surrogateescape")
        if is_derived(root / rel) or (root / rel).exists():
            continue
        old = run_git(["cat-file", "blob", f"{rev}:{rel}"], root, check=False).stdout
        if is_discussion_bytes(old):
            found.append(root / rel)
    return found


def append_only_violation(path: Path, rev: str) -> AppendViolation | None:
    """None when `path` holds everything it held at `rev`, only added to as appends and the
    merge driver add (new comments, possibly ordered among others by a merge), or did not
    exist at `rev`. A file deleted since `rev` is a violation too."""
    from .additions import appended_only

    root = repo_root(path.parent)
    rel = relative_path(path, root)
    verify_rev(rev, root)
    proc = run_git(["cat-file", "blob", f"{rev}:{rel}"], root, check=False)
    if proc.returncode != 0:
        return None  # created after rev
    old = proc.stdout
    try:
        new = path.read_bytes()
    except FileNotFoundError:
        return AppendViolation(
            path,
            0,
            f"deleted since {rev}, but discussions are append-only "
            f"(restore it: git checkout {rev} -- {shlex.quote(rel)})",
        )
    if new.startswith(old):
        return None
    found = appended_only(
        old.decode("utf-8", "surrogateescape"), new.decode("utf-8", "surrogateescape")
    )
    if found is None:
        return None
    text = new.decode("utf-8", "surrogateescape")
    line = text.count("\n", 0, found.offset) + 1
    messages = {
        "changed": f"changed text that existed at {rev} (not a pure append)",
        "removed": f"text that existed at {rev} was removed (not a pure append)",
        "inside": f"text inserted into a comment that existed at {rev} (not a pure append)",
    }
    return AppendViolation(path, line, messages[found.kind])


@dataclass(slots=True)
class AppendCheck:
    """What `check_appends` found: the files it looked at and the violations."""

    files: list[Path] = field(default_factory=list)
    """Discussion files present in the work tree that it checked."""
    violations: list[AppendViolation] = field(default_factory=list)


def check_appends(rev: str, start: Path, paths: Sequence[Path] | None = None) -> AppendCheck:
    """The append-only check since `rev` (for `check --since`, hooks, CI): each of `paths`, or
    without them every discussion file changed since `rev` and every one deleted since.
    Raises `DiscussionsError` for an unknown revision or a folder outside a repository;
    ``HEAD`` before the first commit (a hook's first run) has nothing to compare with."""
    report = AppendCheck()
    root = repo_root(start)
    if (
        rev == "HEAD"
        and run_git(["rev-parse", "--verify", "--quiet", "HEAD"], root, check=False).returncode
    ):
        return report  # the first commit: nothing existed before it
    if paths is None:
        report.files = changed_discussion_files(rev, start)
        targets = [*report.files, *deleted_discussion_files(rev, start)]
    else:
        verify_rev(rev, root)
        report.files = [p for p in paths if p.exists()]
        targets = list(paths)
    for path in targets:
        try:
            violation = append_only_violation(path, rev)
        except DiscussionsError as exc:  # a file outside the repository
            violation = AppendViolation(path, 0, str(exc))
        if violation is not None:
            report.violations.append(violation)
    return report
