"""Reading the repository for evidence, confined: which paths may be read, and git run so that
it runs nothing the repository chose.

* The rule for every path an answer shows (`Confinement.sift`; ``read`` adds the link checks
  of `Confinement.resolve`): a path is relative, written from the project's top (the git work
  tree, or the project folder outside git) without ``./`` or empty parts, has no ``..``, is not
  under ``.git``, is not ignored by git, and does not match the secret patterns
  (`_SECRET_PATTERNS`, plus ``evidence.exclude``) in any of its parts; ``read`` also refuses a
  path that resolves (symbolic links followed) to a place outside the project or to such a
  path. Answers that show many files ask git for their paths first, sift them, and ask for
  the content of the allowed ones only, naming each refused one (`Sifted.lines`).
* git runs with the environment of `_safe_git_env` (no system or global configuration, no
  pager, no prompt, no lazy fetch) and the ``-c`` options of `Confinement.git_options`: no
  fsmonitor, no hooks, no pager, no external diff, no signature program, a submodule shown
  as its commits only (never the files inside it, which no rule sifted), and every filter
  driver the repository configures emptied; the commands add ``--no-ext-diff`` and
  ``--no-textconv``. It runs through `providers.command.run_contained` (timeout, output cap,
  process group).
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..providers.command import ContainedRun, run_contained

_SECRET_PATTERNS = (
    ".env*",
    "*.pem",
    "*.key",
    "id_*",
    "*secret*",
    ".netrc",
    "*.p12",
    "*.pfx",
)
"""File and folder names never read, compared without regard to case."""

_GIT_TIMEOUT = 20.0
"""Seconds a git command may take."""


class Refused(Exception):
    """A request that may not be fulfilled; the message says why, for the record."""


@dataclass(slots=True)
class Sifted:
    """Paths an answer would show, split by the rule: those it may show (in the order given)
    and those it may not, with the reason."""

    allowed: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line naming each refused path, for the block: never silently dropped."""
        return [refused_line(path, why) for path, why in self.refused]

    def part(self, paths: list[str]) -> Sifted:
        """The verdicts on `paths` (each sifted with these): a path not among them is
        refused."""
        allowed, why = set(self.allowed), dict(self.refused)
        out = Sifted()
        for path in dict.fromkeys(paths):
            if path in allowed:
                out.allowed.append(path)
            else:
                out.refused.append((path, why.get(path, "not checked")))
        return out

    def pathspecs(self, allowed: list[str] | None = None) -> list[str]:
        """git pathspecs for the allowed paths (or those of `allowed`) and nothing else:
        each literal (no wildcard widens it), and excluded, every refused path inside one of
        them (a path allowed as a file on one side of a diff is a folder holding a refused
        one on the other); the other refused paths no pathspec reaches, and all of them
        would overflow the command line (a vendored folder once committed, now ignored)."""
        shown = self.allowed if allowed is None else allowed
        folders = set(shown)
        inside = [p for p, _ in self.refused if not folders.isdisjoint(_folders_of(p))]
        return [f":(literal){p}" for p in shown] + [f":(exclude,literal){p}" for p in inside]


def _folders_of(path: str) -> list[str]:
    """The folders `path` is in (``a/b/c`` -> ``a/b``, ``a``)."""
    return [str(parent) for parent in PurePosixPath(path).parents][:-1]


def refused_line(path: str, why: str) -> str:
    """How a block names a path it may not show."""
    return f"refused {path}: {why}"


