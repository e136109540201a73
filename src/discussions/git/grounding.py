"""Resolving a discussion's citations against the repository (grounded votes).

A comment the engine wrote records the repository's HEAD when it cites anything (``head:``
in its metadata line, `current_head`). Each citation is resolved against that commit
(``git cat-file blob COMMIT:PATH``, through the confined git of `confine`: read-only, no
filter, no hook): the file exists there, the lines exist, the quoted snippet is in them, the
named function is defined in the file. Holding there, it is `GROUNDED` when the work tree
still holds the same lines and `STALE` when the file has moved on; not holding there, it is
`UNRESOLVABLE` (an invented path, an out-of-range line, a misquote).

A comment with no recorded HEAD (typed by hand in an editor, or written by an older version)
is resolved at the commit that introduced its ``Name:`` line (`git.commented`, one ``git
blame`` of the discussion file): the closest commit to when it was written that the history
holds, so a hand-typed citation goes stale like an engine-written one. A comment not committed
yet, one written outside git, and one whose commit this clone lacks are resolved against the
work tree, and their verdicts say so.

Each (commit, path) is read once per resolution; no git runs for a file without citations.
Paths pass the evidence rule (`Confinement.problem`): a secret is never read.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..derive.citations import GROUNDED, STALE, UNRESOLVABLE, Verdict, citation_key
from ..model.discussion import Discussion
from ..syntax.citations import Citation
from .commented import commits_of
from .confine import COMMIT_ID, Confinement, Refused

_WORK_TREE = "the working tree"


def current_head(start: Path) -> str:
    """The full id of HEAD of the repository holding `start`; ``""`` outside git or before
    the first commit."""
    where = Confinement.of(start)
    if not where.in_git:
        return ""
    run = where.git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
    out = run.out.decode("ascii", "replace").strip()
    return out if run.returncode == 0 and COMMIT_ID.fullmatch(out) else ""


_KEPT: dict[tuple[str, str, str], tuple[object, list[str] | str]] = {}
"""Files read, by (root, commit or ``""`` for the work tree, path), with what they were read
at: a commit never changes, and a work-tree file is read again only when its size or time
changed. A long-lived process (an editor's language server, checking each version of a
buffer) then runs no git for a citation it has resolved before. Bounded by `_KEEP`."""
_KEEP = 512
_COMMITS: set[tuple[str, str]] = set()
"""(root, commit) of the commits found in a repository (a commit once there stays)."""


class _Reader:
    """File contents at a commit or in the work tree, each read once."""

    def __init__(self, where: Confinement) -> None:
        self.where = where
        self.root = str(where.root)
        self.reads = 0
        """How many files were read (git runs and work-tree reads), for the figures."""

    def has_commit(self, commit: str) -> bool:
        if (self.root, commit) not in _COMMITS:
            if self.where.git(["cat-file", "-e", f"{commit}^{{commit}}"]).returncode != 0:
                return False
            _COMMITS.add((self.root, commit))
        return True

    def lines(self, commit: str, path: str) -> list[str] | str:
        """The lines of `path` at `commit` (``""``: the work tree), or why not."""
        key = (self.root, commit, path)
        seen = _KEPT.get(key)
        signature = "" if commit else _signature(self.where.root / path)
        if seen is None or seen[0] != signature:
            self.reads += 1
            if len(_KEPT) >= _KEEP:
                _KEPT.clear()
            seen = _KEPT[key] = (signature, self._read(commit, path))
        return seen[1]

    def _read(self, commit: str, path: str) -> list[str] | str:
        why = self.where.problem(path)
        if why is not None:
            return why
        if not commit:
            try:
                text = self.where.resolve(path).read_text("utf-8", "replace")
            except (Refused, OSError) as e:
                return str(e) if isinstance(e, Refused) else f"`{path}` cannot be read"
            return text.splitlines()
        run = self.where.git(["cat-file", "blob", f"{commit}:{path}"])
        if run.returncode != 0:
            return f"no file `{path}`"  # the verdict says at which commit (its against)
        return run.out.decode("utf-8", "replace").splitlines()


def _signature(path: Path) -> object:
    """What tells a work-tree file changed: its size, time and inode (None: not there)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def ground(d: Discussion) -> int:
    """Resolve `d`'s citations and set `d.grounding`; the number of files read. Nothing
    runs for a discussion without citations."""
    if not any(c.citations for c in d.comments):
        d.grounding = {}
        return 0
    reader = _Reader(Confinement.of_discussion(d.path, d.workspace.config.base_dir))
    headless = [c.line for c in d.comments if c.citations and not c.meta.get("head")]
    committed = commits_of(reader.where, d.path, d.text, headless) if headless else {}
    verdicts = {}
    for comment in d.comments:
        head = comment.meta.get("head", "")
        blamed = "" if head else committed.get(comment.line, "")
        for c in comment.citations:
            verdicts[citation_key(c)] = _verdict(reader, c, head or blamed, bool(blamed))
    d.grounding = verdicts
    return reader.reads


def _verdict(reader: _Reader, c: Citation, head: str, blamed: bool = False) -> Verdict:
    """One citation's verdict, against `head` when the repository has it (`blamed`: the
    commit that introduced a comment that recorded none)."""
    commit = head if head and reader.where.in_git and reader.has_commit(head) else ""
    against = f"commit {commit[:7]}" if commit else _WORK_TREE
    if commit and blamed:
        against += " (where the comment was committed)"
    if head and not commit:
        against += f" (commit {head[:7]} is not in this repository)"
    then = reader.lines(commit, c.path)
    if isinstance(then, str):
        return Verdict(UNRESOLVABLE, then, against)
    problem = _mismatch(c, then)
    if problem:
        return Verdict(UNRESOLVABLE, problem, against)
    if not commit:
        return Verdict(GROUNDED, "", against)
    now = reader.lines("", c.path)
    if isinstance(now, str):
        return Verdict(STALE, f"`{c.path}` is gone from the working tree", against)
    if _cited(c, now) != _cited(c, then) or _mismatch(c, now):
        return Verdict(STALE, f"`{c.text}` changed since it was cited", against)
    return Verdict(GROUNDED, "", against)


def _cited(c: Citation, lines: list[str]) -> list[str]:
    """The lines `c` cites (the whole file when it names no line)."""
    return lines[c.start - 1 : c.end] if c.start else lines


def _mismatch(c: Citation, lines: list[str]) -> str:
    """Why `lines` (the file) do not hold what `c` says, else ``""``."""
    if c.start and (c.start < 1 or c.end > len(lines)):
        return f"`{c.path}` has {len(lines)} lines: line {c.end} does not exist"
    if c.snippet and _squash(c.snippet) not in _squash("\n".join(_cited(c, lines))):
        return f"the quoted `{c.snippet}` is not in `{c.text}`"
    if c.symbol and not _defines(c.symbol, lines):
        return f"`{c.path}` defines no `{c.symbol}`"
    return ""


def _squash(text: str) -> str:
    """`text` with every run of blanks taken out: a quote matches however it was spaced."""
    return re.sub(r"\s+", "", text)


def _defines(symbol: str, lines: list[str]) -> bool:
    """Whether `lines` define `symbol` (its last dotted name): ``def``, ``class``,
    ``function``, ``func``, ``fn`` or an assignment."""
    name = re.escape(symbol.rsplit(".", 1)[-1].rsplit(":", 1)[-1])
    found = re.compile(
        rf"\b(?:def|class|function|func|fn|struct|interface|type|const|let|var)\s+\**{name}\b"
        rf"|^\s*{name}\s*[=:(]"
    )
    return any(found.search(line) for line in lines)
