"""A lead's own checkout: a disposable clone of HEAD that shares nothing with the user's
repository, the commit of what the lead changed there fetched back onto the apply's branch, its
numstat, and a snapshot proving the user's repository was left alone.

* The clone lives in the user's cache folder, ``<cache>/discussions/apply/<repo id>/<slug>``
  (`place`): outside the repository, because coding agents treat a path with a ``.git``
  folder in it as protected and refuse to edit there; never seen by ``git status`` of the
  user's tree; still there after a reboot when one is kept for inspection.
* It is a repository of its own (``git init`` and a shallow fetch of the base commit by its
  id over git's own transport, as ``git clone --no-local --no-hardlinks --depth 1`` copies:
  the history stays out, so a large repository's copy stays fast): its own object
  store, configuration, hooks and references, no remote naming the user's repository. What
  the lead writes in it, its ``.git`` included, can be no loose object, reference, config,
  hook, ``MERGE_HEAD`` or other state file of the user's repository (or of a submodule's).
* The engine's own git folder (``<place>.git``, bare, beside the clone, which the sandbox keeps
  read-only) borrows the user's objects (``objects/info/alternates``) and records the
  commit: the clone's files are added with its own index (the clone's ``.git`` is never read,
  so what the lead did there, its own commits included, counts only through the files), and
  the commit is fetched into the user's repository by its id with ``transfer.fsckObjects``
  on, then set on the branch by name (``update-ref`` with the old value checked).
* Every git command runs confined (`confine.Confinement.git`): no hooks, no system or global
  configuration, no fsmonitor, filter, pager, external diff or signature program the
  repository chose, inside the providers' process containment. Commits also turn signing and
  automatic housekeeping off (``gc --auto`` would start a detached process).
* The commit's author and committer are the person who consented (`identity`); the persona
  that made the change is named in a ``Co-authored-by`` trailer.
* `git.watch` finds what changed in the user's repository while a lead ran (the second line,
  for a lead run without a sandbox)."""

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

_APPLY_DIR = "discussions/apply"
"""The folder of the user's cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``) that holds
the clones of applies, one folder per repository (`repo_id`)."""
_TIMEOUT = 300.0
"""Seconds one git command may take here (a checkout of a large tree takes a while)."""
_COMMIT_OPTIONS = (
    "-c",
    "commit.gpgsign=false",
    "-c",
    "gc.auto=0",
    "-c",
    "maintenance.auto=false",
)
_TRANSFER_OPTIONS = (
    "-c",
    "protocol.file.allow=always",
    "-c",
    "transfer.fsckObjects=true",
    "-c",
    "fetch.fsckObjects=true",
    "-c",
    "fetch.writeCommitGraph=false",
    "-c",
    "gc.auto=0",
    "-c",
    "maintenance.auto=false",
)
"""A fetch between the user's repository and a clone: over git's transport (`confine` forbids
every protocol else), every object received checked (``fsckObjects``), no housekeeping."""
_FETCH = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules"]
_ZERO = "0" * 40
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str, fallback: str) -> str:
    """`text` as a file or branch name: runs of other characters than letters, digits, ``.``,
    ``_`` and ``-`` become one ``-``; `fallback` when nothing is left."""
    return _SLUG.sub("-", text).strip("-.") or fallback


@dataclass(slots=True)
class Worktree:
    """The disposable clone made for an apply, and the engine's git folder beside it."""

    root: Path
    """The user's work tree (its top folder)."""
    path: Path
    """The clone's folder (where the lead works)."""
    branch: str
    base: str
    """The full id of the commit the branch started from."""
    engine: Path = Path()
    """The engine's own bare git folder (``<path>.git``): the commit is made there."""
    marks: dict[str, bytes] = field(default_factory=dict)
    """The files of `engine` that decide what its git does, as they were written."""

    @property
    def scratch(self) -> Path:
        """The lead's private temporary folder in a sandbox (``<path>.tmp``)."""
        return self.path.with_name(self.path.name + ".tmp")

    def engine_path(self) -> Path:
        """Where the engine's git folder goes (``<path>.git``), made or not."""
        return self.path.with_name(self.path.name + ".git")


