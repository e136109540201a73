"""The ``git`` evidence request: ``git log|show|diff|blame ARGS``, read-only, with an allow-list
of options (none that writes a file, runs a program or takes a regular expression), and git run
confined (`git.confine.Confinement.git`).

* Every revision is resolved by git to a commit id, which must be reachable from HEAD or a
  local branch (no stash, no notes, no remote-only or dangling commit), and git is given the
  id, never the words; a tree or blob id is refused (``REV:PATH`` with REV a commit is how a
  file is asked for, its path checked).
* An answer that shows files (a diff, a ``--stat``, ``--name-only`` ...) is built per file:
  git lists the paths first (per commit for ``log`` and ``show``), each is sifted by the rule
  ``read`` applies (`Confinement.sift`), and git is asked for the allowed paths only, as
  literal pathspecs it cannot widen; each refused path is named in the block.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ...git.confine import Confinement, Refused, Sifted
from ...providers.command import ContainedRun
from ...syntax.evidence import content_digest
from .sources import PATHS_PER_RUN, Found, capped

_SUBCOMMANDS = ("log", "show", "diff", "blame")

_FLAGS = frozenset((
    "--oneline", "--stat", "--shortstat", "--numstat", "--name-only", "--name-status", "-p",
    "--patch", "-u", "--no-merges", "--merges", "--reverse", "--first-parent", "-w",
    "--ignore-all-space", "-b", "--cached", "--staged", "-s", "--no-patch", "--graph",
    "--decorate", "--abbrev-commit", "--summary", "--raw", "--branches", "--root", "--minimal",
    "--patience", "--histogram", "--word-diff", "--color-words", "--full-index",
))  # fmt: skip
_VALUED = {
    "-n": r"\d{1,6}",
    "--max-count": r"\d{1,6}",
    "--skip": r"\d{1,6}",
    "-U": r"\d{1,4}",
    "--unified": r"\d{1,4}",
    "--since": r"[\w :.,+-]{1,40}",
    "--until": r"[\w :.,+-]{1,40}",
    "--after": r"[\w :.,+-]{1,40}",
    "--before": r"[\w :.,+-]{1,40}",
    "--date": r"[a-z-]{1,20}",
    "--pretty": r"oneline|short|medium|full|fuller|reference|raw",
    "--format": r"oneline|short|medium|full|fuller|reference|raw",
    "-L": r"\d{1,7},\+?\d{1,7}",
}
_EXPLAINED = {
    "--all": "`--all` reaches stashes and notes, which are never shown; ask for --branches",
}
_SELECT = frozenset((
    "-n", "--max-count", "--skip", "--since", "--until", "--after", "--before", "--no-merges",
    "--merges", "--first-parent", "--reverse", "--branches", "--cached", "--staged",
))  # fmt: skip
"""Options that choose the commits (or the sides of a diff): given to the listing run."""
_OUTPUTS = frozenset((
    "-p", "--patch", "-u", "-U", "--unified", "--stat", "--shortstat", "--numstat",
    "--name-only", "--name-status", "--raw", "--summary", "--word-diff", "--color-words",
))  # fmt: skip
"""Options that make ``log`` print files (``show`` does unless ``-s``; ``diff`` always)."""
_NO_DIFF = frozenset((
    "--oneline", "--decorate", "--abbrev-commit", "--date", "--pretty", "--format",
))  # fmt: skip
"""Options of a commit's header, kept when a commit shows no file."""
_REV = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/@{}~^-]{0,199}$")
_NUMBER_FLAG = re.compile(r"^-\d{1,6}$")
_MAX_LINES = 2000
"""Lines a git answer shows at most."""
_MAX_OUTPUT = 1 << 20
_DIFF = ["--no-color", "--no-ext-diff", "--no-textconv", "--no-renames"]
"""Every run that shows a diff: no program the repository chose, and no rename pairing a
shown path with another."""


@dataclass(slots=True)
class _Ask:
    """A checked request: the options (name, words), revisions as commit ids (or
    ``ID:PATH`` objects) and paths."""

    sub: str
    options: list[tuple[str, list[str]]] = field(default_factory=list)
    revs: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)

    def words(self, keep: Callable[[str], bool]) -> list[str]:
        """The words of the options whose name `keep` accepts."""
        return [w for name, words in self.options if keep(name) for w in words]

    def has(self, names: frozenset[str] | tuple[str, ...]) -> bool:
        return any(name in names for name, _ in self.options)

    def oneline(self) -> bool:
        """Whether each commit's header is one line (git puts no blank line between two)."""
        return any(
            name == "--oneline"
            or (name in ("--pretty", "--format") and words[-1].endswith("oneline"))
            for name, words in self.options
        )

    def shows_files(self) -> bool:
        """Whether git's answer would print paths or file content."""
        if self.sub == "diff" or self.has(_OUTPUTS):
            return True
        return self.sub == "show" and not self.has(("-s", "--no-patch"))


