"""The commit a comment was committed in, for a comment that recorded no HEAD (typed by hand
in an editor): `git.grounding` resolves its citations there, the closest the history comes to
the code its author was reading.

One ``git blame --porcelain`` of the discussion file (through the confined git of `confine`)
gives the commit that introduced each line; a comment's commit is its ``Name:`` line's. A line
not committed yet (blame's all-zero commit), a file outside git or unknown to it, and a text
that is no longer the file on disk at that line (an editor's unsaved buffer) give none: those
comments are resolved against the work tree.
"""

from __future__ import annotations

from pathlib import Path

from .confine import COMMIT_ID, Confinement

_UNCOMMITTED = "0" * 40
_BLAMED: dict[tuple[object, ...], dict[int, tuple[str, str]]] = {}
"""Blames by (root, path, the file's size, time and inode, HEAD); bounded by `_KEEP`."""
_KEEP = 64


def commits_of(where: Confinement, path: Path, text: str, lines: list[int]) -> dict[int, str]:
    """Comment line -> the commit that introduced it, for each of `lines` (the ``Name:``
    lines of `text`, the discussion at `path`) that git can say; ``{}`` outside git."""
    if not where.in_git:
        return {}
    try:
        rel = path.resolve().relative_to(where.root.resolve()).as_posix()
    except ValueError:
        return {}
    blamed = _blame(where, path, rel)
    shown = text.split("\n")
    found = {}
    for line in lines:
        commit, said = blamed.get(line, ("", None))
        if commit and 0 < line <= len(shown) and said == shown[line - 1]:
            found[line] = commit
    return found


def _blame(where: Confinement, path: Path, rel: str) -> dict[int, tuple[str, str]]:
    """`_porcelain` of the file at `path` (`rel` in the repository), run again only when the
    file changed on disk or HEAD moved: an editor's language server grounds every version of
    a buffer."""
    try:
        st = path.stat()
    except OSError:
        return {}
    head = where.git(["rev-parse", "--verify", "--quiet", "HEAD"]).out.strip()
    key = (str(where.root), rel, st.st_size, st.st_mtime_ns, st.st_ino, head)
    if key not in _BLAMED:
        run = where.git(["blame", "--porcelain", "--", rel])
        if len(_BLAMED) >= _KEEP:
            _BLAMED.clear()
        text = run.out.decode("utf-8", "replace") if run.returncode == 0 else ""
        _BLAMED[key] = _porcelain(text)
    return _BLAMED[key]


def _porcelain(out: str) -> dict[int, tuple[str, str]]:
    """Final line number -> (commit, the line's text) from ``git blame --porcelain``: each
    line is a header ``COMMIT ORIG FINAL [COUNT]``, the commit's fields the first time it is
    named, then the line itself after a tab. An uncommitted line's commit is ``""``."""
    found: dict[int, tuple[str, str]] = {}
    commit, final = "", 0
    for raw in out.split("\n"):
        if raw.startswith("\t"):
            found[final] = ("" if commit == _UNCOMMITTED else commit, raw[1:])
            continue
        parts = raw.split(" ")
        if len(parts) >= 3 and COMMIT_ID.fullmatch(parts[0]) and parts[2].isdigit():
            commit, final = parts[0], int(parts[2])
    return found