@functools.lru_cache(maxsize=16)
def _confined(where: Path) -> Confinement:
    """The confinement of `where`, kept: it asks git once for the filters to empty."""
    return Confinement(where, True)


def confined_git(where: Path, args: list[str], options: tuple[str, ...] = ()) -> str:
    """``git ARGS`` confined in `where` (`confine.Confinement.git`); its output, or
    `ApplyError` with git's message."""
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
    common = Path(confined_git(root, ["rev-parse", "--git-common-dir"]).strip())
    return (common if common.is_absolute() else root / common).resolve()


def apply_home() -> Path:
    """The folder of every repository's apply clones: ``discussions/apply`` of the user's
    cache folder. Outside the repository, so no path of a clone has a ``.git`` (or
    ``.claude``, ``.vscode``) folder in it, which coding agents treat as protected."""
    from ..settings.config import user_cache_dir

    return user_cache_dir().parent / _APPLY_DIR


def repo_id(root: Path) -> str:
    """``<folder name>-<12 hex digits>`` of the repository's common git folder: stable while
    the repository stays where it is, one per repository (its linked worktrees share it)."""
    common = common_dir(root)
    digest = hashlib.sha256(os.fsencode(common)).hexdigest()[:12]
    name = common.parent.name if common.name == ".git" else common.name
    return f"{slug(name, 'repo')}-{digest}"