def without_git_vars() -> dict[str, str]:
    """Our environment without its ``GIT_*`` variables (set when we run from a git hook, they
    would point a command's git at the user's repository, index or work tree)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def _safe_git_env() -> dict[str, str]:
    """The environment git runs in: ours without any ``GIT_*`` variable, no system or global
    configuration, no pager, no prompt, no optional locks, no replace objects."""
    env = without_git_vars()
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_ATTR_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_OPTIONAL_LOCKS="0",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_NO_LAZY_FETCH="1",
        LC_ALL="C",
    )
    return env


_FIXED_OPTIONS = (
    "core.fsmonitor=false",
    "core.hooksPath=" + os.devnull,
    "core.pager=cat",
    "core.untrackedCache=false",
    "diff.external=",
    "diff.submodule=short",
    "log.showSignature=false",
    "gpg.program=false",
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
    "protocol.allow=never",
    "log.mailmap=false",
    "mailmap.file=",
    "mailmap.blob=",
    "blame.ignoreRevsFile=",
    "core.sshCommand=false",
)


@dataclass(slots=True)
class Confinement:
    """What may be read in one project, worked out once per fulfilment."""

    root: Path
    """The project's top folder (resolved)."""
    in_git: bool
    """Whether `root` is a git work tree (else reads are confined to the folder)."""
    exclude: tuple[str, ...] = ()
    """``evidence.exclude`` globs (matched against the path and each of its names)."""
    unsearched: tuple[str, ...] = ()
    """Folders (relative, ending in ``/``) that ``grep`` leaves out: the discussions, which
    would otherwise find the evidence itself."""
    _files: set[str] | None = None
    _listed: list[str] | None = None
    _options: list[str] | None = None
    _dirs: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, start: Path, exclude: tuple[str, ...] = ()) -> Confinement:
        """The confinement of the project holding `start`: its git work tree, else `start`."""
        here = start.resolve()
        for folder in (here, *here.parents):
            if (folder / ".git").exists():
                return cls(folder, True, exclude)
        return cls(here, False, exclude)

    @classmethod
    def of_discussion(cls, file: Path, project: Path, exclude: tuple[str, ...] = ()) -> Confinement:
        """What a discussion's `file` may be read against: the git work tree holding it, else
        the `project` folder (a discussion sits in a subfolder, and its paths are written from
        the project's top)."""
        where = cls.of(file.parent, exclude)
        return where if where.in_git else cls.of(project, exclude)

    # -- git ------------------------------------------------------------------------------

    def git_options(self) -> list[str]:
        """``-c`` options for every git command: `_FIXED_OPTIONS`, and every filter driver the
        repository's configuration names emptied (so no clean, smudge or process runs)."""
        if self._options is None:
            opts = [o for option in _FIXED_OPTIONS for o in ("-c", option)]
            found = self._raw_git(["config", "--name-only", "--get-regexp", r"^filter\."])
            names = {
                line.rsplit(".", 1)[0]
                for line in found.out.decode("utf-8", "replace").splitlines()
                if line.count(".") >= 2
            }
            for name in sorted(names):
                opts += ["-c", f"{name}.clean=", "-c", f"{name}.smudge=", "-c", f"{name}.process="]
                opts += ["-c", f"{name}.required=false"]
            self._options = opts
        return self._options

    def git(
        self, args: list[str], max_output: int = 4 << 20, timeout: float = _GIT_TIMEOUT
    ) -> ContainedRun:
        """Run ``git ARGS`` confined (see the module docstring)."""
        return self._raw_git([*self.git_options(), "--no-pager", *args], max_output, timeout)

    def _raw_git(
        self,
        args: list[str],
        max_output: int = 4 << 20,
        timeout: float = _GIT_TIMEOUT,
        stdin: bytes = b"",
    ) -> ContainedRun:
        base = ["git", "-c", "core.fsmonitor=false", "-c", "core.pager=cat"]
        base += ["-c", "core.untrackedCache=false", "-c", "core.hooksPath=" + os.devnull]
        return run_contained(
            "git",
            [*base, *args],
            cwd=self.root,
            env=_safe_git_env(),
            timeout=timeout,
            max_output=max_output,
            stdin=stdin,
        )

    # -- paths ----------------------------------------------------------------------------

    def listed(self, pathspec: str = "") -> list[str]:
        """Every file git shows (tracked, and untracked files it does not ignore), secrets
        included, or every file under `root` outside git; with `pathspec` (a git glob), those
        it matches. What `files` and the answers that show many files start from."""
        if not self.in_git:
            names = _walk(self.root)
            return [n for n in names if not pathspec or PurePosixPath(n).match(pathspec)]
        if not pathspec and self._listed is not None:
            return self._listed
        # ls-files runs no filter or diff driver: the fixed options of `_raw_git` do.
        run = self._raw_git(
            ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--"]
            + ([f":(glob){pathspec}"] if pathspec else [])
        )
        names = list(dict.fromkeys(n for n in run.out.decode("utf-8", "replace").split("\0") if n))
        if not pathspec:
            self._listed = names
        return names

    def files(self) -> set[str]:
        """Every readable file (posix paths relative to `root`): tracked and untracked files
        git does not ignore, or every file under `root` outside git; secrets left out."""
        if self._files is None:
            self._files = {n for n in self.listed() if self.problem(n) is None}
            self._dirs = {str(p) for n in self.listed() for p in PurePosixPath(n).parents}
        return self._files

    def dirs(self) -> set[str]:
        """The folders holding a file git shows (`listed`), readable or not."""
        self.files()
        return self._dirs

    def ignored(self, paths: list[str]) -> set[str]:
        """Those of `paths` git ignores (for a path no longer in the work tree too: git matches
        the ignore rules against the path's words). Nothing outside git."""
        if not self.in_git or not paths:
            return set()
        # check-ignore reads each line as a path (it takes no pathspec magic)
        run = self._raw_git(
            ["check-ignore", "-z", "--stdin"], stdin="\0".join(paths).encode() + b"\0"
        )
        if run.returncode not in (0, 1):  # git could not tell: every path is refused
            return set(paths)
        return set(run.out.decode("utf-8", "replace").split("\0")) - {""}

    def ignored_entries(self, folder: str) -> list[str]:
        """The files and folders (a folder ending in ``/``) git ignores in `folder`."""
        if not self.in_git:
            return []
        ask = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]
        run = self._raw_git(["--literal-pathspecs", *ask, "--", folder or "."])
        return [n for n in run.out.decode("utf-8", "replace").split("\0") if n]

    def sift(self, paths: list[str]) -> Sifted:
        """Each of `paths` (as git printed them), allowed or refused: THE rule for every path
        an answer shows, the one ``read`` applies. Its words (`problem`), then git: a path git
        shows (`files`) is allowed; any other (a folder, a path only in the history) is
        refused when git ignores it."""
        verdict: dict[str, str | None] = {}
        files = self.files()
        for path in paths:
            if path not in verdict:
                verdict[path] = self.problem(path)
        unknown = [p for p, why in verdict.items() if why is None and p not in files]
        ignored = self.ignored(unknown)
        for path in unknown:
            if path in ignored:
                verdict[path] = f"`{path}` is ignored by git"
        out = Sifted()
        for path, why in verdict.items():
            if why is None:
                out.allowed.append(path)
            else:
                out.refused.append((path, why))
        return out

    def problem(self, rel: str) -> str | None:
        """Why the relative path `rel` may never be read (its words alone), else None."""
        if not rel or "\0" in rel:
            return "an empty path"
        if rel.startswith(("/", "\\", "~")) or (len(rel) > 1 and rel[1] == ":"):
            return "only paths relative to the project are read"
        if "\\" in rel:
            return "write paths with `/`"
        if any(part in ("", ".") for part in rel.removesuffix("/").split("/")):
            # git reads `./x` and `x//y` as `x` and `x/y`: checked as written, they would
            # pass a pattern (``private/*``) the path git reads does not
            return "write the path from the project's top, without `./` or empty parts"
        parts = PurePosixPath(rel).parts
        if ".." in parts:
            return "`..` is not allowed: only files inside the project are read"
        if ".git" in parts:
            return "nothing under .git is read"
        for name in parts:
            low = name.lower()
            for pattern in _SECRET_PATTERNS:
                if fnmatch.fnmatchcase(low, pattern):
                    return f"`{name}` looks like a secret ({pattern}); secrets are never read"
            for pattern in self.exclude:
                if fnmatch.fnmatchcase(name, pattern):
                    return f"`{name}` is excluded by evidence.exclude ({pattern})"
        for pattern in self.exclude:
            if fnmatch.fnmatchcase(rel, pattern):
                return f"`{rel}` is excluded by evidence.exclude ({pattern})"
        return None

    def resolve(self, rel: str, *, folder: bool = False) -> Path:
        """The file (or with `folder`, the folder) `rel` names, or `Refused` saying why not."""
        rel = rel.strip().rstrip("/") if folder else rel.strip()
        if folder and rel in ("", "."):
            return self.root
        sifted = self.sift([rel])  # the rule of every path an answer shows
        if sifted.refused:
            raise Refused(sifted.refused[0][1])
        path = self.root / rel
        real = path.resolve()
        if real != self.root and self.root not in real.parents:
            raise Refused(f"`{rel}` leads outside the project (a symbolic link)")
        real_rel = real.relative_to(self.root).as_posix() if real != self.root else "."
        if real_rel != "." and self.problem(real_rel):
            raise Refused(f"`{rel}` leads to `{real_rel}`: {self.problem(real_rel)}")
        known = self.dirs() if folder else self.files()
        if real_rel not in known and (folder or rel not in known):
            kind = "folder" if folder else "file"
            if not path.exists():
                raise Refused(f"no {kind} `{rel}` in the project")
            raise Refused(f"`{rel}` is ignored by git (or not a readable {kind})")
        if real_rel != "." and real_rel not in known:
            raise Refused(f"`{rel}` leads to `{real_rel}`, which git ignores")
        return real


def _walk(root: Path) -> list[str]:
    """Every file under `root` (outside git), not following links to folders, without .git."""
    found: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        base = Path(folder).relative_to(root)
        found += [(base / n).as_posix() for n in names]
        if len(found) > 100_000:
            break
    return found


COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
"""A full commit id (SHA-1 or SHA-256)."""


def git_says(root: Path, args: list[str]) -> bool:
    """Whether ``git ARGS`` (a question: it changes nothing) exits 0, confined as every git
    command of an apply is."""
    return Confinement(root, True).git(args).returncode == 0


def has_commit(root: Path, commit: str | None) -> bool:
    """Whether `commit` (a full id) is a commit of the repository at `root` (the branch of
    an apply made in another clone is not)."""
    return (
        bool(commit)
        and COMMIT_ID.fullmatch(commit or "") is not None
        and git_says(root, ["cat-file", "-e", f"{commit}^{{commit}}"])
    )
