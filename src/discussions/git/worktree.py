"""A lead's own checkout: a git worktree on a new branch from HEAD, the commit of what the lead
changed there, its numstat, and a snapshot proving the user's repository was left alone.

* Worktrees live in the user's cache folder, ``<cache>/discussions/apply/<repo id>/<slug>``
  (`place`): outside the repository, because coding agents treat a path with a ``.git``
  folder in it as protected and refuse to edit there; never seen by ``git status`` of the
  user's tree; still there after a reboot when one is kept for inspection.
* Every git command runs confined (`confine.Confinement.git`): no hooks, no system or global
  configuration, no filter, pager, external diff or signature program the repository chose,
  inside the providers' process containment. Commits also turn signing and automatic
  housekeeping off (``gc --auto`` would start a detached process).
* The commit never goes through anything the lead could edit: `tampering` checks that the
  worktree's ``.git`` file and its git folder's ``HEAD``, ``commondir`` and ``gitdir`` are as
  ``git worktree add`` wrote them, git is pointed at that folder explicitly, and the commit
  (``commit-tree`` on the base) is set on the branch by name (``update-ref --no-deref``).
* The commit's author and committer are the person who consented (`identity`); the persona
  that made the change is named in a ``Co-authored-by`` trailer.
* `snapshot` / `differences` and `written_since` find what changed in the user's repository
  while a lead ran: the working tree and index, every reference, the watched files of the
  git folder and the other worktrees' ties, and (by change time) ignored files."""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ApplyError
from .confine import Confinement
from .run import run_git

APPLY_DIR = "discussions/apply"
"""The folder of the user's cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``) that holds
the worktrees of applies, one folder per repository (`repo_id`)."""
_TIMEOUT = 300.0
"""Seconds one git command may take here (a checkout of a large tree takes a while)."""
_COMMIT_OPTIONS = (
    "-c", "commit.gpgsign=false", "-c", "gc.auto=0", "-c", "maintenance.auto=false",
)
_HASHED_BYTES = 1 << 20
"""Files larger than this are compared by size and modification time, not by content."""
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str, fallback: str) -> str:
    """`text` as a file or branch name: runs of other characters than letters, digits, ``.``,
    ``_`` and ``-`` become one ``-``; `fallback` when nothing is left."""
    return _SLUG.sub("-", text).strip("-.") or fallback


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
    gitdir: Path = Path()
    """The worktree's own git folder (``<common git folder>/worktrees/<id>``)."""
    marks: dict[str, bytes] = field(default_factory=dict)
    """The files that tie the worktree to its branch and repository, as ``git worktree add``
    wrote them: its ``.git`` file, and ``HEAD``, ``commondir``, ``gitdir`` and
    ``config.worktree`` (absent) of `gitdir`."""


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


def apply_home() -> Path:
    """The folder of every repository's apply worktrees: ``discussions/apply`` of the user's
    cache folder. Outside the repository, so no path of a worktree has a ``.git`` (or
    ``.claude``, ``.vscode``) folder in it, which coding agents treat as protected."""
    cache = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(cache) if os.path.isabs(cache) else Path.home() / ".cache"
    return base / APPLY_DIR


def repo_id(root: Path) -> str:
    """``<folder name>-<12 hex digits>`` of the repository's common git folder: stable while
    the repository stays where it is, one per repository (its linked worktrees share it)."""
    common = common_dir(root)
    digest = hashlib.sha256(os.fsencode(common)).hexdigest()[:12]
    name = common.parent.name if common.name == ".git" else common.name
    return f"{slug(name, 'repo')}-{digest}"


def place(root: Path, branch: str) -> Path:
    """Where the worktree of `branch` goes: ``<apply_home>/<repo_id>/<slug>-<8 hex digits>``
    (the digits from the branch's name: ``a/b`` and ``a-b`` get folders of their own)."""
    digest = hashlib.sha256(branch.encode("utf-8")).hexdigest()[:8]
    return apply_home() / repo_id(root) / f"{slug(branch, 'apply')}-{digest}"