def place(root: Path, branch: str) -> Path:
    """Where the clone of `branch` goes: ``<apply_home>/<repo_id>/<slug>-<8 hex digits>``
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
    gitdir = own_gitdir(root)
    for name, what, finish in _UNFINISHED:
        if (gitdir / name).exists():
            return (
                f"{what} is in progress in {root}: finish it ({finish}) or abort it, then apply "
                "(a lead would start from its half-made HEAD)"
            )
    return ""


def own_gitdir(root: Path) -> Path:
    """The git folder of the work tree `root` (``.git``, or a linked worktree's folder)."""
    dotgit = root / ".git"
    if dotgit.is_file():
        text = dotgit.read_text("utf-8", "replace").strip().removeprefix("gitdir: ")
        return (root / text).resolve()
    return common_dir(root)


def create(root: Path, branch: str) -> Worktree:
    """A new clone of HEAD on the new branch `branch`, which is made at HEAD in the user's
    repository too (the name is taken; the commit moves it). The user's working tree, index
    and current branch are not touched. `ApplyError` during a merge, rebase, cherry-pick or
    revert (`unfinished`), for a branch that exists or a name git refuses."""
    busy = unfinished(root)
    if busy:
        raise ApplyError(busy)
    base = head(root)
    path = _free_place(root, branch)
    _reserve(root, branch, base)
    try:
        return _cloned(Worktree(root, path, branch, base))
    except (ApplyError, OSError):  # the name is given back
        confined_git(root, ["update-ref", "-d", f"refs/heads/{branch}", base])
        raise


def _reserve(root: Path, branch: str, base: str) -> None:
    """The new branch `branch` made at `base` in the user's repository, or `ApplyError` when
    git refuses its name as a branch's or it exists."""
    ref = f"refs/heads/{branch}"
    if branch.startswith("-") or not _ok(root, ["check-ref-format", "--branch", branch]):
        raise ApplyError(f"`{branch}` is not a valid branch name: pick another with --branch")
    run = _confined(root).git(["update-ref", "--no-deref", "-m", "apply: start", ref, base, _ZERO])
    if run.returncode == 0:
        return
    if branch_exists(root, branch):
        raise ApplyError(f"the branch `{branch}` exists already: pick another with --branch")
    raise ApplyError(f"`{branch}` is not a valid branch name: pick another with --branch")


def _free_place(root: Path, branch: str) -> Path:
    """Where the clone of `branch` goes, or `ApplyError` when it, or a folder or link beside it
    (``.git``, ``.tmp``), is there: what another run left there would be reused (a ``.tmp``
    link to the home made the home the sandbox's writable temp folder)."""
    path = place(root, branch)
    beside = (path, path.with_name(path.name + ".git"), path.with_name(path.name + ".tmp"))
    if any(p.exists() or p.is_symlink() for p in beside):
        raise ApplyError(
            f"the clone of `{branch}` is kept at {path}: look at it, then remove it "
            f"(rm -rf {path} {path}.git {path}.tmp) and try again"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def attach(root: Path, branch: str) -> Worktree:
    """A clone of the existing branch `branch` (a revision of an earlier apply); its base is
    the branch's tip. `ApplyError` when a kept clone holds the branch already."""
    if not branch_exists(root, branch):
        raise ApplyError(f"there is no branch `{branch}` to revise")
    path = _free_place(root, branch)
    tip = confined_git(root, ["rev-parse", "--verify", f"refs/heads/{branch}^{{commit}}"]).strip()
    return _cloned(Worktree(root, path, branch, tip))


def _cloned(wt: Worktree) -> Worktree:
    """`wt` made: the engine's bare git folder borrowing the user's objects, and the clone
    the lead works in (the base commit fetched by id, without its history, checked out on
    ``wt.branch``). Half-made folders are removed on failure."""
    try:
        confined_git(wt.root, ["init", "--quiet", "--bare", "--template=", str(wt.engine_path())])
        wt.engine = wt.engine_path()
        (wt.engine / "objects" / "info" / "alternates").write_text(
            str(common_dir(wt.root) / "objects") + "\n", encoding="utf-8"
        )
        confined_git(wt.root, ["init", "--quiet", "--template=", str(wt.path)])
        clone = ["-C", str(wt.path)]  # run from the user's repository's confinement: no probe
        fetch = [*clone, *_FETCH, "--depth=1", str(wt.root), wt.base]
        confined_git(wt.root, fetch, _TRANSFER_OPTIONS)
        confined_git(wt.root, [*clone, "checkout", "--quiet", "-b", wt.branch, wt.base])
        # the index git just wrote, before any lead ran: the engine's own, whose file times
        # spare `commit` hashing every unchanged file again
        shutil.copyfile(wt.path / ".git" / "index", wt.engine / "index")
    except (ApplyError, OSError):
        _discard(wt)
        raise
    return _marked(wt)


def _marked(wt: Worktree) -> Worktree:
    """`wt` with the files of its engine folder that steer git, as they were written."""
    for name in _ENGINE_FILES:
        wt.marks[name] = _read(wt.engine / name)
    return wt


_ENGINE_FILES = ("config", "HEAD", "objects/info/alternates", "packed-refs", "info/attributes")


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def tampering(wt: Worktree) -> list[str]:
    """How the engine's git folder beside the clone was changed since it was made (its
    configuration, HEAD, borrowed objects, hooks), one phrase each; empty when intact. Only a
    lead without a sandbox can reach it."""
    found: list[str] = []
    for name, was in wt.marks.items():
        if _read(wt.engine / name) != was:
            found.append(f"the engine's git folder {name} changed ({wt.engine})")
    hooks = wt.engine / "hooks"
    if hooks.exists():
        found.append(f"the engine's git folder gained hooks ({hooks})")
    return found


def _in_engine(wt: Worktree) -> list[str]:
    """The options that point git at the engine's folder and the clone's files explicitly:
    nothing of the clone's own ``.git`` is read."""
    return [f"--git-dir={wt.engine}", f"--work-tree={wt.path}"]


def engine_git(wt: Worktree) -> list[str]:
    """`_in_engine`'s options, for the modules beside this one that read the clone (`parley`)."""
    return _in_engine(wt)


def commit(wt: Worktree, author: str, coauthor: str, subject: str, body: str = "") -> str | None:
    """Commit everything the lead changed in `wt`'s clone (new, modified and deleted files;
    what ``.gitignore`` names stays out; the clone's ``.git`` is not read, so commits the lead
    made itself are folded in) as one commit on top of ``wt.base``, authored by `author`
    (``Name <email>``) with a ``Co-authored-by: `coauthor``` trailer, in the engine's folder;
    fetch it into the user's repository by its id (every object checked) and set
    ``wt.branch`` to it by name. Returns the new commit's id, or None when nothing changed
    (the branch back at ``wt.base``). `ApplyError` when `tampering` finds the engine's folder
    changed, or the branch moved: nothing reaches the user's repository then."""
    changed = tampering(wt)
    if wt.path.is_symlink() or not wt.path.is_dir():  # the add would read where it points
        changed.append(f"the clone {wt.path} was removed or replaced (by a link, or a file)")
    old = _branch_tip(wt)
    if changed or old is None:
        raise ApplyError("; ".join(changed) or f"the branch {wt.branch} is gone")
    confined_git(wt.root, [*_in_engine(wt), "add", "--all"])
    tree = confined_git(wt.root, [*_in_engine(wt), "write-tree"]).strip()
    ref = f"refs/heads/{wt.branch}"
    if tree == confined_git(wt.root, ["rev-parse", "--verify", f"{wt.base}^{{tree}}"]).strip():
        if old != wt.base:
            confined_git(wt.root, ["update-ref", "--no-deref", ref, wt.base, old])
        return None
    name, _, email = author.partition(" <")
    who = ("-c", f"user.name={name}", "-c", f"user.email={email.rstrip('>')}")
    message = ["-m", subject, *(["-m", body] if body else []), "-m", f"Co-authored-by: {coauthor}"]
    new = confined_git(
        wt.root,
        [f"--git-dir={wt.engine}", "commit-tree", tree, "-p", wt.base, *message],
        (*_COMMIT_OPTIONS, *who),
    ).strip()
    confined_git(wt.root, [f"--git-dir={wt.engine}", "update-ref", "refs/heads/apply", new])
    _fetch_back(wt, new)
    confined_git(wt.root, ["update-ref", "--no-deref", "-m", subject, ref, new, old])
    return new


def _fetch_back(wt: Worktree, new: str) -> None:
    """The commit `new` of the engine's folder fetched into the user's repository by its id,
    every object received checked; `ApplyError` unless it arrived as a commit on the base."""
    confined_git(wt.root, [*_FETCH, "--no-auto-gc", str(wt.engine), new], _TRANSFER_OPTIONS)
    parent = confined_git(wt.root, ["rev-parse", "--verify", f"{new}^{{commit}}^1"]).strip()
    if parent != wt.base:  # pragma: no cover - commit-tree wrote exactly this parent
        raise ApplyError(f"the fetched commit {new[:12]} is not on the base {wt.base[:12]}")


def _branch_tip(wt: Worktree) -> str | None:
    """The commit ``wt.branch`` names, or None when it is gone or symbolic."""
    ref = f"refs/heads/{wt.branch}"
    form = "--format=%(refname)%00%(symref)%00%(objectname)"
    out = confined_git(wt.root, ["for-each-ref", form, ref])
    for line in out.splitlines():
        name, symref, tip = (line.split("\0") + ["", ""])[:3]
        if name == ref:
            return None if symref else tip
    return None


def numstat(wt: Worktree, base: str, tip: str) -> list[tuple[str, int | None, int | None]]:
    """(path, lines added, lines removed) for each file `tip` changed since `base`; None for
    the counts of a binary file."""
    args = ["diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", "--no-textconv"]
    out = confined_git(wt.root, [*args, base, tip, "--"])
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
    """Remove the clone, the engine's folder and the scratch folder (the branch stays, unless
    `drop_branch`: an apply that changed nothing leaves no empty branch behind)."""
    _discard(wt)
    if drop_branch:
        confined_git(wt.root, ["branch", "--quiet", "-D", wt.branch])


def _discard(wt: Worktree) -> None:
    """The clone and the folders beside it deleted, whatever modes the lead left on them."""
    for folder in (wt.path, wt.engine_path(), wt.scratch):
        if folder.exists() or folder.is_symlink():
            shutil.rmtree(folder, onerror=_writable_again)


def _writable_again(func: object, path: str, exc: object) -> None:
    """`shutil.rmtree`'s retry for an entry whose folder the lead made read-only."""
    os.chmod(os.path.dirname(path), stat.S_IRWXU)
    if os.path.isdir(path) and not os.path.islink(path):
        os.chmod(path, stat.S_IRWXU)
        shutil.rmtree(path, onerror=_writable_again)
    elif os.path.lexists(path):
        os.unlink(path)
