"""A parley (``discussions apply --parley``): after the lead finished, each file it changed in
its clone is shown to the person as a diff and accepted or rejected, one by one; a rejected
file is put back as it was at the base (restored, or removed when the lead created it), so the
commit that follows (`worktree.commit`) holds only the accepted ones.

Git runs confined, on the engine's own folder and index (`worktree.engine_git`), with literal
pathspecs (a path such as ``*.py`` or ``:x`` names that one file). Nothing of the user's
repository is touched: only the clone, which is the engine's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import ApplyError
from .worktree import Worktree, confined_git, engine_git

FileChoice = Callable[[str, str, int, int], bool]
"""Asks the person about one file: (path, its diff, its place from 1, how many): accept?"""

_LITERAL = ("--literal-pathspecs",)
_DIFF = ["--no-renames", "--no-ext-diff", "--no-textconv", "--no-color"]


@dataclass(slots=True)
class Parley:
    """What the person said of each file."""

    accepted: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


def changed_files(wt: Worktree) -> list[str]:
    """The files the lead changed in `wt`'s clone since its base (new, modified, deleted),
    staged in the engine's index as the commit will stage them."""
    confined_git(wt.root, [*engine_git(wt), "add", "--all"])
    names = confined_git(
        wt.root, [*engine_git(wt), "diff", "--cached", "--name-only", "-z", *_DIFF, wt.base]
    )
    return [n for n in names.split("\0") if n]


def file_diff(wt: Worktree, path: str) -> str:
    """The staged diff of one file against the base, as git prints it."""
    args = [*engine_git(wt), "diff", "--cached", *_DIFF, wt.base, "--", path]
    return confined_git(wt.root, args, _LITERAL)


def reject(wt: Worktree, path: str) -> None:
    """Put `path` back in the clone as it was at the base: restored from the base, or removed
    when the base lacks it (the link itself when it is one, never what it points at)."""
    listed = confined_git(wt.root, ["ls-tree", "-z", "--name-only", wt.base, "--", path], _LITERAL)
    if listed.strip("\0"):
        confined_git(wt.root, [*engine_git(wt), "checkout", wt.base, "--", path], _LITERAL)
        return
    confined_git(wt.root, [*engine_git(wt), "rm", "--cached", "-q", "--", path], _LITERAL)
    target = wt.path / path
    if target.is_symlink() or target.is_file():
        os.unlink(target)


def hold(wt: Worktree, ask: FileChoice) -> Parley:
    """Ask about each changed file in turn and put back the rejected ones; a person who
    stops answering (Ctrl-C, end of input) rejects nothing by silence: the apply fails and
    nothing is committed."""
    told = Parley()
    files = changed_files(wt)
    try:
        for n, path in enumerate(files, 1):
            if ask(path, file_diff(wt, path), n, len(files)):
                told.accepted.append(path)
            else:
                reject(wt, path)
                told.rejected.append(path)
    except (KeyboardInterrupt, EOFError):
        raise ApplyError("the parley was interrupted; nothing was committed") from None
    return told
