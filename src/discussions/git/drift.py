"""The repository's side of drift: when each decision of a discussion file was
committed, and the commits since then that changed the code the decisions govern.

Per discussion, git runs at most three times, whatever the number of decisions, paths or
commits: one ``git blame`` of the decision lines (`recorded_commits`: the commit that added
each line, which in an append-only file is when the decision was recorded), one ``git
merge-base --octopus`` when the decisions were recorded in different commits, and one ``git
log`` over the governed paths and the discussion file itself (`history`), whose rewritten
parents (``--full-history --parents``) tell which commits came after which decision
(`after`). Every call goes through `run.run_git`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .run import run_git

_ID = re.compile(r"[0-9a-f]{40}")
_BLAME_HEADER = re.compile(rb"^([0-9a-f]{40}) \d+ (\d+)(?: \d+)?$")
_UNCOMMITTED = "0" * 40
_FORMAT = "%x1e%H %P%x1f%an%x1f%ae%x1f%aI%x1f%s%x1f%B%x1f"
"""One record per commit (`history`): id and rewritten parents, author, email, date, subject,
message, then (``--name-only -z``) the paths it changed, NUL-separated."""


@dataclass(slots=True, frozen=True)
class Commit:
    """A commit that changed governed code (or the discussion file)."""

    id: str
    parents: tuple[str, ...]
    """Its parents in the history `history` walked (rewritten to the nearest listed ones)."""
    author: str
    email: str
    date: str
    """The author date, ISO 8601 with its offset."""
    subject: str
    message: str
    paths: tuple[str, ...] = field(default=())
    """The paths it changed, from the repository's top (a rename is its two paths)."""

    def to_dict(self) -> dict[str, object]:
        return {
            "commit": self.id,
            "subject": self.subject,
            "author": self.author,
            "email": self.email,
            "date": self.date,
        }


def recorded_commits(root: Path, path: str, lines: Iterable[int]) -> dict[int, str]:
    """The commit that added each of `lines` (1-based) of the file `path` (from the top of the
    repository at `root`), by line; a line not committed yet, or past the committed file's
    end, is left out. One ``git blame`` for all of them."""
    wanted = sorted(set(lines))
    if not wanted:
        return {}
    args = ["blame", "--porcelain"]
    for n in wanted:
        args += ["-L", f"{n},{n}"]
    proc = run_git([*args, "--", path], root, check=False)
    if proc.returncode != 0:
        return {}  # not committed at all, or a line past the end: nothing recorded yet
    found: dict[int, str] = {}
    for raw in proc.stdout.split(b"\n"):
        m = _BLAME_HEADER.match(raw)
        if m and m.group(1).decode() != _UNCOMMITTED:
            found[int(m.group(2))] = m.group(1).decode()
    return found


def common_base(root: Path, commits: Sequence[str]) -> str:
    """The newest commit every one of `commits` descends from (itself when there is one)."""
    distinct = list(dict.fromkeys(commits))
    if len(distinct) == 1:
        return distinct[0]
    proc = run_git(["merge-base", "--octopus", *distinct], root, check=False)
    found = proc.stdout.decode("ascii", "replace").split()
    return found[0] if proc.returncode == 0 and found else ""


def history(root: Path, since: str, pathspecs: Sequence[str], until: str = "HEAD") -> list[Commit]:
    """The commits in ``since..until`` (all of `until`'s history when `since` is empty) that
    changed a path `pathspecs` match, newest first, each with its paths and its parents as
    the walk rewrote them. One ``git log``."""
    if not pathspecs:
        return []
    spec = f"{since}..{until}" if since else until
    args = ["-c", "core.quotepath=off", "log", "--full-history", "--simplify-merges", "--parents"]
    args += ["--no-renames", "--no-show-signature", "--no-color", f"--format={_FORMAT}"]
    args += ["--name-only", "-z"]
    proc = run_git([*args, spec, "--", *pathspecs], root)
    text = proc.stdout.decode("utf-8", "replace")
    return [c for c in map(_commit, text.split("\x1e")) if c is not None]


def _commit(record: str) -> Commit | None:
    """One record of `history`'s output; None for the empty one before the first, or one a
    control character in a message cut short."""
    fields = record.split("\x1f")
    if len(fields) < 7:
        return None
    ids = fields[0].split()
    if not ids or not _ID.fullmatch(ids[0]):
        return None
    author, email, date, subject = fields[1:5]
    message = "\x1f".join(fields[5:-1])
    paths = tuple(p for p in fields[-1].lstrip("\0").lstrip("\n").split("\0") if p)
    return Commit(ids[0], tuple(ids[1:]), author, email, date, subject, message, paths)


def after(commits: Sequence[Commit], base: str, lower: str) -> list[Commit]:
    """The commits of `commits` (one `history` walk from `lower`) that came after `base`:
    neither `base` nor one of its ancestors. `base` is `lower` (or outside the walk):
    every one."""
    by_id = {c.id: c for c in commits}
    if base == lower or base not in by_id:
        return list(commits)
    before = {base}
    stack = [base]
    while stack:
        for parent in by_id[stack.pop()].parents:
            if parent in by_id and parent not in before:
                before.add(parent)
                stack.append(parent)
    return [c for c in commits if c.id not in before]