@dataclass(slots=True)
class _Output:
    """The lines of an answer, gathered run by run, up to `_MAX_LINES` or `_MAX_OUTPUT`."""

    sub: str
    lines: list[str] = field(default_factory=list)
    size: int = 0
    flooded: bool = False

    def add(self, where: Confinement, argv: list[str], literal: bool = True) -> list[str]:
        """Run ``git ARGV`` (with `literal`, its paths as literal pathspecs; else ARGV's
        pathspecs say so themselves) and keep its lines (returned too)."""
        run = where.git(["--literal-pathspecs"] * literal + argv, max_output=_MAX_OUTPUT)
        _check(run, self.sub)
        lines = run.out.decode("utf-8", "replace").splitlines()
        self.lines += lines
        self.size += len(run.out)
        self.flooded = self.flooded or run.flooded or self.size > _MAX_OUTPUT
        return lines

    def full(self) -> bool:
        return self.flooded or len(self.lines) > _MAX_LINES


def _every(name: str) -> bool:
    return True


def _check(run: ContainedRun, sub: str) -> None:
    """`Refused` with git's first line when the run failed (a run cut at its output cap did
    not fail)."""
    if run.returncode != 0 and not run.flooded:
        said = (run.err or run.out.decode("utf-8", "replace")).strip().splitlines()
        status = "timed out" if run.timed_out else run.returncode
        raise Refused(f"git {sub} failed: {said[0] if said else status}")


def git_request(args: str, where: Confinement) -> Found:
    """Run the request's git command, or raise `Refused` before running anything."""
    if not where.in_git:
        raise Refused("the project is not a git repository")
    try:
        words = shlex.split(args)
    except ValueError as exc:
        raise Refused(f"cannot read the arguments: {exc}") from None
    if not words or words[0] not in _SUBCOMMANDS:
        raise Refused(f"only `git {'|'.join(_SUBCOMMANDS)}` are run (read only)")
    ask = _checked(words[0], words[1:], where)
    out = _Output(ask.sub)
    if ask.sub == "blame":
        out.add(where, ["blame", "--no-textconv", *ask.words(_every), *ask.revs, "--", *ask.paths])
    elif any(":" in r for r in ask.revs):
        out.add(where, [ask.sub, *_DIFF, *ask.words(_every), *ask.revs])
    elif ask.sub == "diff":
        _diff_per_file(ask, where, out)
    elif ask.shows_files():
        _commits_per_file(ask, where, out)
    else:
        out.add(where, [ask.sub, *_DIFF, *ask.words(_every), *ask.revs, "--", *ask.paths])
    head = _head(where)
    found = capped(out.lines, _MAX_LINES, "lines", ask.sub)
    found.ref = f"commit {head}" if head else "output " + content_digest(found.content)
    if out.flooded:
        found.note = "output cut at 1 MiB"
    return found


def _diff_per_file(ask: _Ask, where: Confinement, out: _Output) -> None:
    """``git diff``: the changed paths listed, sifted, and the diff of the allowed ones, then
    a line naming each refused one (after: thousands of them, a vendored folder once tracked,
    would otherwise take the whole answer)."""
    listing = _listing(where, ["diff", "--no-renames", "--name-only", "-z"], ask)
    sifted = where.sift([n for n in listing.split("\0") if n])
    for start in range(0, len(sifted.allowed), PATHS_PER_RUN):
        batch = sifted.pathspecs(sifted.allowed[start : start + PATHS_PER_RUN])
        out.add(where, ["diff", *_DIFF, *ask.words(_every), *ask.revs, "--", *batch], False)
        if out.full():
            break
    out.lines += sifted.lines()


