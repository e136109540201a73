"""The one check of discussion files: what `discussions check` reports, as a library call the
CLI, the MCP server, the web view and a pre-commit hook can all make.

A problem is a parse warning, a file that is not a discussion, an append lost or cut short
(the journal), a settings or persona file that cannot be used, a participant whose model's
context window cannot take even its smallest prompt, and with a revision, text that
existed at that revision and was changed or removed (the append-only check of `git.appends`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DiscussionsError
from ..model.discussion import Discussion
from ..model.storage import is_derived, lost_appends, require_discussion
from ..settings.workspace import Workspace, display_path, resolve_file


@dataclass(slots=True, frozen=True)
class Problem:
    """One thing `check` reports, as ``FILE:LINE: message``."""

    file: str
    """The file as the user named it (or as the repository lists it)."""
    line: int
    """1-based line, 0 when the problem is the file as a whole."""
    message: str

    def to_dict(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "message": self.message}


@dataclass(slots=True)
class CheckReport:
    """What a check found."""

    problems: list[Problem] = field(default_factory=list)
    checked: int = 0
    """How many files were looked at (named, changed since the revision, or deleted)."""
    found: list[Path] = field(default_factory=list)
    """The discussion files that exist and were checked."""


def check_files(ws: Workspace, files: Sequence[str], rev: str | None = None) -> CheckReport:
    """Check the discussion files named in `files` (looked up as the CLI does) or, with none and
    a `rev`, every discussion file changed or deleted since `rev`. Derived files (summaries,
    the chronicle) picked up by a glob are skipped."""
    report = CheckReport()
    paths: list[tuple[str, Path]] = []
    for name in files:
        try:
            paths.append((name, resolve_file(name, ws)))
        except DiscussionsError as exc:
            report.problems.append(Problem(name, 0, str(exc)))
    paths = [(name, p) for name, p in paths if not is_derived(p)]
    violations, paths = _since(rev, files, paths)
    shown = {p for _, p in paths}
    for path, messages in violations.items():
        if path not in shown:  # deleted since the revision
            report.problems += [Problem(display_path(path), 0, m) for _, m in messages]
    for name, path in paths:
        report.problems += [Problem(name, line, m) for line, m in violations.get(path, [])]
        report.problems += _file_problems(name, path, ws, report)
    report.problems += [
        Problem(display_path(p.file), p.line, p.message) for p in ws.problems
    ]
    unresolved = len(files) - len(shown) if files else 0
    report.checked = len(paths) + unresolved + len([p for p in violations if p not in shown])
    return report


def _since(
    rev: str | None, files: Sequence[str], paths: list[tuple[str, Path]]
) -> tuple[dict[Path, list[tuple[int, str]]], list[tuple[str, Path]]]:
    """The append-only violations since `rev` by file, and the files to check (without named
    files: every discussion file changed since `rev`)."""
    violations: dict[Path, list[tuple[int, str]]] = {}
    if rev is None:
        return violations, paths
    from ..git.appends import check_appends

    found = check_appends(rev, Path.cwd(), [p for _, p in paths] if files else None)
    if not files:
        paths = [(display_path(p), p) for p in found.files]
    for v in found.violations:
        violations.setdefault(v.path, []).append((v.line, v.message))
    return violations, paths


def _file_problems(name: str, path: Path, ws: Workspace, report: CheckReport) -> list[Problem]:
    """What is wrong inside one existing file: not a discussion, parse warnings, lost appends."""
    try:
        require_discussion(path)
        report.found.append(path)
        warnings = Discussion.load(path, ws).warnings
    except DiscussionsError as exc:
        return [Problem(name, 0, str(exc))]
    problems = [Problem(name, w.line, w.message) for w in warnings]
    problems += [Problem(name, 0, message) for message in lost_appends(path)]
    problems += [Problem(name, 0, message) for message in _window_problems(path, ws)]
    return problems


def _window_problems(path: Path, ws: Workspace) -> list[str]:
    """Participants of the discussion at `path` whose model is too small for their smallest
    prompt (`fitting.misfits`); nothing when the providers cannot be read (reported apart)."""
    from .fitting import misfits
    from .runner import Runner

    try:
        d = Discussion.load(path, ws)
        runner = Runner(ws)
        chosen = [ws.participants.get(a) for a in d.participants if a in ws.participants]
        found = misfits(d, chosen, runner.providers, runner.provider_chain)
    except DiscussionsError:
        return []
    return [m.message for m in found]
