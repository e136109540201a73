"""A lead's own checkout: a git worktree on a new branch from HEAD, the commit of what the lead
changed there, its numstat, and a snapshot proving the user's working tree and index were left
alone.

* Worktrees live under the repository's common git folder, ``.git/discussions-apply/<slug>``:
  inside the repository's own folder (the same file system, so adding one is cheap), never
  seen by ``git status`` of the user's tree, and still there after a reboot when one is kept
  for inspection (a temporary folder may be cleaned away while git still lists it).
* Every git command runs confined (`confine.Confinement.git`): no hooks, no system or global
  configuration, no filter, pager, external diff or signature program the repository chose,
  inside the providers' process containment. Commits also turn signing and automatic
  housekeeping off (``gc --auto`` would start a detached process).
* The commit's author and committer are the person who consented (`identity`); the persona
  that made the change is named in a ``Co-authored-by`` trailer.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import ApplyError
from .confine import Confinement
from .run import run_git

APPLY_DIR = "discussions-apply"
"""The folder of the common git folder that holds the worktrees of applies."""
_TIMEOUT = 300.0
"""Seconds one git command may take here (a checkout of a large tree takes a while)."""
_COMMIT_OPTIONS = (
    "-c", "commit.gpgsign=false", "-c", "gc.auto=0", "-c", "maintenance.auto=false",
)
_HASHED_BYTES = 1 << 20
"""Files larger than this are compared by size and modification time, not by content."""


@dataclass(slots=True)
class Worktree:
    """A worktree made for an apply."""

    root: Path
    """The user's work tree (its top folder)."""
    path: Path
    """The worktree's folder."""
    branch: str
    base: str
    """The full id of the commit the branch started from."""


@functools.lru_cache(maxsize=16)
def _confined(where: Path) -> Confinement:
    """The confinement of `where`, kept: it asks git once for the filters to empty."""
    return Confinement(where, True)


def _git(where: Path, args: list[str], options: tuple[str, ...] = ()) -> str:
    """``git ARGS`` confined in `where`; its output, or `ApplyError` with git's message."""
    run = _confined(where).git([*options, *args], timeout=_TIMEOUT)
    if run.returncode != 0 or run.timed_out:
        said = run.err.strip().splitlines() or [f"exit status {run.returncode}"]
        raise ApplyError(f"git {args[0]} failed: {said[-1]}")
    return run.out.decode("utf-8", "replace")


def _ok(where: Path, args: list[str]) -> bool:
    """Whether ``git ARGS`` exits 0 (a question, not an action)."""
    return _confined(where).git(args).returncode == 0


def identity(root: Path) -> str:
    """``Name <email>`` of the person at this repository (``git config user.name`` and
    ``user.email``, the user's own configuration included), or `ApplyError` saying how to set
    it: the commit of an apply is theirs."""
    proc = run_git(["config", "--get-regexp", r"^user\.(name|email)$"], root, check=False)
    found: dict[str, str] = {}
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(" ")
        found[key] = value.strip()  # the last one set wins, as for git itself
    name, email = found.get("user.name", ""), found.get("user.email", "")
    if not name or not email:
        raise ApplyError(
            "git does not know who you are, and the commit of an apply is yours: run "
            '`git config user.name "Your Name"` and `git config user.email you@example.com`'
        )
    return f"{name} <{email}>"


def head(root: Path) -> str:
    """The full id of HEAD, or `ApplyError` in a repository without a commit."""
    run = _confined(root).git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
    if run.returncode != 0:
        raise ApplyError(f"{root} has no commit yet: commit once so a lead has a start")
    return run.out.decode().strip()


def branch_exists(root: Path, branch: str) -> bool:
    return _ok(root, ["rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"])


@functools.lru_cache(maxsize=16)
def common_dir(root: Path) -> Path:
    """The repository's common git folder (``.git``, shared by its worktrees)."""
    common = Path(_git(root, ["rev-parse", "--git-common-dir"]).strip())
    return (common if common.is_absolute() else root / common).resolve()


def place(root: Path, branch: str) -> Path:
    """Where the worktree of `branch` goes: ``<common git folder>/discussions-apply/<slug>``."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", branch).strip("-.") or "apply"
    return common_dir(root) / APPLY_DIR / slug


def create(root: Path, branch: str) -> Worktree:
    """A new worktree on the new branch `branch`, started from HEAD. The user's working tree,
    index and current branch are not touched."""
    base = head(root)
    path = _free_place(root, branch)
    run = _confined(root).git(
        ["worktree", "add", "--quiet", "-b", branch, str(path), base], timeout=_TIMEOUT
    )
    if run.returncode != 0:  # git says why in English: its environment sets LC_ALL=C
        said = (run.err.strip().splitlines() or [f"exit status {run.returncode}"])[-1]
        if "already exists" in said:
            raise ApplyError(f"the branch `{branch}` exists already: pick another with --branch")
        if "not a valid branch name" in said:
            raise ApplyError(f"`{branch}` is not a valid branch name: pick another with --branch")
        raise ApplyError(f"git worktree add failed: {said}")
    return Worktree(root, path, branch, base)


def _free_place(root: Path, branch: str) -> Path:
    path = place(root, branch)
    if path.exists():
        raise ApplyError(
            f"the worktree of `{branch}` is kept at {path}: look at it, then remove it "
            f"(git worktree remove --force {path}) and try again"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def attach(root: Path, branch: str) -> Worktree:
    """A worktree on the existing branch `branch` (a revision of an earlier apply); its base
    is the branch's tip. `ApplyError` when a kept worktree holds the branch already."""
    if not branch_exists(root, branch):
        raise ApplyError(f"there is no branch `{branch}` to revise")
    path = _free_place(root, branch)
    _git(root, ["worktree", "add", "--quiet", str(path), branch])
    tip = _git(path, ["rev-parse", "--verify", "HEAD^{commit}"]).strip()
    return Worktree(root, path, branch, tip)