_UNFINISHED = (
    ("MERGE_HEAD", "a merge", "git merge --continue"),
    ("rebase-merge", "a rebase", "git rebase --continue"),
    ("rebase-apply", "a rebase", "git rebase --continue"),
    ("CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick --continue"),
    ("REVERT_HEAD", "a revert", "git revert --continue"),
)


def unfinished(root: Path) -> str:
    """Why HEAD is no place to start from while the user is in the middle of a merge, rebase,
    cherry-pick or revert (HEAD is then a half-made state, not the user's branch), or ""."""
    gitdir = _own_gitdir(root)
    for name, what, finish in _UNFINISHED:
        if (gitdir / name).exists():
            return (
                f"{what} is in progress in {root}: finish it ({finish}) or abort it, then apply "
                "(a lead would start from its half-made HEAD)"
            )
    return ""


def _own_gitdir(root: Path) -> Path:
    """The git folder of the work tree `root` (``.git``, or a linked worktree's folder)."""
    dotgit = root / ".git"
    if dotgit.is_file():
        text = dotgit.read_text("utf-8", "replace").strip().removeprefix("gitdir: ")
        return (root / text).resolve()
    return common_dir(root)


def create(root: Path, branch: str) -> Worktree:
    """A new worktree on the new branch `branch`, started from HEAD. The user's working tree,
    index and current branch are not touched. `ApplyError` during a merge, rebase,
    cherry-pick or revert (`unfinished`)."""
    busy = unfinished(root)
    if busy:
        raise ApplyError(busy)
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
        if "already registered" in said:  # the cache folder was cleared under a kept worktree
            raise ApplyError(f"git still lists a worktree at {path}: run `git worktree prune`")
        raise ApplyError(f"git worktree add failed: {said}")
    return _marked(Worktree(root, path, branch, base))


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
    tip = _git(root, ["rev-parse", "--verify", f"refs/heads/{branch}^{{commit}}"]).strip()
    _git(root, ["worktree", "add", "--quiet", str(path), branch])
    return _marked(Worktree(root, path, branch, tip))


def _marked(wt: Worktree) -> Worktree:
    """`wt` with its git folder and the files that tie it to its branch, as git wrote them."""
    gitfile = (wt.path / ".git").read_bytes()
    text = gitfile.decode("utf-8", "replace").strip()
    if not text.startswith("gitdir: "):  # pragma: no cover - git writes exactly this
        raise ApplyError(f"git worktree add wrote an unexpected {wt.path / '.git'}")
    where = Path(text.removeprefix("gitdir: "))
    wt.gitdir = where if where.is_absolute() else (wt.path / where).resolve()
    wt.marks = {".git": gitfile}
    for name in ("HEAD", "commondir", "gitdir", "config.worktree"):
        wt.marks[name] = _read(wt.gitdir / name)
    return wt


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def tampering(wt: Worktree) -> list[str]:
    """How the worktree's ties to its branch and repository were changed since git made it
    (its ``.git`` file, its HEAD now naming another branch, its ``commondir`` or ``gitdir``,
    the branch made a symbolic reference), one phrase each; empty when they are intact."""
    found: list[str] = []
    if _read(wt.path / ".git") != wt.marks.get(".git"):
        found.append(f"the worktree's .git file was rewritten (it tied it to {wt.gitdir})")
    for name, was in wt.marks.items():
        if name != ".git" and _read(wt.gitdir / name) != was:
            now = _read(wt.gitdir / name).decode("utf-8", "replace").strip()[:120]
            what = f"now `{now}`" if now else "removed"
            found.append(f"the worktree's git folder {name} changed ({what})")
    if _branch_tip(wt) is None:
        found.append(f"the branch {wt.branch} was removed or made a symbolic reference")
    return found


def _branch_tip(wt: Worktree) -> str | None:
    """The commit ``wt.branch`` names, or None when it is gone or symbolic."""
    ref = f"refs/heads/{wt.branch}"
    out = _git(wt.root, ["for-each-ref", "--format=%(refname)%00%(symref)%00%(objectname)", ref])
    for line in out.splitlines():
        name, symref, tip = (line.split("\0") + ["", ""])[:3]
        if name == ref:
            return None if symref else tip
    return None


