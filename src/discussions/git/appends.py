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
class _AppendViolation:
    """A discussion file whose bytes from `rev` were changed, not only appended to."""

    path: Path
    line: int
    """First line (1-based, in the current file) that differs from the file at `rev`."""
    message: str


def changed_discussion_files(rev: str, start: Path) -> list[Path]:
    """Discussion files (`is_discussion_bytes`; not a file the engine derives) in the work
    tree that differ from `rev`, committed or not, and new ones git does not track yet; a file
    that was a discussion at `rev` too, whatever it holds now (emptied, or overwritten with
    other text, it removed what it held)."""
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
        if is_discussion_bytes(path.read_bytes()) or _was_discussion(root, rev, raw):
            found.append(path)
    return found


def _was_discussion(root: Path, rev: str, raw: bytes) -> bool:
    """Whether the file `raw` (a path as git printed it) was a discussion at `rev`."""
    rel = raw.decode("utf-8", "surrogateescape")
    old = run_git(["cat-file", "blob", f"{rev}:{rel}"], root, check=False)
    return old.returncode == 0 and is_discussion_bytes(old.stdout)


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


def _append_only_violation(path: Path, rev: str) -> _AppendViolation | None:
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
        return _AppendViolation(
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
    return _AppendViolation(path, line, messages[found.kind])


@dataclass(slots=True)
class _AppendCheck:
    """What `check_appends` found: the files it looked at and the violations."""

    files: list[Path] = field(default_factory=list)
    """Discussion files present in the work tree that it checked."""
    violations: list[_AppendViolation] = field(default_factory=list)


def check_appends(rev: str, start: Path, paths: Sequence[Path] | None = None) -> _AppendCheck:
    """The append-only check since `rev` (for `check --since`, hooks, CI): each of `paths`, or
    without them every discussion file changed since `rev` and every one deleted since; and
    every merge since `rev`, or in progress, holds every block of each parent (`merge_losses`).
    Raises `DiscussionsError` for an unknown revision or a folder outside a repository;
    ``HEAD`` before the first commit (a hook's first run) has nothing to compare with."""
    report = _AppendCheck()
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
            violation = _append_only_violation(path, rev)
        except DiscussionsError as exc:  # a file outside the repository
            violation = _AppendViolation(path, 0, str(exc))
        if violation is not None:
            report.violations.append(violation)
    report.violations += merge_losses(rev, start, paths)
    return report


# --------------------------------------------------------------------------- merges


def merge_losses(
    rev: str, start: Path, paths: Sequence[Path] | None = None
) -> list[_AppendViolation]:
    """Blocks a merge dropped: for each merge commit since `rev` (on the way to HEAD) and for
    a merge in progress (the work tree, with HEAD and each MERGE_HEAD as parents), every block
    of every parent must be in the result (`additions.lost_blocks`). This holds whichever
    tool merged (the driver, git's line merge resolved by hand, a driver that failed), so
    anyone can check a merge. `paths`: only these files."""
    root = repo_root(start)
    wanted = None if paths is None else {relative_path(p, root) for p in paths}
    found: list[_AppendViolation] = []
    listing = b""
    if rev != "HEAD":  # the hook's case: no commit since
        listing = run_git(["rev-list", "--merges", "--parents", f"{rev}..HEAD"], root).stdout
    for line in listing.decode().splitlines():
        merge, *parents = line.split()
        found += _merge_losses(root, merge, parents, wanted)
    heads = _merge_heads(root)
    if heads:
        found += _merge_losses(root, None, ["HEAD", *heads], wanted)
    return found


def _git_lines(args: list[str], root: Path) -> list[str]:
    return run_git(args, root).stdout.decode("utf-8", "replace").split()


def _merge_heads(root: Path) -> list[str]:
    """The commits being merged into HEAD (``MERGE_HEAD``), none outside a merge."""
    where = run_git(["rev-parse", "--git-path", "MERGE_HEAD"], root).stdout.decode().strip()
    try:
        return (root / where).read_text(encoding="utf-8").split()
    except OSError:
        return []


def _merge_losses(
    root: Path, merge: str | None, parents: list[str], wanted: set[str] | None
) -> list[_AppendViolation]:
    """The blocks of `parents` missing from `merge` (None: the work tree), file by file."""
    names = sorted({name for parent in parents for name in _changed(root, parent, merge)})
    bases = _Bases(root, parents)
    found: list[_AppendViolation] = []
    for rel in names:
        if wanted is None or rel in wanted:
            found += _file_losses(root, rel, merge, parents, bases)
    return found


def _file_losses(
    root: Path, rel: str, merge: str | None, parents: list[str], bases: _Bases
) -> list[_AppendViolation]:
    """The blocks of each parent's version of discussion `rel` missing from the merge's."""
    from .additions import lost_blocks

    merged = _version(root, merge, rel)  # None (deleted) or no discussion: it holds nothing
    texts = [_version(root, p, rel) for p in parents]
    found: list[_AppendViolation] = []
    for i, mine in enumerate(texts):
        if mine is None or not is_discussion_bytes(mine):
            continue  # the file is new in the merge, or came from another parent
        others = [(_text(texts[j]), bases.texts(i, j, rel)) for j in range(len(parents)) if j != i]
        for block in lost_blocks(_text(merged), _text(mine), others):
            found.append(_lost(root, rel, merge, parents[i], block))
    return found


class _Bases:
    """The merge bases of each pair of a merge's parents (git asked once per pair)."""

    def __init__(self, root: Path, parents: list[str]) -> None:
        self.root = root
        self.parents = parents
        self.found: dict[tuple[int, int], list[str]] = {}

    def texts(self, i: int, j: int, rel: str) -> list[str]:
        """File `rel` as each merge base of parents `i` and `j` has it (empty: absent)."""
        key = (min(i, j), max(i, j))
        if key not in self.found:
            pair = [self.parents[key[0]], self.parents[key[1]]]
            self.found[key] = _git_lines(["merge-base", "--all", *pair], self.root)
        return [_text(_version(self.root, base, rel)) for base in self.found[key]]


def _changed(root: Path, parent: str, merge: str | None) -> list[str]:
    """Markdown files (not derived) that differ between `parent` and `merge` (None: the work
    tree, untracked files included)."""
    from ..model.storage import is_derived

    if merge is None:
        files = changed_discussion_files(parent, root) + deleted_discussion_files(parent, root)
        return [relative_path(p, root) for p in files]
    out = run_git(["diff", "--name-only", "-z", "--no-renames", parent, merge, "--"], root)
    names = [n.decode("utf-8", "surrogateescape") for n in out.stdout.split(b"\0") if n]
    return [n for n in names if n.endswith(".md") and not is_derived(root / n)]


def _version(root: Path, rev: str | None, rel: str) -> bytes | None:
    """The file `rel` at `rev` (None: in the work tree); None where it does not exist."""
    if rev is None:
        try:
            return (root / rel).read_bytes()
        except OSError:
            return None
    proc = run_git(["cat-file", "blob", f"{rev}:{rel}"], root, check=False)
    return proc.stdout if proc.returncode == 0 else None


def _text(data: bytes | None) -> str:
    return "" if data is None else data.decode("utf-8", "surrogateescape")


def _lost(root: Path, rel: str, merge: str | None, parent: str, block: str) -> _AppendViolation:
    """The violation naming a lost block: the parent it came from, its author, its first
    line, and how to get it back."""
    from .plain import head_name

    short = _git_lines(["rev-parse", "--short", parent], root)[0]
    lines = [ln.strip() for ln in block.splitlines() if ln.strip() and ln.strip() != "---"]
    head = head_name(block)
    if head is not None:
        said = next((ln for ln in lines[1:] if not ln.startswith("<!--")), "")
        what = f"Name: {head.strip()}, {said[:60]!r}"
    else:
        what = repr(lines[0][:60]) if lines else "a block"
    if merge is None:
        where, fix = "the merge", "redo it: `git merge --abort`, `discussions init`, merge again"
    else:
        where = f"the merge {_git_lines(['rev-parse', '--short', merge], root)[0]}"
        fix = f"append it again from `git show {short}:{rel}`"
    return _AppendViolation(
        root / rel, 0, f"lost by {where}: a block of {short} ({what}) is not in the result; {fix}"
    )