def commit(wt: Worktree, author: str, coauthor: str, subject: str, body: str = "") -> str | None:
    """Commit everything the lead changed in `wt` (new, modified and deleted files; what
    ``.gitignore`` names stays out) as one commit on top of ``wt.base``, authored by `author`
    (``Name <email>``) with a ``Co-authored-by: `coauthor``` trailer. Commits the lead made
    itself are folded into it. Returns the new commit's id, or None when nothing changed."""
    path = wt.path
    if _git(path, ["rev-parse", "--verify", "HEAD^{commit}"]).strip() != wt.base:
        _git(path, ["reset", "--quiet", "--soft", wt.base])
    _git(path, ["add", "--all", "--", "."])
    if _ok(path, ["diff", "--cached", "--quiet", "--no-ext-diff", wt.base, "--"]):
        return None
    name, _, email = author.partition(" <")
    who = ("-c", f"user.name={name}", "-c", f"user.email={email.rstrip('>')}")
    message = ["-m", subject, *(["-m", body] if body else []), "-m", f"Co-authored-by: {coauthor}"]
    _git(path, ["commit", "--quiet", "--no-verify", *message], (*_COMMIT_OPTIONS, *who))
    return _git(path, ["rev-parse", "--verify", "HEAD^{commit}"]).strip()


def numstat(wt: Worktree, base: str, tip: str) -> list[tuple[str, int | None, int | None]]:
    """(path, lines added, lines removed) for each file `tip` changed since `base`; None for
    the counts of a binary file."""
    args = ["diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", "--no-textconv"]
    out = _git(wt.path, [*args, base, tip, "--"])
    files: list[tuple[str, int | None, int | None]] = []
    for record in out.split("\0"):
        parts = record.split("\t", 2)
        if len(parts) == 3:
            added, removed, name = parts
            files.append((name, _count(added), _count(removed)))
    return files


def _count(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def remove(wt: Worktree, *, drop_branch: bool = False) -> None:
    """Remove the worktree (the branch stays, unless `drop_branch`: an apply that changed
    nothing leaves no empty branch behind)."""
    _git(wt.root, ["worktree", "remove", "--force", str(wt.path)])
    if wt.path.exists():  # pragma: no cover - git removes it; left only by a foreign file lock
        shutil.rmtree(wt.path, ignore_errors=True)
    if drop_branch:
        _git(wt.root, ["branch", "--quiet", "-D", wt.branch])


# --------------------------------------------------------------------------- the user's tree


@dataclass(slots=True)
class Snapshot:
    """The user's working tree and index as git sees them, with the content of every file
    that differs from HEAD or is untracked."""

    header: tuple[str, ...]
    """``# branch.oid`` / ``# branch.head``: the commit and branch checked out."""
    entries: dict[str, str]
    """Path -> its status line and a hash of its content (or size and time when large)."""


def snapshot(root: Path) -> Snapshot:
    """What the user's tree looks like now (``git status --porcelain=v2``: HEAD, the branch,
    each staged or changed entry with its index object ids, untracked files)."""
    out = _git(root, ["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all"])
    header: list[str] = []
    entries: dict[str, str] = {}
    records = iter(out.split("\0"))
    for record in records:
        if not record:
            continue
        if record.startswith("#"):
            if record.startswith(("# branch.oid", "# branch.head")):
                header.append(record)
            continue
        fields = {"1": 8, "2": 9, "u": 10}.get(record[0], 1)
        name = record.split(" ", fields)[-1]
        if record[0] == "2":
            next(records, "")  # the original path of a rename
        entries[name] = record + " " + _content(root / name)
    entries.update(_git_files(common_dir(root)))
    return Snapshot(tuple(header), entries)


_WATCHED = ("config", "info/attributes", "info/exclude")
"""Files of the git folder that would make the user's own git run something (a hook path, a
filter, an alias) or see the tree differently; the hooks folder is watched too. A lead works
two folders below the git folder, so these are within its reach."""


def _git_files(common: Path) -> dict[str, str]:
    found = {f".git/{name}": _content(common / name) for name in _WATCHED}
    hooks = common / "hooks"
    if hooks.is_dir():
        for hook in sorted(hooks.iterdir()):
            found[f".git/hooks/{hook.name}"] = _content(hook)
    return found


def _content(path: Path) -> str:
    try:
        info = path.lstat()
    except OSError:
        return "absent"
    if stat.S_ISLNK(info.st_mode):
        return "link:" + os.readlink(path)
    if not stat.S_ISREG(info.st_mode):
        return f"mode:{info.st_mode:o}"
    if info.st_size > _HASHED_BYTES:
        return f"size:{info.st_size}:{info.st_mtime_ns}"
    try:
        return hashlib.sha1(path.read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


def differences(before: Snapshot, after: Snapshot) -> list[str]:
    """What changed in the user's tree between two snapshots, one short phrase each."""
    found: list[str] = []
    if before.header != after.header:
        found.append("the checked-out commit or branch changed")
    for name in sorted({*before.entries, *after.entries}):
        was, now = before.entries.get(name), after.entries.get(name)
        if was == now:
            continue
        if was is None:
            found.append(f"{name} appeared" if now and now[0] == "?" else f"{name} changed")
        elif now is None:
            found.append(f"{name} was restored or removed")
        else:
            found.append(f"{name} changed")
    return found