def _commits_per_file(ask: _Ask, where: Confinement, out: _Output) -> None:
    """``git log`` or ``git show`` that shows files: the commits and the paths each touches
    listed, every path sifted at once, then the commits shown with their allowed paths only
    (a commit's header alone when it has none), each refused path named after its commit."""
    if ask.has(("--graph",)):
        raise Refused("`--graph` is not shown with files; ask without it, or without the diff")
    argv = [ask.sub, "--no-renames", "--name-only", "-z", "--format=%x01%H %P"]
    commits = _by_commit(_listing(where, argv, ask))
    verdicts = where.sift([name for _, _, names in commits for name in names])
    shown = ask.words(lambda name: name not in _SELECT)
    header = ask.words(lambda name: name in _NO_DIFF)
    for n, (group, part) in enumerate(_groups(commits, verdicts)):
        if n and not ask.oneline():
            out.lines.append("")  # git's blank line between two commits, across runs
        said: list[str] = []
        if part.allowed and len(part.allowed) <= PATHS_PER_RUN:
            argv = ["show", *_DIFF, *shown, *group, "--", *part.pathspecs()]
            said = out.add(where, argv, literal=False)
        if not said:  # no allowed path, or git left the commit out: its header alone
            out.add(where, ["show", "-s", *header, *group])
            if len(part.allowed) > PATHS_PER_RUN:
                out.lines.append(f"({len(part.allowed)} files, too many to show: ask for a path)")
        out.lines += part.lines()
        if out.full():
            return


_BATCH = 20
"""Commits one ``git show`` shows at most."""


def _groups(
    commits: list[tuple[str, bool, list[str]]], verdicts: Sifted
) -> Iterator[tuple[list[str], Sifted]]:
    """Runs of commits one ``git show`` shows together (their allowed paths as its
    pathspecs): consecutive commits, not merges, whose every path is allowed, up to `_BATCH`
    commits and `PATHS_PER_RUN` paths. Any other commit goes alone, its refused paths named
    right after it."""
    group: list[str] = []
    paths: dict[str, None] = {}
    for commit, merge, names in commits:
        part = verdicts.part(names)
        alone = merge or bool(part.refused) or not part.allowed
        if group and (alone or len(group) >= _BATCH or len(paths) + len(names) > PATHS_PER_RUN):
            yield group, Sifted(list(paths))
            group, paths = [], {}
        if alone:
            yield [commit], part
        else:
            group.append(commit)
            paths.update(dict.fromkeys(part.allowed))
    if group:
        yield group, Sifted(list(paths))


def _listing(where: Confinement, argv: list[str], ask: _Ask) -> str:
    """The output of the listing run ``ARGV`` with the request's choosing options,
    revisions and paths."""
    run = where.git(
        ["--literal-pathspecs", *argv, *ask.words(_SELECT.__contains__), *ask.revs, "--"]
        + ask.paths,
        max_output=4 * _MAX_OUTPUT,
    )
    _check(run, ask.sub)
    return run.out.decode("utf-8", "replace")


def _by_commit(listing: str) -> list[tuple[str, bool, list[str]]]:
    """(commit id, whether a merge, paths) from ``--name-only -z --format=%x01%H %P``."""
    out = []
    for chunk in listing.split("\x01")[1:]:
        line, *names = chunk.split("\0")
        ids = line.split()
        paths = [n.lstrip("\n") for n in names if n.strip("\n")]
        if ids:
            out.append((ids[0], len(ids) > 2, paths))
    return out


def _checked(sub: str, words: list[str], where: Confinement) -> _Ask:
    """The request's options, revisions (resolved) and paths (sifted); `Refused` for
    anything else."""
    ask = _Ask(sub)
    i = 0
    after_dashes = False
    while i < len(words):
        word = words[i]
        i += 1
        if after_dashes:
            ask.paths.append(_path(word, where))
        elif word == "--":
            after_dashes = True
        elif word.startswith("-"):
            name, taken = _option(word, words[i] if i < len(words) else None)
            ask.options.append((name, _stuck(name, words[i - 1 : i - 1 + taken])))
            i += taken - 1
        elif ":" in word:
            ask.revs.append(_object(word, where))
        else:
            rev = _revision(word, where) if _REV.match(word) else None
            if rev is None and not (where.root / word).exists():
                raise Refused(f"`{word}` is no revision, nor a path (give a path after `--`)")
            if rev is None:
                ask.paths.append(_path(word, where))
            else:
                ask.revs.append(rev)
    _shape(ask)
    return ask


def _shape(ask: _Ask) -> None:
    """Refuse the combinations git would read otherwise than checked."""
    objects = [r for r in ask.revs if ":" in r]
    if objects and (len(objects) != len(ask.revs) or ask.paths or ask.sub in ("log", "blame")):
        raise Refused("ask for REV:PATH alone (`git show REV:PATH`, `git diff A:PATH B:PATH`)")
    if ask.sub == "blame" and (len(ask.paths) != 1 or len(ask.revs) > 1):
        raise Refused("`git blame` needs one path: git blame [REV] -- PATH")