def _in_worktree(wt: Worktree) -> list[str]:
    """The options that point git at the worktree's own git folder and files explicitly,
    never through the worktree's ``.git`` file (checked intact by `tampering` first)."""
    return [f"--git-dir={wt.gitdir}", f"--work-tree={wt.path}"]


def commit(wt: Worktree, author: str, coauthor: str, subject: str, body: str = "") -> str | None:
    """Commit everything the lead changed in `wt` (new, modified and deleted files; what
    ``.gitignore`` names stays out) as one commit on top of ``wt.base``, authored by `author`
    (``Name <email>``) with a ``Co-authored-by: `coauthor``` trailer, and set ``wt.branch`` to
    it by name (``update-ref``, never through the worktree's HEAD). Commits the lead made
    itself are folded into it. Returns the new commit's id, or None when nothing changed (the
    branch back at ``wt.base``). `ApplyError` when `tampering` finds the worktree's ties
    changed: nothing is committed then."""
    changed = tampering(wt)
    old = _branch_tip(wt)
    if changed or old is None:
        raise ApplyError("; ".join(changed) or f"the branch {wt.branch} is gone")
    ref = f"refs/heads/{wt.branch}"
    _git(wt.root, [*_in_worktree(wt), "add", "--all"])
    tree = _git(wt.root, [*_in_worktree(wt), "write-tree"]).strip()
    if tree == _git(wt.root, ["rev-parse", "--verify", f"{wt.base}^{{tree}}"]).strip():
        if old != wt.base:
            _git(wt.root, ["update-ref", "--no-deref", ref, wt.base, old])
        return None
    name, _, email = author.partition(" <")
    who = ("-c", f"user.name={name}", "-c", f"user.email={email.rstrip('>')}")
    message = ["-m", subject, *(["-m", body] if body else []), "-m", f"Co-authored-by: {coauthor}"]
    new = _git(
        wt.root, ["commit-tree", tree, "-p", wt.base, *message], (*_COMMIT_OPTIONS, *who)
    ).strip()
    _git(wt.root, ["update-ref", "--no-deref", "-m", subject, ref, new, old])
    return new


def numstat(wt: Worktree, base: str, tip: str) -> list[tuple[str, int | None, int | None]]:
    """(path, lines added, lines removed) for each file `tip` changed since `base`; None for
    the counts of a binary file."""
    args = ["diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", "--no-textconv"]
    out = _git(wt.root, [*args, base, tip, "--"])
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
    that differs from HEAD or is untracked, the repository's references and the files of its
    git folder that change what the user's git does."""

    header: tuple[str, ...]
    """``# branch.oid`` / ``# branch.head``: the commit and branch checked out."""
    entries: dict[str, str]
    """Path -> its status line and a hash of its content (or size and time when large);
    ``ref <name>`` -> the object it names; ``.git/...`` -> the content of a watched file."""


def own_output() -> set[tuple[int, int]]:
    """(device, inode) of the files our standard output and error go to: a person who sends
    them into the repository (``discussions apply F 2> err.txt``) changes that file while the
    lead runs, and that is not a change to watch."""
    found: set[tuple[int, int]] = set()
    for fd in (1, 2):
        try:
            info = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            found.add((info.st_dev, info.st_ino))
    return found


def snapshot(root: Path, own: Worktree | None = None) -> Snapshot:
    """What the user's tree looks like now (``git status --porcelain=v2``: HEAD, the branch,
    each staged or changed entry with its index object ids, untracked files; our own output
    files left out), every reference but the branch of `own` (the apply's worktree: its
    commit moves it), and the watched files of the git folder (`_git_files`, but `own`'s)."""
    out = _git(root, ["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all"])
    header: list[str] = []
    entries: dict[str, str] = {}
    ours = own_output()
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
        if record[0] == "?" and _identity(root / name) in ours:
            continue
        entries[name] = record + " " + _content(root / name)
    entries.update(_refs(root, own.branch if own else ""))
    entries.update(_git_files(common_dir(root), own.gitdir if own else None))
    return Snapshot(tuple(header), entries)


