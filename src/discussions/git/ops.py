"""Everything that runs `git`: the merge driver, `init`, `resolve`, append-only checks, review.

The merge itself is `discussions.git.merge` (pure); this module reads and writes the files git hands
over, falls back to ``git merge-file`` (a normal three-way line merge) when a side edited text
that was already in the file, and sets a repository up so git calls the driver.

Git runs a merge driver from the clone's configuration, never from the repository, so the
driver is registered with an absolute command (this Python, ``-m discussions``): it keeps
working from a GUI git client with a minimal PATH. A clone whose ``.gitattributes`` names the
driver but whose configuration lacks it merges with git's default (a safe conflict);
`driver_warning` says so, and `resolve_conflict` redoes the merge from the index stages.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import DiscussionsError
from ..syntax.fences import fence_block
from ..syntax.parse import decode

if TYPE_CHECKING:
    import subprocess

    from .merge import MergeResult

# The merge machinery is imported by the functions that merge: `status` asks this module only
# whether the clone has the driver, and should not pay for it.

# subprocess and tempfile are imported where used: git runs the merge driver once per file.

DRIVER = "discussions"
DRIVER_NAME = "discussions append-only merge"
SUMMARY_DRIVER = "discussions-summary"
SUMMARY_DRIVER_NAME = "discussions summaries: keep ours (rebuild with `discussions summary`)"


def run_git(
    args: Sequence[str], cwd: Path | None = None, *, check: bool = True, stdin: bytes | None = None
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
    return Path(proc.stdout.decode().strip()).resolve()


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        raise DiscussionsError(f"{path} is outside the repository at {root}") from None


# --------------------------------------------------------------------------- the merge


def merge_versions(
    base: bytes, ours: bytes, theirs: bytes, *, marker_size: int = 7, cwd: Path | None = None
) -> tuple[MergeResult, bytes]:
    """Merge three versions of a discussion file; returns the decision and the bytes to write.

    Block-level merge first; where a side edited text of the base, a normal three-way line
    merge (``git merge-file``), accepted only if it brings no new parse warning."""
    from .merge import LINE_MERGE, merge_texts

    if not any(is_discussion_bytes(data[:4096]) for data in (base, ours, theirs)):
        # Another markdown file in the discussions folder: git's own line merge.
        return _line_merge(base, ours, theirs, marker_size, cwd, None)
    texts: list[str] = []
    for data in (base, ours, theirs):
        text, problems = decode(data)
        if problems:  # not UTF-8: only a line merge can be trusted with it
            return _line_merge(base, ours, theirs, marker_size, cwd, None)
        if data.startswith(b"\xef\xbb\xbf"):
            text = "\ufeff" + text
        texts.append(text)
    try:
        result = merge_texts(*texts, marker_size=marker_size)
    except Exception:  # noqa: BLE001 - a driver bug must not cost a merge: merge by lines
        return _line_merge(base, ours, theirs, marker_size, cwd, None)
    if result.status == LINE_MERGE:
        both = _edits_and_appends(texts, marker_size, cwd)
        if both is not None:
            return both
        return _line_merge(base, ours, theirs, marker_size, cwd, texts)
    return result, result.text.encode("utf-8")


def _edits_and_appends(
    texts: list[str], marker_size: int, cwd: Path | None
) -> tuple[MergeResult, bytes] | None:
    """A side edited the base and both appended (a typo fixed in the context or in the last
    comment while comments came in): merge each side's version of the base line by line and
    the appended blocks block by block. None when that does not apply or is not clean."""
    from .merge import CLEAN, check_line_merge, merge_texts, split_appended

    base, ours, theirs = texts
    split_o, split_t = split_appended(base, ours), split_appended(base, theirs)
    if split_o is None or split_t is None:
        return None
    (head_o, after_o), (head_t, after_t) = split_o, split_t
    heads, head_bytes = _line_merge(
        base.encode("utf-8", "surrogateescape"),
        head_o.encode("utf-8", "surrogateescape"),
        head_t.encode("utf-8", "surrogateescape"),
        marker_size,
        cwd,
        None,
    )
    head = head_bytes.decode("utf-8", "surrogateescape")
    if heads.status != CLEAN or not _ends_with_separator(head):
        return None
    tail = merge_texts(head, head + after_o, head + after_t, marker_size=marker_size)
    if tail.status != CLEAN:
        return None
    checked = check_line_merge(base, ours, theirs, tail.text, marker_size=marker_size)
    if checked.status != CLEAN:
        return None
    checked.reason = "a side changed text that was already in the file; merged line by line"
    checked.added_ours, checked.added_theirs, checked.shared = (
        tail.added_ours,
        tail.added_theirs,
        tail.shared,
    )
    return checked, tail.text.encode("utf-8", "surrogateescape")


def _ends_with_separator(text: str) -> bool:
    from .merge import split_blocks

    blocks, rest = split_blocks(text)
    return bool(blocks) and not rest


def _line_merge(
    base: bytes,
    ours: bytes,
    theirs: bytes,
    marker_size: int,
    cwd: Path | None,
    texts: list[str] | None,
) -> tuple[MergeResult, bytes]:
    import tempfile

    from .merge import CLEAN, CONFLICT, MergeResult, check_line_merge

    with tempfile.TemporaryDirectory(prefix="discussions-merge-") as tmp:
        paths = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            p = Path(tmp) / name
            p.write_bytes(data)
            paths.append(str(p))
        proc = run_git(
            [
                "merge-file",
                "-p",
                f"--marker-size={marker_size}",
                "-L",
                "ours",
                "-L",
                "base",
                "-L",
                "theirs",
                *paths,
            ],
            cwd,
            check=False,
        )
    if proc.returncode < 0 or proc.returncode > 127:
        raise DiscussionsError(
            "git merge-file failed: " + proc.stderr.decode("utf-8", "replace").strip()
        )
    reason = "a side changed text that was already in the file"
    if proc.returncode > 0:
        return MergeResult(CONFLICT, reason=f"{reason}, and the changes overlap"), proc.stdout
    if texts is None:
        return MergeResult(CLEAN, reason=reason), proc.stdout
    merged, _ = decode(proc.stdout)
    if proc.stdout.startswith(b"\xef\xbb\xbf"):
        merged = "\ufeff" + merged
    checked = check_line_merge(texts[0], texts[1], texts[2], merged, marker_size=marker_size)
    if checked.status == CLEAN:
        return MergeResult(CLEAN, merged, reason), proc.stdout
    return checked, checked.text.encode("utf-8")


def merge_file(base: Path, ours: Path, theirs: Path, *, marker_size: int = 7) -> MergeResult:
    """The merge driver: merge `base`/`ours`/`theirs` and write the result over `ours`
    (git's ``%O %A %B`` contract)."""
    data = [p.read_bytes() for p in (base, ours, theirs)]
    result, out = merge_versions(*data, marker_size=marker_size, cwd=ours.parent)
    if out != data[1]:
        ours.write_bytes(out)
    return result


def driver_main(argv: Sequence[str]) -> int:
    """``merge-file [--marker-size N] BASE OURS THEIRS [PATH]`` without the command-line
    framework: git starts the driver once per conflicted file, so `python -m discussions` can
    take this path before importing click. Returns the exit status (0 clean, 1 conflict,
    2 usage error)."""
    args = list(argv)
    marker_size = 7
    if len(args) >= 2 and args[0] == "--marker-size":
        marker_size = int(args[1]) if args[1].isdigit() and int(args[1]) > 0 else 7
        args = args[2:]
    elif args and args[0].startswith("--marker-size="):
        value = args[0].partition("=")[2]
        marker_size = int(value) if value.isdigit() and int(value) > 0 else 7
        args = args[1:]
    if len(args) not in (3, 4) or any(a.startswith("-") for a in args[:3]):
        return -1  # not the driver's shape: let the full command line parse and explain
    base, ours, theirs = (Path(a) for a in args[:3])
    label = args[3] if len(args) == 4 else str(ours)
    try:
        result = merge_file(base, ours, theirs, marker_size=marker_size)
    except (OSError, DiscussionsError) as exc:
        sys.stderr.write(f"discussions: cannot merge {label}: {exc}\n")
        return 2
    if not result.clean:
        sys.stderr.write(f"discussions: conflict in {label}: {result.reason}\n")
        return 1
    return 0


# --------------------------------------------------------------------------- resolve


@dataclass(slots=True)
class Resolved:
    """One file `resolve_conflict` repaired."""

    path: Path
    result: MergeResult


def index_stages(path: Path) -> tuple[bytes, bytes, bytes]:
    """The base, ours and theirs versions of a conflicted file from git's index
    (stages 1, 2, 3; a missing base, when both sides created the file, is empty)."""
    root = repo_root(path.parent)
    rel = _relative(path, root)
    listing = run_git(["ls-files", "-u", "-z", "--", rel], root).stdout
    stages = {
        entry.split(b"\t", 1)[0].split()[2].decode()
        for entry in listing.split(b"\0")
        if entry.strip()
    }
    if not {"2", "3"} <= stages:
        raise DiscussionsError(
            f"{path} has no merge conflict to resolve (git has no 'ours' and 'theirs' "
            "versions of it); nothing changed"
        )
    versions = []
    for stage in ("1", "2", "3"):
        if stage not in stages:
            versions.append(b"")
            continue
        versions.append(run_git(["show", f":{stage}:{rel}"], root).stdout)
    return versions[0], versions[1], versions[2]


def resolve_conflict(path: Path) -> Resolved:
    """Redo the block-level merge of a conflicted discussion file from the index stages and
    write the clean result; refuse (file unchanged) when it cannot be merged safely."""
    from .merge import CLEAN

    base, ours, theirs = index_stages(path)
    result, out = merge_versions(base, ours, theirs, cwd=path.parent)
    if result.status != CLEAN:
        raise DiscussionsError(
            f"{path} cannot be merged safely: {result.reason}; file left as it was — "
            "resolve it by hand"
        )
    path.write_bytes(out)
    return Resolved(path, result)


# --------------------------------------------------------------------------- init


@dataclass(slots=True)
class InitStep:
    """One thing `init_project` looked at."""

    what: str
    """What it is about (a file, a folder, a git setting)."""
    action: str
    """``created``, ``updated``, ``unchanged`` or ``skipped``."""
    detail: str = ""


@dataclass(slots=True)
class InitReport:
    root: Path
    steps: list[InitStep] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(s.action in ("created", "updated") for s in self.steps)

    def to_dict(self) -> dict[str, object]:
        return {
            "root": str(self.root),
            "changed": self.changed,
            "steps": [{"what": s.what, "action": s.action, "detail": s.detail} for s in self.steps],
        }


DEFAULT_CONFIG = """\
# discussions.yaml — project settings for `discussions` (every key is optional;
# the values shown commented out are the defaults).

# Who takes part when a template names nobody:
# default_participants: [architect, security, pragmatist]
# default_template: feature

consensus:
  # Share of READY votes needed to reach consensus.
  threshold_ready: 0.67
  # Share of REJECT votes that blocks consensus.
  threshold_reject: 0.01
  # Whether at least one human must vote READY.
  human_required: false

providers:
  # Provider to try first (see `discussions providers list`); null: each persona's hint.
  default: null
  # Providers to try, in order, when the first one fails.
  fallback: []
  # timeout: 300

output:
  # Where discussion files are created and looked up.
  directory: ./discussions
  # summary_files: false
"""


def driver_command() -> str:
    """The command git runs for the merge driver: this installation's Python, by absolute path,
    so it works from any git client whatever its PATH. ``-P``: git runs the driver from the
    work tree's root, and ``python -m`` would otherwise put that folder first on ``sys.path``,
    so a repository shipping ``discussions/__init__.py`` would get its own code run."""
    return (
        f"{shlex.quote(sys.executable)} -P -m discussions merge-file --marker-size %L %O %A %B %P"
    )


def attribute_lines(folder: str) -> list[str]:
    """The ``.gitattributes`` lines routing discussion files in `folder` (relative to the
    repository root, posix) to the driver; generated summaries keep our side."""
    prefix = "" if folder in ("", ".") else folder.rstrip("/") + "/"
    pattern = f"{prefix}*.md".replace(" ", "[[:space:]]")
    summary = f"{prefix}*.sum.md".replace(" ", "[[:space:]]")
    return [
        f"{pattern} merge={DRIVER}",
        f"{summary} merge={SUMMARY_DRIVER} linguist-generated=true",
    ]


def init_project(start: Path, *, use_git: bool = True) -> InitReport:
    """Set a project up for discussions (idempotent): ``discussions.yaml`` with commented
    defaults, the discussions folder, and with git, ``.gitattributes`` and the merge driver in
    this clone's configuration."""
    from ..settings.config import PROJECT_FILE, Config, find_project_root

    start = start.resolve()
    git_root = repo_root(start) if use_git else None
    root = find_project_root(start) or start
    report = InitReport(root)

    config_path = root / PROJECT_FILE
    if config_path.exists():
        report.steps.append(InitStep(PROJECT_FILE, "unchanged", "already there; left as it is"))
    else:
        config_path.write_text(DEFAULT_CONFIG, encoding="utf-8")
        report.steps.append(InitStep(PROJECT_FILE, "created", "defaults, commented"))

    folder = Config.load(root).output_directory.resolve()
    shown = _shown(folder, root)
    if folder.is_dir():
        report.steps.append(InitStep(shown + "/", "unchanged", "folder exists"))
    else:
        folder.mkdir(parents=True)
        report.steps.append(InitStep(shown + "/", "created", "discussions folder"))

    if git_root is None:
        report.steps.append(InitStep(".gitattributes", "skipped", "--no-git"))
        report.steps.append(InitStep("merge driver", "skipped", "--no-git"))
        return report
    try:
        rel_folder = folder.relative_to(git_root).as_posix()
    except ValueError:
        raise DiscussionsError(
            f"the discussions folder {folder} is outside the repository at {git_root}"
        ) from None
    report.steps.append(_ensure_attributes(git_root, rel_folder))
    for key, value in (
        (f"merge.{DRIVER}.name", DRIVER_NAME),
        (f"merge.{DRIVER}.driver", driver_command()),
        (f"merge.{SUMMARY_DRIVER}.name", SUMMARY_DRIVER_NAME),
        (f"merge.{SUMMARY_DRIVER}.driver", "true"),
    ):
        report.steps.append(_ensure_config(git_root, key, value))
    return report


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        return str(path)


def _ensure_attributes(git_root: Path, rel_folder: str) -> InitStep:
    """Add our lines to ``.gitattributes``; a line for the same pattern that routes it to
    another merge (``merge=union`` damages discussions) has its ``merge`` replaced."""
    path = git_root / ".gitattributes"
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = existing.splitlines()
    changes: list[str] = []
    for wanted in attribute_lines(rel_folder):
        pattern, *attrs = wanted.split()
        same = [i for i, line in enumerate(lines) if line.split()[:1] == [pattern]]
        if same and _has_attrs(lines[same[-1]], attrs):
            continue
        if same:
            i = same[-1]  # the last line for a pattern is the one git uses
            kept = [a for a in lines[i].split()[1:] if a.lstrip("-!").split("=")[0] != "merge"]
            merged = [pattern, *kept, *(a for a in attrs if a not in kept)]
            changes.append(f"{lines[i].strip()} -> {' '.join(merged)}")
            lines[i] = " ".join(merged)
        else:
            if not changes and not any("discussions" in ln and ln.startswith("#") for ln in lines):
                lines.append("# discussions: merge appended comments block by block")
            lines.append(wanted)
            changes.append(wanted)
    if not changes:
        return InitStep(".gitattributes", "unchanged", "routes discussion files to the driver")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return InitStep(".gitattributes", "updated" if existing else "created", "; ".join(changes))


def _has_attrs(line: str, attrs: list[str]) -> bool:
    """Whether a ``.gitattributes`` line sets `attrs` and no other merge."""
    tokens = line.split()[1:]
    merges = [t for t in tokens if t.lstrip("-!").split("=")[0] == "merge"]
    return set(attrs) <= set(tokens) and len(merges) == 1


def _ensure_config(git_root: Path, key: str, value: str) -> InitStep:
    proc = run_git(["config", "--local", "--get", key], git_root, check=False)
    current = proc.stdout.decode("utf-8", "replace").rstrip("\n") if proc.returncode == 0 else None
    if current == value:
        return InitStep(f"git config {key}", "unchanged", value)
    run_git(["config", "--local", key, value], git_root)
    return InitStep(f"git config {key}", "created" if current is None else "updated", value)


# --------------------------------------------------------------------------- driver warning


def driver_warning(path: Path) -> str | None:
    """A one-line warning when `path`'s ``merge`` attribute names the discussions driver but
    this clone has no such driver configured (git would then merge it line by line and
    conflict). Runs git only when the repository's root ``.gitattributes`` mentions
    ``discussions``, so it costs nothing elsewhere."""
    root = find_git_root(path)
    if root is None:
        return None
    attributes = root / ".gitattributes"
    try:
        if b"discussions" not in attributes.read_bytes():
            return None
    except OSError:
        return None
    try:
        rel = path.resolve().relative_to(root).as_posix()
    except ValueError:
        return None
    proc = run_git(["check-attr", "merge", "--", rel], root, check=False)
    if proc.returncode != 0:
        return None
    value = proc.stdout.decode("utf-8", "replace").rsplit(": ", 1)[-1].strip()
    if value != DRIVER:
        return None
    cfg = run_git(["config", "--get", f"merge.{DRIVER}.driver"], root, check=False)
    command = cfg.stdout.decode("utf-8", "replace").strip()
    if cfg.returncode != 0 or not command:
        return "this clone has no merge driver for discussions: run `discussions init`"
    try:
        program = shlex.split(command)[0]
    except (ValueError, IndexError):
        program = ""
    if os.path.isabs(program) and not os.path.exists(program):
        return (
            f"the discussions merge driver points at {program}, which no longer exists: "
            "run `discussions init`"
        )
    if " -m discussions " in command and " -P " not in command:
        return (
            "the discussions merge driver runs without -P, so a repository's own "
            "`discussions` folder could be imported in its place: run `discussions init`"
        )
    return None


# --------------------------------------------------------------------------- append-only


@dataclass(slots=True)
class AppendViolation:
    """A discussion file whose bytes from `rev` were changed, not only appended to."""

    path: Path
    line: int
    """First line (1-based, in the current file) that differs from the file at `rev`."""
    message: str


def is_discussion_bytes(data: bytes) -> bool:
    from ..syntax.parse import has_discussion_header

    return has_discussion_header(data.decode("utf-8", errors="replace"))


def changed_discussion_files(rev: str, start: Path) -> list[Path]:
    """Discussion files (``<!-- DISCUSSION -->`` header) in the work tree that differ from
    `rev`, committed or not, and new ones git does not track yet."""
    root = repo_root(start)
    _verify_rev(rev, root)
    out = run_git(["diff", "--name-only", "-z", "--no-renames", rev, "--"], root).stdout
    untracked = run_git(["ls-files", "-z", "--others", "--exclude-standard"], root).stdout
    found: list[Path] = []
    for raw in sorted(set(out.split(b"\0")) | set(untracked.split(b"\0"))):
        if not raw:
            continue
        path = root / raw.decode("utf-8", "surrogateescape")
        if path.suffix != ".md" or not path.is_file():
            continue
        with path.open("rb") as f:
            head = f.read(256)
        if is_discussion_bytes(head):
            found.append(path)
    return found


def deleted_discussion_files(rev: str, start: Path) -> list[Path]:
    """Discussion files that existed at `rev` and are gone from the work tree (deleted,
    committed or not, or renamed: a discussion's name is part of what it says)."""
    root = repo_root(start)
    _verify_rev(rev, root)
    out = run_git(
        ["diff", "--name-only", "-z", "--no-renames", "--diff-filter=D", rev, "--"], root
    ).stdout
    found: list[Path] = []
    for raw in sorted(set(out.split(b"\0"))):
        if not raw or not raw.endswith(b".md"):
            continue
        rel = raw.decode("utf-8", "surrogateescape")
        head = run_git(["cat-file", "blob", f"{rev}:{rel}"], root, check=False).stdout[:256]
        if is_discussion_bytes(head) and not (root / rel).exists():
            found.append(root / rel)
    return found


def _verify_rev(rev: str, root: Path) -> None:
    proc = run_git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], root, check=False)
    if proc.returncode != 0:
        raise DiscussionsError(f"unknown revision '{rev}' (try a branch, tag or commit)")


