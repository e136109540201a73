"""The ``git`` evidence request: ``git log|show|diff|blame ARGS``, read-only, with an allow-list
of options (none that writes a file, runs a program or takes a regular expression), revisions
and paths checked, secrets left out of every diff, and git run confined
(`git.confine.Confinement.git`)."""

from __future__ import annotations

import re
import shlex

from ..git.confine import SECRET_PATTERNS, Confinement, Refused
from ..syntax.evidence import content_digest
from .evidence_sources import Found, capped

SUBCOMMANDS = ("log", "show", "diff", "blame")

_FLAGS = frozenset(
    (
        "--oneline", "--stat", "--shortstat", "--numstat", "--name-only", "--name-status", "-p",
        "--patch", "-u", "--no-merges", "--merges", "--reverse", "--first-parent", "-w",
        "--ignore-all-space", "-b", "--cached", "--staged", "-s", "--no-patch", "--graph",
        "--decorate", "--abbrev-commit", "--summary", "--raw", "--all", "--root", "--minimal",
        "--patience", "--histogram", "--word-diff", "--color-words", "--full-index",
    )
)
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
_REV = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/@{}~^-]{0,199}$")
_NUMBER_FLAG = re.compile(r"^-\d{1,6}$")
_EXCLUDES = [f":(exclude,glob,icase)**/{p}" for p in SECRET_PATTERNS] + [
    f":(exclude,glob,icase){p}" for p in SECRET_PATTERNS
]


def git_request(args: str, where: Confinement) -> Found:
    """Run the request's git command, or raise `Refused` before running anything."""
    if not where.in_git:
        raise Refused("the project is not a git repository")
    try:
        words = shlex.split(args)
    except ValueError as exc:
        raise Refused(f"cannot read the arguments: {exc}") from None
    if not words or words[0] not in SUBCOMMANDS:
        raise Refused(f"only `git {'|'.join(SUBCOMMANDS)}` are run (read only)")
    sub, rest = words[0], words[1:]
    options, revs, paths = _split(rest, where)
    _no_blobs(revs, where)
    argv = [sub, "--no-color", "--no-ext-diff", "--no-textconv", *options]
    if sub == "blame":
        argv = [sub, "--no-textconv", *options]
        if len(paths) != 1:
            raise Refused("`git blame` needs one path: git blame [REV] -- PATH")
        argv += [*revs, "--", *paths]
    elif any(":" in r for r in revs):
        argv += revs  # an object (REV:PATH), checked in _split
    else:
        argv += [*revs, "--", *(paths or ["."]), *_EXCLUDES]
    run = where.git(argv, max_output=1 << 20)
    if run.returncode != 0 and not run.flooded:
        said = (run.err or run.out.decode("utf-8", "replace")).strip().splitlines()
        raise Refused(f"git {sub} failed: {said[0] if said else run.returncode}")
    head = where.git(["rev-parse", "--verify", "--quiet", "HEAD"]).out.decode().strip()
    found = capped(run.out.decode("utf-8", "replace").splitlines(), 2000, "lines", sub)
    found.ref = f"commit {head}" if head else "output " + content_digest(found.content)
    if run.flooded:
        found.note = "output cut at 1 MiB"
    return found


def _split(words: list[str], where: Confinement) -> tuple[list[str], list[str], list[str]]:
    """(options, revisions, paths) of the arguments; `Refused` for anything else."""
    options: list[str] = []
    revs: list[str] = []
    paths: list[str] = []
    i = 0
    after_dashes = False
    while i < len(words):
        word = words[i]
        i += 1
        if after_dashes:
            paths.append(_path(word, where))
        elif word == "--":
            after_dashes = True
        elif word.startswith("-"):
            taken = _option(word, words[i] if i < len(words) else None)
            i += taken - 1
            options += words[i - taken : i] if taken > 1 else [word]
        elif ":" in word:
            rev, _, path = word.partition(":")
            if not _REV.match(rev):
                raise Refused(f"`{rev}` is not a revision")
            _path(path, where)
            revs.append(word)
        elif _REV.match(word) and ".." not in word.replace("...", "..").split("/"):
            revs.append(word)
        else:
            paths.append(_path(word, where))
    return options, revs, paths


def _no_blobs(revs: list[str], where: Confinement) -> None:
    """Refuse a revision that names a file's content by its id (``git show 3b18e5``): the
    path of such content is never checked; ``REV:PATH`` is."""
    for rev in revs:
        if ":" in rev:
            continue
        for part in rev.replace("...", "..").split(".."):
            if not part:
                continue
            peeled = where.git(["cat-file", "-t", part + "^{}"])  # a tag: what it points to
            kind = peeled.out.decode("utf-8", "replace").strip()
            if kind == "blob":
                raise Refused(f"`{part}` names a file's content by its id; ask for REV:PATH")


def _option(word: str, following: str | None) -> int:
    """How many words the option `word` takes (1 or 2); `Refused` when it is not allowed."""
    if word in _FLAGS or _NUMBER_FLAG.match(word):
        return 1
    name, eq, value = word.partition("=")
    if name not in _VALUED and len(word) > 2 and word[:2] in _VALUED:
        name, eq, value = word[:2], "=", word[2:]
    pattern = _VALUED.get(name)
    if pattern is None:
        raise Refused(f"the git option `{name}` is not allowed (only read-only options are)")
    if eq:
        if not re.fullmatch(pattern, value):
            raise Refused(f"`{word}`: the value is not allowed")
        return 1
    if following is None or not re.fullmatch(pattern, following):
        raise Refused(f"`{name}` needs a value like {pattern!r}")
    return 2


def _path(rel: str, where: Confinement) -> str:
    why = where.problem(rel.rstrip("/")) if rel not in (".", "./") else None
    if why or rel.startswith(":"):
        raise Refused(f"path `{rel}`: {why or 'pathspec magic is not allowed'}")
    return rel
