"""Fulfilling one evidence request against the project: ``read``, ``grep``, ``list``, ``git``
and ``run``, each confined by `git.confine.Confinement`. A request that may not be fulfilled
raises `Refused`; nothing is read or run before every check has passed."""

from __future__ import annotations

import hashlib
import re
import shlex
import shutil
from dataclasses import dataclass

from ...errors import ProviderError
from ...git.confine import Confinement, Refused, refused_line
from ...providers.command import run_contained, split_command
from ...syntax.evidence import content_digest

_MAX_FILE_BYTES = 4 << 20
"""A file larger than this is refused (ask for a smaller file)."""
_GREP_RESULTS = 200
"""Lines a ``grep`` shows at most."""
_LIST_ENTRIES = 500
"""Entries a ``list`` shows at most."""


@dataclass(slots=True)
class Found:
    """What a request read: the content, what it was read at, and a note (a cap hit)."""

    content: str
    ref: str
    note: str = ""


@dataclass(slots=True)
class Commands:
    """The project's ``evidence.commands`` and whether the user trusts them."""

    commands: dict[str, str]
    trusted: bool
    timeout: float = 300.0


_RANGE = re.compile(r"^(.*?):(\d+)(?:-(\d+))?$")


def read(args: str, where: Confinement) -> Found:
    """``read PATH[:START-END]``: the file's lines (all, or START to END)."""
    m = _RANGE.match(args.strip())
    rel, start, end = (m.group(1), int(m.group(2)), m.group(3)) if m else (args.strip(), 1, None)
    path = where.resolve(rel)
    if not path.is_file():
        raise Refused(f"`{rel}` is not a regular file")
    size = path.stat().st_size
    if size > _MAX_FILE_BYTES:
        raise Refused(f"`{rel}` is {size} bytes, over the {_MAX_FILE_BYTES} byte limit")
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        raise Refused(f"`{rel}` is a binary file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"`{rel}` is not UTF-8 text (a binary file?)") from None
    ref = "blob " + hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    lines = text.splitlines()
    last = min(int(end) if end else len(lines), len(lines))
    if start < 1 or start > max(last, 1):
        raise Refused(f"`{rel}` has {len(lines)} lines; lines {start}-{end or ''} are not there")
    width = len(str(last))
    shown = [f"{n:>{width}}  {lines[n - 1]}" for n in range(start, last + 1)]
    note = f"lines {start}-{last} of {len(lines)}" if (start, last) != (1, len(lines)) else ""
    return Found("\n".join(shown), ref, note)


_IN = re.compile(r"^(.*?)\s+in\s+(\S+)$")


def grep(args: str, where: Confinement) -> Found:
    """``grep TEXT [in GLOB]``: lines holding TEXT, a fixed string (no regular expression,
    so no pattern can make it slow), in the readable files (those matching GLOB) outside the
    discussions folder. The files are listed first and sifted (`Confinement.sift`); only the
    allowed ones are searched, and the block names the refused ones (searching those would
    tell whether a secret holds the text)."""
    m = _IN.match(args.strip())
    text, glob = (m.group(1), m.group(2)) if m else (args.strip(), "")
    text = text.strip().strip("\"'") or text.strip()
    if not text:
        raise Refused("`grep` needs the text to look for")
    if glob:
        why = "pathspec magic is not allowed" if glob.startswith(":") else None
        why = why or where.problem(glob.replace("*", "x").replace("?", "x"))
        if why:
            raise Refused(f"glob `{glob}`: {why}")
    sifted = where.sift([n for n in where.listed(glob) if not _unsearched(n, where)])
    if where.in_git:
        hits = _git_grep(text, where, sifted.allowed)
    else:
        hits = _grep_files(text, where, sifted.allowed)
    return capped(hits, _GREP_RESULTS, "matching lines", f"grep {text!r}", sifted.lines())


def _git_grep(text: str, where: Confinement, paths: list[str]) -> list[str]:
    """``git grep`` of `text` in `paths` only (literal pathspecs, a batch at a time, so no
    path can widen to another), until more than `_GREP_RESULTS` lines are found."""
    hits: list[str] = []
    for start in range(0, len(paths), PATHS_PER_RUN):
        batch = paths[start : start + PATHS_PER_RUN]
        run = where.git(
            ["--literal-pathspecs", "grep", "-F", "-n", "-I", "--no-color", "--untracked"]
            + ["-e", text, "--", *batch],
            max_output=1 << 20,
        )
        # git grep reads a symbolic link as the path it holds, never what it leads to.
        hits += run.out.decode("utf-8", "replace").splitlines()
        if len(hits) > _GREP_RESULTS:
            break
    return hits


PATHS_PER_RUN = 1000
"""Paths given to one git command at most (the rest go to the next)."""


def _unsearched(path: str, where: Confinement) -> bool:
    return path.startswith(where.unsearched) if where.unsearched else False


def _grep_files(text: str, where: Confinement, files: list[str]) -> list[str]:
    hits: list[str] = []
    for rel in sorted(files):
        try:
            path = where.resolve(rel)  # a link out of the project is refused
            data = path.read_bytes() if path.is_file() else b""
        except (Refused, OSError):
            continue
        if len(data) > _MAX_FILE_BYTES or b"\0" in data[:8192]:
            continue
        for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if text in line:
                hits.append(f"{rel}:{n}:{line}")
                if len(hits) > _GREP_RESULTS:
                    return hits
    return hits


def listing(args: str, where: Confinement) -> Found:
    """``list DIR``: the files and folders directly in DIR, each sifted by the rule
    (`Confinement.sift`): a refused one (a secret, an excluded or ignored one) is named as
    refused."""
    rel = args.strip() or "."
    where.resolve(rel, folder=True)
    prefix = "" if rel.rstrip("/") in ("", ".") else rel.rstrip("/") + "/"
    entries: dict[str, bool] = {}  # name -> is a folder
    for name in [*where.listed(), *where.ignored_entries(prefix)]:
        if name.startswith(prefix):
            head, sep, _ = name[len(prefix) :].partition("/")
            entries[head] = entries.get(head, False) or bool(sep)
    sifted = where.sift([prefix + name for name in entries])
    refused = dict(sifted.refused)
    lines = []
    for name in sorted(entries):
        shown = name + ("/" if entries[name] else "")
        why = refused.get(prefix + name)
        lines.append(refused_line(shown, why) if why else shown)
    return capped(lines, _LIST_ENTRIES, "entries", f"list {rel}")


def capped(
    lines: list[str], limit: int, what: str, label: str, refused: list[str] | None = None
) -> Found:
    """`lines` (the first `limit`), after the lines naming refused paths (`refused`)."""
    note = f"first {limit} {what} of {len(lines)}+" if len(lines) > limit else ""
    content = "\n".join(lines[:limit]) if lines else f"(no {what})"
    if refused:
        content = "\n".join([*refused, content])
    return Found(content, "output " + content_digest(content), note)


def run(args: str, where: Confinement, commands: Commands) -> Found:
    """``run NAME``: the project's allow-listed command NAME, when the user trusts it."""
    name = args.strip()
    if name not in commands.commands:
        known = ", ".join(sorted(commands.commands)) or "none"
        raise Refused(f"`{name}` is not in evidence.commands (allowed: {known})")
    if not commands.trusted:
        raise Refused("evidence.commands is not trusted here; run `discussions trust` to allow it")
    argv = split_command(commands.commands[name])
    exe = shutil.which(argv[0]) if argv else None
    if exe is None:
        raise Refused(f"`{argv[0] if argv else name}` is not installed")
    try:
        done = run_contained(
            name,
            [exe, *argv[1:]],
            cwd=where.root,
            env=_run_env(),
            timeout=commands.timeout,
            max_output=1 << 20,
        )
    except ProviderError as exc:
        raise Refused(str(exc)) from None
    out = done.out.decode("utf-8", "replace")
    status = "timed out" if done.timed_out else f"exit status {done.returncode}"
    content = (
        f"$ {shlex.join(argv)}\n{out.rstrip()}\n"
        + (f"[stderr]\n{done.err}\n" if done.err else "")
        + f"[{status}]"
    )
    note = "output cut at 1 MiB" if done.flooded else ""
    return Found(content, "output " + content_digest(content), note)


def _run_env() -> dict[str, str]:
    import os

    return dict(os.environ)