def _identity(path: Path) -> tuple[int, int]:
    try:
        info = path.lstat()
    except OSError:
        return (-1, -1)
    return (info.st_dev, info.st_ino)


def _refs(root: Path, own_branch: str) -> dict[str, str]:
    """``ref <name>`` -> what it names, for every reference (branches, tags, notes, replace
    objects, the stash: loose or packed), the apply's own branch left out."""
    out = _git(root, ["for-each-ref", "--format=%(refname) %(objectname) %(symref)"])
    skip = f"refs/heads/{own_branch}" if own_branch else ""
    found: dict[str, str] = {}
    for line in out.splitlines():
        name, _, value = line.partition(" ")
        if name and name != skip:
            found[f"ref {name}"] = value
    return found


_WATCHED = (
    "config", "config.worktree", "info/attributes", "info/exclude", "info/grafts",
    "info/sparse-checkout", "objects/info/alternates", "objects/info/http-alternates",
    "packed-refs", "shallow", "commondir",
)
"""Files of the git folder that would make the user's own git run something (a hook path, a
filter, an alias), read objects from elsewhere or see the tree or history differently; the
hooks folder and the ties of every other worktree (`_WORKTREE_FILES`) are watched too. A lead
can reach all of them (it runs as the person)."""
_WORKTREE_FILES = ("HEAD", "commondir", "gitdir", "config.worktree", "locked")


def _git_files(common: Path, own_gitdir: Path | None = None) -> dict[str, str]:
    found = {f".git/{name}": _content(common / name) for name in _WATCHED}
    for folder in ("hooks", "worktrees"):
        if (common / folder).is_dir():
            for entry in sorted((common / folder).iterdir()):
                if folder == "hooks":
                    found[f".git/hooks/{entry.name}"] = _content(entry)
                elif entry != own_gitdir:
                    for name in _WORKTREE_FILES:
                        found[f".git/worktrees/{entry.name}/{name}"] = _content(entry / name)
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
        if name.startswith("ref "):
            what = "appeared" if was is None else "was removed" if now is None else "moved"
            found.append(f"the reference {name[4:]} {what}")
        elif was is None:
            found.append(f"{name} appeared" if now and now[0] == "?" else f"{name} changed")
        elif now is None:
            found.append(f"{name} was restored or removed")
        else:
            found.append(f"{name} changed")
    return found


def clock(wt: Worktree) -> int:
    """The moment to pass to `written_since` later: the change time the file system gives a
    file written now (a coarse clock, which may lag the system's), read from a file made and
    removed in the worktree's own git folder (on the repository's file system)."""
    mark = wt.gitdir / "discussions-clock"
    mark.write_bytes(b"")
    try:
        return mark.stat().st_ctime_ns
    finally:
        mark.unlink()


def written_since(root: Path, since: int, skip: tuple[Path, ...] = ()) -> list[str]:
    """Every path of the user's tree (ignored files included; ``.git`` folders and `skip`
    left out, our own output files too) whose inode changed at or after `since` (`clock`): a
    file written, made, renamed or chmod-ed, or a folder that gained or lost an entry. The
    change time (ctime) is used because a process cannot set it back, as it can the
    modification time. Posix paths relative to `root`, folders ending in ``/``."""
    ours = own_output()
    found = ["./"] if root.stat().st_ctime_ns >= since else []
    skipped = {os.fspath(p) for p in skip}
    top = len(os.fspath(root)) + 1
    stack = [os.fspath(root)]
    while stack:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                if entry.name == ".git":
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                folder = stat.S_ISDIR(info.st_mode)
                if folder and entry.path in skipped:
                    continue
                if info.st_ctime_ns >= since and (info.st_dev, info.st_ino) not in ours:
                    found.append(entry.path[top:] + ("/" if folder else ""))
                if folder:
                    stack.append(entry.path)
    return sorted(p.replace(os.sep, "/") for p in found)
