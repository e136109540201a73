"""The one check of discussion files: what `discussions check` reports, as a library call the
CLI, the MCP server, the web view and a pre-commit hook can all make.

A problem is a parse warning, a file that is not a discussion, an append lost or cut short
(the journal), a settings or persona file that cannot be used, a participant whose model's
context window cannot take even its smallest prompt, and with a revision, text that
existed at that revision and was changed or removed (the append-only check of `git.appends`).
`check_text` is the same check of a discussion's text held in memory (an editor's buffer)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DiscussionsError
from ..model.discussion import Discussion
from ..model.storage import is_derived, lost_appends, require_discussion
from ..settings.workspace import Workspace, display_path, resolve_file
from ..syntax.headers import misformatted_headers
from .council_notes import council_notes


@dataclass(slots=True, frozen=True)
class Problem:
    """One thing `check` reports, as ``FILE:LINE: message``."""

    file: str
    """The file as the user named it (or as the repository lists it)."""
    line: int
    """1-based line, 0 when the problem is the file as a whole."""
    message: str
    severity: str = "error"
    """``error``, ``warning`` or ``hint`` (see `syntax.document.ParseWarning.severity`)."""
    column: int = 0
    """1-based column of the text the problem is about, 0 when it is the whole line."""
    end_column: int = 0
    """1-based column just after that text (0 with `column` 0)."""
    code: str = ""
    """The kind, for the problems a tool can fix (`ParseWarning.code`)."""
    fix: str = ""
    """What to write from `column` to `end_column` to fix it, when known."""

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "message": self.message,
            "severity": self.severity,
            "column": self.column,
            "end_column": self.end_column,
        }


@dataclass(slots=True)
class CheckReport:
    """What a check found."""

    problems: list[Problem] = field(default_factory=list)
    checked: int = 0
    """How many files were looked at (named, changed since the revision, or deleted)."""
    found: list[Path] = field(default_factory=list)
    """The discussion files that exist and were checked."""
    notes: list[Problem] = field(default_factory=list)
    """What is worth knowing but not wrong (it does not fail the check): an apply number
    recorded twice after a merge (`_apply_notes`)."""
    warnings: list[Problem] = field(default_factory=list)
    """What a reviewer should see but that does not fail the check (shown with the problems,
    in the JSON too): with a revision, a change to code a decision governs that neither
    touches nor references its discussion (`ops.drift.departing`; a problem instead under
    ``drift.strict``); an even council where votes count (`council_notes`)."""

    def to_dict(self) -> dict[str, object]:
        return {
            "checked": self.checked,
            "problems": [p.to_dict() for p in self.problems],
            "notes": [p.to_dict() for p in self.notes],
            "warnings": [p.to_dict() for p in self.warnings],
        }


def check(ws: Workspace, files: Sequence[str] = (), rev: str | None = None) -> CheckReport:
    """The check act: the discussion files named in `files` (see `check_files`), else with a
    `rev` those changed since it, else every discussion of the discussions folder (nothing
    checked, `checked` 0, when it holds none)."""
    if not files and rev is None:
        from ..model.catalog import discussion_paths

        files = tuple(display_path(p) for p in discussion_paths(ws))
        if not files:
            return CheckReport()
    return check_files(ws, files, rev)


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
    report.problems += [Problem(display_path(p.file), p.line, p.message) for p in ws.problems]
    report.problems += _provider_name_problems(ws)
    report.problems += _adr_problems(ws)
    if rev is not None:
        _drift(ws, rev, files, report)
    unresolved = len(files) - len(shown) if files else 0
    report.checked = len(paths) + unresolved + len([p for p in violations if p not in shown])
    return report


def _provider_name_problems(ws: Workspace) -> list[Problem]:
    """The settings' provider names that no provider defines (`undefined_provider_names`);
    none when the providers' own files cannot be read (the commands that use them say why)."""
    from ..providers.named import undefined_provider_names
    from ..providers.registry import ProviderRegistry

    try:
        registry = ProviderRegistry.load(ws.config.project_root)
    except DiscussionsError:
        return []
    found = undefined_provider_names(ws.config, registry)
    return [Problem(display_path(p.file), p.line, p.message) for p in found]


DRIFT_CODE = "drift"
"""The code of a drift problem (`Problem.code`)."""


def _drift(ws: Workspace, rev: str, files: Sequence[str], report: CheckReport) -> None:
    """The changes in ``rev..HEAD`` that depart from a decision (`ops.drift.departing`):
    warnings, or problems (errors) under ``drift.strict``."""
    from .drift import departing

    strict = ws.config.drift_strict
    found = [
        Problem(file, line, message, "error" if strict else "warning", code=DRIFT_CODE)
        for file, line, message in departing(ws, rev, files)
    ]
    (report.problems if strict else report.warnings).extend(found)