def _revision(word: str, where: Confinement) -> str | None:
    """`word` (a revision or a range ``A..B``, ``A...B``) with each side resolved to its
    commit id (`_commit`); None when no side names any object (git reads it as a path)."""
    dots = "..." if "..." in word else ".." if ".." in word else ""
    sides = word.split(dots) if dots else [word]
    if len(sides) > 2:
        raise Refused(f"`{word}` is not a revision")
    resolved = [_commit(side, where) if side else "" for side in sides]
    if any(r is None for r in resolved):
        if len(sides) == 1:
            return None
        raise Refused(f"`{word}`: unknown revision")
    return dots.join(r or "" for r in resolved)


def _commit(rev: str, where: Confinement) -> str | None:
    """The id of the commit `rev` names, when reachable from HEAD or a local branch; None
    when `rev` names no object; `Refused` for a tree, a blob, or a commit not reachable (a
    stash, notes, a remote-only or dangling commit)."""
    if not _REV.match(rev):
        raise Refused(f"`{rev}` is not a revision")
    found = where.git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"])
    commit = found.out.decode("utf-8", "replace").strip()
    if found.returncode != 0 or not commit:
        kind = where.git(["cat-file", "-t", f"{rev}^{{}}"]).out.decode().strip()
        if not kind:
            return None
        what = {"blob": "a file's content", "tree": "a folder"}.get(kind, f"a {kind}")
        raise Refused(
            f"`{rev}` is not a commit: it names {what} by its id; ask for REV:PATH, REV a commit"
        )
    tips = ["--branches", *(["HEAD"] if _head(where) else [])]
    beyond = where.git(["rev-list", "-n", "1", commit, "--not", *tips])
    if beyond.returncode != 0 or beyond.out.strip():
        raise Refused(
            f"`{rev}` is not reachable from HEAD or a local branch (stashes, notes, remote-only "
            "and dangling commits are never shown)"
        )
    return commit


def _object(word: str, where: Confinement) -> str:
    """``REV:PATH``: REV a reachable commit, PATH a file the rule allows; as ``ID:PATH``."""
    rev, _, path = word.partition(":")
    commit = _commit(rev, where) if rev else None
    if commit is None:
        raise Refused(f"`{rev}` is not a revision: ask for REV:PATH with REV a commit")
    if path in ("", "."):
        raise Refused(f"`{word}` is a folder: ask for a file, or `list` for a folder")
    _path(path, where)
    kind = where.git(["cat-file", "-t", f"{commit}:{path}"]).out.decode().strip()
    if kind != "blob":
        raise Refused(
            f"`{word}` is not a file at {rev}" + (": ask `list` for a folder" if kind else "")
        )
    return f"{commit}:{path}"


def _head(where: Confinement) -> str:
    return where.git(["rev-parse", "--verify", "--quiet", "HEAD"]).out.decode().strip()


def _option(word: str, following: str | None) -> tuple[str, int]:
    """The name of the option `word` and how many words it takes (1 or 2); `Refused` when
    it is not allowed."""
    if word in _FLAGS:
        return word, 1
    if _NUMBER_FLAG.match(word):
        return "-n", 1
    name, eq, value = word.partition("=")
    if name not in _VALUED and len(word) > 2 and word[:2] in _VALUED:
        name, eq, value = word[:2], "=", word[2:]
    pattern = _VALUED.get(name)
    if pattern is None:
        why = _EXPLAINED.get(
            name, f"the git option `{name}` is not allowed (only read-only options are)"
        )
        raise Refused(why)
    if eq:
        if not re.fullmatch(pattern, value):
            raise Refused(f"`{word}`: the value is not allowed")
        return name, 1
    if following is None or not re.fullmatch(pattern, following):
        raise Refused(f"`{name}` needs a value like {pattern!r}")
    return name, 2


def _stuck(name: str, words: list[str]) -> list[str]:
    """An option and its value as one word (``--pretty=oneline``, ``-U3``): given apart, git
    would read some values as a revision."""
    if len(words) < 2:
        return words
    return [f"{name}={words[1]}" if name.startswith("--") else name + words[1]]


def _path(rel: str, where: Confinement) -> str:
    """A path of the request, checked by the rule (`Confinement.sift`)."""
    if rel == ".":
        return rel
    if rel.startswith(":"):
        raise Refused(f"path `{rel}`: pathspec magic is not allowed")
    sifted = where.sift([rel.removesuffix("/")])
    if sifted.refused:
        raise Refused(f"path `{rel}`: {sifted.refused[0][1]}")
    return rel
