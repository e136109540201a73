"""Running git: `run_git`, the repository root, revisions, paths inside it, discussion blobs.

subprocess is imported where used: git runs the merge driver once per file, and the driver's
path imports this module, so it stays small.
"""

from __future__ import annotations

import os

from ..errors import DiscussionsError

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (see __main__)
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Sequence
    from pathlib import Path

    StrPath = str | os.PathLike[str]


def run_git(
    args: Sequence[str],
    cwd: StrPath | None = None,
    *,
    check: bool = True,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git ARGS``; with `check`, a non-zero exit raises `DiscussionsError` with git's
    own message."""
    import subprocess

    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            check=False,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"},
        )
    except FileNotFoundError:
        raise DiscussionsError("git is not installed (or not on PATH)") from None
    if check and proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = message[-1] if message else f"exit status {proc.returncode}"
        raise DiscussionsError(f"git {args[0]} failed: {detail}")
    return proc


def git_text(args: Sequence[str], cwd: Path | None = None) -> str:
    return run_git(args, cwd).stdout.decode("utf-8", "replace")


def find_git_root(start: Path) -> Path | None:
    """The nearest folder from `start` upwards holding ``.git`` (a folder, or a file for
    worktrees and submodules). No git process is run."""
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return None


def repo_root(start: Path) -> Path:
    """The work tree's top folder, or a clear error outside a repository."""
    cwd = start if start.is_dir() else start.parent
    proc = run_git(["rev-parse", "--show-toplevel"], cwd, check=False)
    if proc.returncode != 0:
        raise DiscussionsError(
            f"{start} is not inside a git repository (run `git init`, or use --no-git)"
        )
    from pathlib import Path

    return Path(proc.stdout.decode().strip()).resolve()


def relative_path(path: Path, root: Path) -> str:
    """`path` relative to the repository `root` (posix), or a clear error outside it."""
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        raise DiscussionsError(f"{path} is outside the repository at {root}") from None


def verify_rev(rev: str, root: Path) -> None:
    """Raise `DiscussionsError` unless `rev` names a commit in the repository at `root`."""
    proc = run_git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], root, check=False)
    if proc.returncode != 0:
        raise DiscussionsError(f"unknown revision '{rev}' (try a branch, tag or commit)")


def is_discussion_bytes(data: bytes) -> bool:
    """Whether a file's whole content (from the work tree or a revision) is a discussion's: the
    rule of `syntax.parse.is_discussion_text` (the discussion header or a comment boundary, no
    NUL byte), the text form of `model.storage.discussion_problem`."""
    from ..syntax.parse import is_discussion_text

    return is_discussion_text(data.decode("utf-8", errors="replace"))