def append_only_violation(path: Path, rev: str) -> AppendViolation | None:
    """None when `path` holds everything it held at `rev`, only added to as appends and the
    merge driver add (new comments, possibly ordered among others by a merge), or did not
    exist at `rev`. A file deleted since `rev` is a violation too."""
    from .merge import appended_only

    root = repo_root(path.parent)
    rel = _relative(path, root)
    _verify_rev(rev, root)
    proc = run_git(["cat-file", "blob", f"{rev}:{rel}"], root, check=False)
    if proc.returncode != 0:
        return None  # created after rev
    old = proc.stdout
    try:
        new = path.read_bytes()
    except FileNotFoundError:
        return AppendViolation(
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
    return AppendViolation(path, line, messages[found.kind])


@dataclass(slots=True)
class AppendCheck:
    """What `check_appends` found: the files it looked at and the violations."""

    files: list[Path] = field(default_factory=list)
    """Discussion files present in the work tree that it checked."""
    violations: list[AppendViolation] = field(default_factory=list)


def check_appends(rev: str, start: Path, paths: Sequence[Path] | None = None) -> AppendCheck:
    """The append-only check since `rev` (for `check --since`, hooks, CI): each of `paths`, or
    without them every discussion file changed since `rev` and every one deleted since.
    Raises `DiscussionsError` for an unknown revision or a folder outside a repository;
    ``HEAD`` before the first commit (a hook's first run) has nothing to compare with."""
    report = AppendCheck()
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
        _verify_rev(rev, root)
        report.files = [p for p in paths if p.exists()]
        targets = list(paths)
    for path in targets:
        try:
            violation = append_only_violation(path, rev)
        except DiscussionsError as exc:  # a file outside the repository
            violation = AppendViolation(path, 0, str(exc))
        if violation is not None:
            report.violations.append(violation)
    return report


# --------------------------------------------------------------------------- review


@dataclass(slots=True)
class FileChange:
    path: str
    added: int | None
    """Lines added (None for a binary file)."""
    deleted: int | None


@dataclass(slots=True)
class Changes:
    """What `review` shows: the changes between two states of the repository."""

    description: str
    """What is compared, in words (``working tree against HEAD``, ``main..feature``)."""
    branch: str
    commits: list[str]
    """``<short hash> <subject>`` of each commit in the range, oldest first."""
    files: list[FileChange]
    diffs: list[tuple[str, str]]
    """(path, that file's part of the diff), in diff order."""


def collect_changes(start: Path, rev_range: str | None = None, *, staged: bool = False) -> Changes:
    """The changes to review: the working tree against HEAD (default), the index against HEAD
    (`staged`), a range ``A..B``, or the working tree against a revision."""
    root = repo_root(start)
    branch = git_text(["rev-parse", "--abbrev-ref", "HEAD"], root).strip()
    if staged and rev_range:
        raise DiscussionsError("give a revision range or --staged, not both")
    commits: list[str] = []
    if staged:
        spec = ["--cached"]
        description = "staged changes against HEAD"
    elif rev_range:
        spec = [rev_range]
        log_range = rev_range if ".." in rev_range else f"{rev_range}..HEAD"
        for rev in re.split(r"\.{2,3}", rev_range):
            if rev:
                _verify_rev(rev, root)
        log = git_text(["log", "--reverse", "--format=%h %s", log_range, "--"], root)
        commits = [line for line in log.splitlines() if line.strip()]
        description = rev_range if ".." in rev_range else f"working tree against {rev_range}"
    else:
        spec = ["HEAD"]
        description = "working tree against HEAD"
    base = ["-c", "core.quotepath=off", "diff", "--no-color", "--no-ext-diff", *spec]
    numstat = git_text([*base[:3], "--numstat", "-z", *base[3:], "--"], root)
    diff = git_text([*base, "--"], root)
    return Changes(description, branch, commits, _numstat(numstat), _split_diff(diff))


def _numstat(out: str) -> list[FileChange]:
    files: list[FileChange] = []
    parts = out.split("\0")
    i = 0
    while i < len(parts):
        entry = parts[i]
        i += 1
        if not entry.strip():
            continue
        added, deleted, path = (entry.split("\t", 2) + ["", ""])[:3]
        if not path:  # a rename: the two paths follow
            old, new = parts[i], parts[i + 1]
            i += 2
            path = f"{old} -> {new}"
        files.append(
            FileChange(
                path,
                int(added) if added.isdigit() else None,
                int(deleted) if deleted.isdigit() else None,
            )
        )
    return files


def _split_diff(diff: str) -> list[tuple[str, str]]:
    pieces: list[tuple[str, str]] = []
    for chunk in re.split(r"(?m)^(?=diff --git )", diff):
        if not chunk.strip():
            continue
        first = chunk.split("\n", 1)[0]
        m = re.match(r"diff --git a/(.*) b/(.*)$", first)
        pieces.append((m.group(2) if m else first, chunk))
    return pieces


def render_review_context(changes: Changes, budget: int) -> tuple[str, list[str]]:
    """The markdown `review` puts in the discussion: what is compared, the commits, a table of
    changed files, and the diff in a fence it cannot close, within `budget` characters of
    diff. Returns the markdown and the files whose diff was left out."""
    lines = [f"**Branch:** `{changes.branch}` — {changes.description}", ""]
    if changes.commits:
        lines += ["**Commits:**", ""]
        lines += [f"- {_md_cell(c)}" for c in changes.commits]
        lines.append("")
    lines += ["| File | + | - |", "| --- | ---: | ---: |"]
    for f in changes.files:
        added = "bin" if f.added is None else str(f.added)
        deleted = "bin" if f.deleted is None else str(f.deleted)
        lines.append(f"| `{_md_cell(f.path)}` | {added} | {deleted} |")
    total_add = sum(f.added or 0 for f in changes.files)
    total_del = sum(f.deleted or 0 for f in changes.files)
    lines += ["", f"{len(changes.files)} file(s) changed, +{total_add} -{total_del}.", ""]
    kept: list[str] = []
    omitted: list[str] = []
    used = 0
    for path, chunk in changes.diffs:
        if used + len(chunk) <= budget:
            kept.append(chunk)
            used += len(chunk)
        else:
            omitted.append(path)
    if kept:
        lines.append(fence_block("".join(kept), "diff").rstrip("\n"))
    if omitted:
        lines += [
            "",
            f"*Diff left out to stay within {budget} characters: "
            + ", ".join(f"`{_md_cell(p)}`" for p in omitted)
            + ".*",
        ]
    return "\n".join(lines), omitted


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'").replace("\n", " ")
