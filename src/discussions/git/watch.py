"""What changed in the user's repository while a lead ran: the second line behind the clone and
the sandbox (`engine.apply.run`), which a lead run without a sandbox may still get past by
writing where the person can.

* `snapshot` / `differences`: the working tree and index (``git status``, every changed or
  untracked file's content hashed), every reference, the files of the git folder that steer
  what the user's git runs or sees (config, hooks, info/, alternates, packed-refs, the other
  worktrees' ties), the operation state files (``MERGE_HEAD``...), and the same of every
  submodule's git folder (``.git/modules/...``).
* `written_since` (ignored files): what was written at or after a moment (`clock`), by change
  time, which a process cannot set back; `object_files` / `rewritten_objects`: a file of the
  object stores (the submodules' too) changed in place."""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from .worktree import Worktree, common_dir, confined_git, own_gitdir

_HASHED_BYTES = 1 << 20
"""Files larger than this are compared by size and modification time, not by content."""


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


def _own_output() -> set[tuple[int, int]]:
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
    files left out), every reference but the branch of `own` (the apply's: its commit moves
    it), and the watched files of the git folder (`_git_files`)."""
    args = ["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all"]
    out = confined_git(root, args)
    header: list[str] = []
    entries: dict[str, str] = {}
    ours = _own_output()
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
    entries.update(_git_files(common_dir(root), own_gitdir(root)))
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
    out = confined_git(root, ["for-each-ref", "--format=%(refname) %(objectname) %(symref)"])
    skip = f"refs/heads/{own_branch}" if own_branch else ""
    found: dict[str, str] = {}
    for line in out.splitlines():
        name, _, value = line.partition(" ")
        if name and name != skip:
            found[f"ref {name}"] = value
    return found


_WATCHED = (
    "config",
    "config.worktree",
    "info/attributes",
    "info/exclude",
    "info/grafts",
    "info/sparse-checkout",
    "objects/info/alternates",
    "objects/info/http-alternates",
    "packed-refs",
    "shallow",
    "commondir",
)
"""Files of the git folder that would make the user's own git run something (a hook path, a
filter, an alias, an fsmonitor), read objects from elsewhere or see the tree or history
differently; the hooks folder, the ties of every other worktree (`_WORKTREE_FILES`) and the
same files of every submodule's git folder (``modules/...``) are watched too. A lead without a
sandbox can reach all of them (it runs as the person)."""
_WORKTREE_FILES = ("HEAD", "commondir", "gitdir", "config.worktree", "locked")
_STATE_FILES = (
    "MERGE_HEAD",
    "MERGE_MSG",
    "MERGE_MODE",
    "MERGE_RR",
    "AUTO_MERGE",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "BISECT_START",
    "SQUASH_MSG",
    "rebase-merge",
    "rebase-apply",
    "sequencer",
)
"""Files of a work tree's git folder that the user's next git command reads as an operation
under way (a planted ``MERGE_HEAD`` makes the next commit a merge of the lead's commit)."""


def _git_files(common: Path, own: Path | None = None) -> dict[str, str]:
    """The watched files of the git folder `common`, of its submodules' git folders, and the
    state files of the work tree's own git folder `own`, as ``.git/<path>`` -> content."""
    found = _watched(common, ".git")
    for name in _STATE_FILES:
        if own is not None:
            found[f".git/{_rel(own, common)}{name}"] = _content(own / name)
    modules = common / "modules"
    if modules.is_dir():
        for folder, dirs, files in os.walk(modules):
            if "HEAD" in files and "config" in files:  # a submodule's git folder
                label = ".git/" + Path(folder).relative_to(common).as_posix()
                found.update(_watched(Path(folder), label))
                found.update({f"{label}/{n}": _content(Path(folder, n)) for n in _STATE_FILES})
                dirs[:] = [d for d in dirs if d == "modules"]
    return found


def _rel(folder: Path, common: Path) -> str:
    """`folder` relative to `common` with a trailing ``/`` ("" for `common` itself)."""
    try:
        rel = folder.relative_to(common).as_posix()
    except ValueError:
        return str(folder) + "/"
    return "" if rel == "." else rel + "/"


def _watched(gitdir: Path, label: str) -> dict[str, str]:
    """`_WATCHED`, the hooks and the other worktrees' ties of one git folder."""
    found = {f"{label}/{name}": _content(gitdir / name) for name in _WATCHED}
    for folder in ("hooks", "worktrees"):
        if (gitdir / folder).is_dir():
            for entry in sorted((gitdir / folder).iterdir()):
                if folder == "hooks":
                    found[f"{label}/hooks/{entry.name}"] = _content(entry)
                else:
                    for name in _WORKTREE_FILES:
                        found[f"{label}/worktrees/{entry.name}/{name}"] = _content(entry / name)
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
    removed in the engine's folder (the kernel's one coarse clock stamps every local file
    system; nothing is written in the user's repository)."""
    mark = wt.engine / "discussions-clock"
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
    found = ["./"] if root.stat().st_ctime_ns >= since else []
    found += _changed_under(root, since, {os.fspath(p) for p in skip}, _own_output())
    return sorted(p.replace(os.sep, "/") for p in found)


ObjectFiles = dict[str, tuple[int, int, int]]
"""``.git/<path>`` -> (inode, change time, size) of each file of the object stores."""


def object_files(root: Path) -> ObjectFiles:
    """Every file of the repository's object store and of its submodules' (loose objects,
    packs and their indexes, commit graphs), but ``info/packs`` (a list git rewrites at will),
    with its inode, change time and size: a file rewritten in place or replaced changes them,
    a file added (a fetch, a commit of yours) is new and harmless."""
    common = common_dir(root)
    stores = [common / "objects"]
    if (common / "modules").is_dir():
        stores += [
            Path(f, "objects")
            for f, _, files in os.walk(common / "modules")
            if "HEAD" in files and os.path.isdir(os.path.join(f, "objects"))
        ]
    found: ObjectFiles = {}
    for store in stores:
        for folder, _, files in os.walk(store):
            for name in files:
                path = os.path.join(folder, name)
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                found[".git/" + Path(path).relative_to(common).as_posix()] = (
                    info.st_ino,
                    info.st_ctime_ns,
                    info.st_size,
                )
    found = {k: v for k, v in found.items() if not k.endswith("/objects/info/packs")}
    return found


def rewritten_objects(before: ObjectFiles, after: ObjectFiles) -> list[str]:
    """The files of `before` that `after` holds changed (a loose object of HEAD rewritten
    changes what ``git show HEAD:file`` prints), one phrase each; added or removed files are
    not named (a fetch adds, a ``gc`` removes)."""
    return [
        f"{name} was rewritten"
        for name, was in sorted(before.items())
        if name in after and after[name] != was
    ]


def _changed_under(
    top_folder: Path, since: int, skipped: set[str], ours: set[tuple[int, int]]
) -> list[str]:
    """Paths under `top_folder` (relative) whose change time is at or after `since`; folders
    end in ``/``. ``.git``, `skipped` folders and `ours` files are left out."""
    found: list[str] = []
    top = len(os.fspath(top_folder)) + 1
    stack = [os.fspath(top_folder)]
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
    return found