def drift_problems(d: Discussion, name: str) -> list[Problem]:
    """The drift of `d`'s decisions (`ops.drift.drifted`) as problems of the file `name`, at
    each decision's line: a warning where a change departs from it, else a hint (the
    language server's diagnostics)."""
    from ..derive.governs import governs_code

    if not governs_code(d.decisions, d.applies):
        return []
    from .drift import drifted

    return [
        Problem(name, x.line, x.note(), "warning" if x.departures else "hint", code=DRIFT_CODE)
        for x in drifted(d)
    ]


def _adr_problems(ws: Workspace) -> list[Problem]:
    """Records of the project's ADR folder (docs/adr) that share a number (two branches each
    ran `adr`): each but the first is a problem naming the command that renumbers it."""
    from ..model.adr import duplicate_numbers

    problems: list[Problem] = []
    for number, paths in duplicate_numbers(ws.config.base_dir / "docs" / "adr").items():
        first = display_path(paths[0])
        for path in paths[1:]:
            shown = display_path(path)
            problems.append(
                Problem(
                    shown,
                    1,
                    f"ADR number {number} is also {first}'s (records written on two branches); "
                    f"renumber this one: `discussions adr --renumber {shown}`",
                )
            )
    return problems


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
        d = Discussion.load(path, ws)
        cited = citation_problems(d, name)  # a stale citation is a note: the code moved on
        problems = problems_in(d, name) + [p for p in cited if p.severity != "hint"]
        report.notes += _apply_notes(d, name) + [p for p in cited if p.severity == "hint"]
        report.warnings += council_problems(d, name)
    except DiscussionsError as exc:
        return [Problem(name, 0, str(exc))]
    problems += [Problem(name, 0, message) for message in lost_appends(path)]
    problems += [Problem(name, 0, message) for message in _window_problems(path, ws)]
    return problems


def council_problems(d: Discussion, name: str) -> list[Problem]:
    """The warnings about `d`'s council as a whole (`council_notes`: an even council where
    votes count), as `check` and the editor show them; they do not fail the check."""
    return [
        Problem(name, line, message, "warning", code="even-council")
        for line, message in council_notes(d)
    ]


def _apply_notes(d: Discussion, name: str) -> list[Problem]:
    """Apply numbers two blocks carry: two branches that each applied both write apply 1, and
    the merge keeps both (told apart by branch and commit; an append-only file cannot
    renumber them, so it is not a problem). A review by number goes to the nearest block
    above it with that number: worth saying which blocks share one."""
    seen: dict[int, list[int]] = {}
    for a in d.applies:
        seen.setdefault(a.number, []).append(a.line)
    return [
        Problem(
            name,
            lines[-1],
            f"apply {number} is recorded {len(lines)} times (lines "
            f"{', '.join(map(str, lines))}: branches that each applied, merged); a review of "
            f"apply {number} belongs to the nearest of them above it",
            "hint",
        )
        for number, lines in seen.items()
        if len(lines) > 1
    ]


def citation_problems(d: Discussion, name: str) -> list[Problem]:
    """What `check` says of `d`'s citations: a warning for each that is unresolvable (an
    invented path or line, a misquote), a hint for each that is stale; at the citation's
    columns."""
    if not any(c.citations for c in d.comments):
        return []
    from ..derive.citations import GROUNDED, UNRESOLVABLE, citation_key
    from .grounds import resolve

    resolve(d)
    lines = d.text.split("\n") if d.grounding else []
    out: list[Problem] = []
    for comment in d.comments:
        for c in comment.citations:
            v = (d.grounding or {}).get(citation_key(c))
            if v is None or v.status == GROUNDED:
                continue
            text = lines[c.line - 1] if 0 < c.line <= len(lines) else ""
            start = text.find(c.path) + 1
            unresolvable = v.status == UNRESOLVABLE
            message = (
                f"`{c.text}` cites nothing in the repository: {v.why} ({v.against})"
                if unresolvable
                else f"`{c.text}` is stale: {v.why} ({v.against})"
            )
            severity, code = (
                ("warning", "unresolvable-citation") if unresolvable else ("hint", "stale-citation")
            )
            end = start + len(c.path) if start else 0
            out.append(Problem(name, c.line, message, severity, start, end, code))
    return out


def _window_problems(path: Path, ws: Workspace) -> list[str]:
    """Participants of the discussion at `path` whose model is too small for their smallest
    prompt (`fitting.misfits`); nothing when the providers cannot be read (reported apart)."""
    from ..engine.prompt.fitting import misfits
    from ..engine.runner import Runner

    try:
        d = Discussion.load(path, ws)
        runner = Runner(ws)
        chosen = [ws.participants.get(a) for a in d.participants if a in ws.participants]
        found = misfits(d, chosen, runner.providers, runner.provider_chain)
    except DiscussionsError:
        return []
    return [m.message for m in found]


def check_text(ws: Workspace, path: Path, text: str, name: str | None = None) -> list[Problem]:
    """What `check` reports inside the discussion `path` were its text `text` (an editor's
    unsaved buffer): the problems of the saved file, less what only the bytes on disk can tell
    (appends lost from the journal, bytes that are not UTF-8). `name` names the file in the
    problems (default: as `check` shows it)."""
    shown = name if name is not None else display_path(path)
    return problems_in(Discussion(path, ws).seen_as(text), shown)


def problems_in(d: Discussion, name: str) -> list[Problem]:
    """The parse and state warnings of the discussion `d` (as loaded, or as `seen_as` a text)
    as problems of the file `name`, each at its line and, where it is about part of the line,
    its columns; and the comment headers typed with formatting (`syntax.headers`)."""
    warnings = d.warnings + misformatted_headers(d.text)
    lines = d.text.split("\n") if warnings else []
    subjects: dict[int, list[str]] = {}
    for w in warnings:
        subjects.setdefault(w.line, []).append(w.subject or _quoted(w.message))
    columns: dict[int, _LineColumns] = {}
    problems: list[Problem] = []
    for w in warnings:
        if w.line not in columns:
            text = lines[w.line - 1] if 0 < w.line <= len(lines) else ""
            columns[w.line] = _LineColumns(text, subjects[w.line])
        column, end = columns[w.line].of(w.subject or _quoted(w.message))
        problems.append(Problem(name, w.line, w.message, w.severity, column, end, w.code, w.fix))
    return problems


_WORD_AT = re.compile(r"@[\w-]*")


class _LineColumns:
    """Where subjects first stand in one line (any case), as `_columns` finds them, but linear
    in the line and its subjects together: a line holding thousands of distinct unknown
    ``@mentions`` has a warning for each, and a search from the line's start for each one was
    quadratic. Each ``@word`` subject is looked up among the line's ``@`` runs in
    one pass: it stands first where the first run starting with it does (a subject of word
    characters cannot begin inside a run, only at its ``@``); other subjects are searched."""

    __slots__ = ("line", "lowered", "searched", "first")

    def __init__(self, line: str, subjects: list[str]) -> None:
        self.line = line
        self.lowered = line.lower()
        keys = {s.lower() for s in subjects} if len(subjects) > 1 else set()
        self.searched = {k for k in keys if _WORD_AT.fullmatch(k)}
        self.first = _first_runs(self.lowered, self.searched) if self.searched else {}

    def of(self, subject: str) -> tuple[int, int]:
        """1-based (start, end) of `subject` in the line, (0, 0) when it is not there."""
        key = subject.lower()
        if key in self.first:
            at = self.first[key]
            return at + 1, at + 1 + len(subject)
        if key in self.searched:
            return 0, 0  # looked for among the runs, not there
        return _columns(self.line, subject, self.lowered)


def _first_runs(lowered: str, wanted: set[str]) -> dict[str, int]:
    """The offset of the first ``@`` run of `lowered` that starts with each of `wanted`."""
    lengths = sorted({len(w) for w in wanted})
    found: dict[str, int] = {}
    for m in _WORD_AT.finditer(lowered):
        run = m.group()
        for n in lengths:
            if n > len(run):
                break
            key = run[:n]
            if key in wanted and key not in found:
                found[key] = m.start()
    return found


def _quoted(message: str) -> str:
    """The first `code span` of a message: the text it quotes from the line, if any."""
    start = message.find("`")
    end = message.find("`", start + 1) if start >= 0 else -1
    return message[start + 1 : end] if end > start + 1 else ""


def _columns(line: str, subject: str, lowered: str | None = None) -> tuple[int, int]:
    """1-based (start, end) of `subject` in `line` (any case), (0, 0) when it is not there;
    `lowered` is ``line.lower()`` when the caller has it."""
    lowered = line.lower() if lowered is None else lowered
    at = lowered.find(subject.lower()) if subject else -1
    return (at + 1, at + 1 + len(subject)) if at >= 0 else (0, 0)
