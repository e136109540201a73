"""Drift (docs/drift.md): the decisions whose governed code changed since they were recorded, or
since they were implemented, with the commits that changed it.

A decision governs the paths of its ``GOVERNS:`` line (`derive.governs`) and, once applied,
the paths its apply's commit changed (`derive.applies.Implementation.paths`). Its drift is
counted from the commit that recorded it (the commit that added its ``DECISION:`` line) or,
when the commit of an apply that implements it is in HEAD's history, from that commit. A
change *departs* when its commit neither touches the discussion file nor names it (its file
name or its path) in its message.

One function answers each question, and every interface calls it: `drift` (the command and
the MCP tool), `departing` (``check --since``: each departure in a range as
``FILE:LINE``, at the decision's line) and `drifted` (the decisions of one discussion that
drifted, each with its one-line `DecisionDrift.note`: the language server's diagnostic and
the web panel's line, through `ops.grounds.resolve`); `recheck` has the council vote whether
the code as it is now still conforms. git runs through `git.drift`: a blame, at most one
merge-base and one log per discussion."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..derive.governs import governs_code, matches, normal_pattern, pathspec
from ..errors import DiscussionsError
from ..git import drift as history
from ..git.run import relative_path, repo_root, run_git
from ..model.discussion import Discussion
from ..model.filecache import signature
from ..model.ledger import LedgerEntry, file_decisions, scan
from ..settings.workspace import Workspace, display_path, resolve_file

if TYPE_CHECKING:
    from ..engine.council.recheck import RecheckOutcome


@dataclass(slots=True, frozen=True)
class Change:
    """One commit that changed code a decision governs, after the decision."""

    commit: history.Commit
    paths: tuple[str, ...]
    """The governed paths it changed."""
    touches: bool
    """It changed the discussion file too."""
    references: bool
    """Its message names the discussion (file name or path)."""

    @property
    def departs(self) -> bool:
        """Neither touches nor references the discussion: a quiet departure."""
        return not (self.touches or self.references)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.commit.to_dict(),
            "paths": list(self.paths),
            "touches_discussion": self.touches,
            "references_discussion": self.references,
            "departs": self.departs,
        }

    def line(self) -> str:
        """``1a2b3c4 subject (Ann, 2026-11-28)``."""
        c = self.commit
        return f"{c.id[:7]} {c.subject} ({c.author}, {c.date[:10]})"


@dataclass(slots=True)
class DecisionDrift:
    """One decision that governs code, and the changes to that code after it."""

    file: str
    """The discussion file, as shown."""
    line: int
    """The ``DECISION:`` line."""
    text: str
    governs: list[str]
    """Its ``GOVERNS:`` paths and globs."""
    implemented: list[str]
    """The paths its applies changed (governed since they were applied)."""
    recorded: str
    """The commit that recorded it ("" when its line is not committed yet)."""
    since: str
    """The commit its drift is counted from ("" when not committed)."""
    counted_from: str
    """What `since` is: ``recorded`` or ``implemented``."""
    changes: list[Change] = field(default_factory=list)
    """Newest first."""

    @property
    def departures(self) -> list[Change]:
        return [c for c in self.changes if c.departs]

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "text": self.text,
            "governs": list(self.governs),
            "implemented_paths": list(self.implemented),
            "recorded": self.recorded,
            "since": self.since,
            "counted_from": self.counted_from,
            "drifted": bool(self.changes),
            "departures": len(self.departures),
            "commits": [c.to_dict() for c in self.changes],
        }

    def note(self) -> str:
        """One line: how many commits changed its code since when, the latest ones, and how
        many depart (the editor's diagnostic and the web panel's line)."""
        n, gone = len(self.changes), len(self.departures)
        shown = "; ".join(c.line() for c in self.changes[:3]) + ("; ..." if n > 3 else "")
        what = f"{gone} of them neither touch nor reference this discussion"
        return (
            f"drift: {n} commit{'s' if n != 1 else ''} changed the code this decision governs "
            f"since it was {self.counted_from} ({self.since[:7]}): {shown}"
            + (f"; {what}" if gone else "")
        )


@dataclass(slots=True)
class DriftReport:
    """What `drift` found: every decision that governs code, drifted or not."""

    decisions: list[DecisionDrift] = field(default_factory=list)
    discussions: int = 0
    """Discussion files with a decision that governs code (each one blame and one log)."""

    @property
    def drifted(self) -> list[DecisionDrift]:
        return [d for d in self.decisions if d.changes]

    @property
    def departed(self) -> list[DecisionDrift]:
        return [d for d in self.decisions if d.departures]

    def to_dict(self) -> dict[str, Any]:
        return {
            "decisions": [d.to_dict() for d in self.decisions],
            "governing": len(self.decisions),
            "drifted": len(self.drifted),
            "departed": len(self.departed),
        }


def drift(ws: Workspace, files: Sequence[str] = (), since: str | None = None) -> DriftReport:
    """The drift of every decision that governs code in the discussions `files` (looked up as
    the CLI does), else in the discussions folder; with `since` (a revision), only the changes
    in ``since..HEAD``. `DiscussionsError` outside git, or for an unknown revision."""
    groups = _governing(ws, files)
    report = DriftReport()
    if not groups:
        return report
    root = repo_root(next(iter(groups)))
    since_id = _commit_id(root, since) if since else ""
    for path, entries in groups.items():
        report.decisions += _file_drift(root, path, entries, since_id)
        report.discussions += 1
    return report


def departing(ws: Workspace, rev: str, files: Sequence[str] = ()) -> list[tuple[str, int, str]]:
    """``check --since REV``: (discussion file, decision line, message) of each commit in
    ``REV..HEAD`` that changed code a decision governs and neither touches nor references the
    decision's discussion (`ops.check` makes them warnings, or errors under
    ``drift.strict``). Nothing outside git."""
    try:
        report = drift(ws, files, rev)
    except DiscussionsError:
        return []  # no repository, or no such revision: `check --since` says so itself
    return [(d.file, d.line, _departure(d, c)) for d in report.decisions for c in d.departures]


def _departure(d: DecisionDrift, c: Change) -> str:
    name = Path(d.file).name
    paths = ", ".join(c.paths[:3]) + (", ..." if len(c.paths) > 3 else "")
    return (
        f"{c.line()} changed {paths}, which this decision governs, and neither touches nor "
        f"references {name} (name it in the commit message if the change is meant)"
    )


_DRIFTED: dict[Path, tuple[object, list[DecisionDrift]]] = {}
"""`drifted` by file, with what it was found at (the file's signature and HEAD)."""


def drifted(d: Discussion) -> list[DecisionDrift]:
    """The decisions of `d` whose governed code changed, for the language server and the web
    panel (`ops.check.drift_problems`, `ops.grounds.resolve`); nothing (and no git) for a
    discussion none of whose decisions governs code, or outside git. Kept while the saved
    file and HEAD stay the same: an editor's next version runs one git process (HEAD)."""
    if not governs_code(d.decisions, d.applies):
        return []
    path = d.path.resolve()
    try:  # one git process while nothing changed: HEAD, asked from the file's folder
        head = run_git(["rev-parse", "--verify", "--quiet", "HEAD"], path.parent, check=False)
        if head.returncode != 0:
            return []  # outside git, or nothing committed yet: nothing drifted
        key = (signature(path), head.stdout)
        kept = _DRIFTED.get(path)
        if kept is not None and kept[0] == key:
            return kept[1]
        found = drift(d.workspace, [str(path)]).drifted
    except DiscussionsError:
        return []
    _DRIFTED[path] = (key, found)
    return found


# --------------------------------------------------------------------------- the pieces


def _governing(ws: Workspace, files: Sequence[str]) -> dict[Path, list[LedgerEntry]]:
    """The decisions that govern code, by discussion file (the named ones, else the folder's)."""
    if files:
        entries = [e for name in files for e in file_decisions(resolve_file(name, ws), ws)]
    else:
        entries = scan(ws).entries
    groups: dict[Path, list[LedgerEntry]] = {}
    for e in entries:
        if _patterns(e) or _implemented(e):
            groups.setdefault(e.file, []).append(e)
    return groups


def _patterns(e: LedgerEntry) -> list[str]:
    """The decision's ``GOVERNS:`` paths that name something inside the repository."""
    found = (normal_pattern(p) for p in e.details.get("governs", []))
    return [p for p in found if p and ".." not in p.split("/") and not p.startswith(":")]


def _implemented(e: LedgerEntry) -> list[str]:
    paths = (normal_pattern(p) for i in e.implemented_by for p in i.paths)
    return list(dict.fromkeys(p for p in paths if p and ".." not in p.split("/")))


def _commit_id(root: Path, rev: str) -> str:
    proc = run_git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], root, check=False)
    found = proc.stdout.decode("ascii", "replace").strip()
    if proc.returncode != 0 or not found:
        raise DiscussionsError(f"unknown revision '{rev}' (try a branch, tag or commit)")
    return found


def _file_drift(
    root: Path, path: Path, entries: list[LedgerEntry], since: str
) -> list[DecisionDrift]:
    """The drift of one discussion's governing decisions (`drift`): one blame, one log."""
    rel = relative_path(path, root)
    recorded = history.recorded_commits(root, rel, [e.line for e in entries])
    # With `since` (`check --since`) the walk is the range: a decision recorded before it is
    # an ancestor of `since` (all of the range comes after it), one recorded in it is in it.
    bases = [recorded[e.line] for e in entries if e.line in recorded]
    lower = since or (history.common_base(root, bases) if bases else "")
    specs = [pathspec(p) for e in entries for p in _patterns(e)]
    specs += [pathspec(p, literal=True) for e in entries for p in _implemented(e)]
    walked = history.history(root, lower, [*dict.fromkeys(specs), pathspec(rel, literal=True)])
    return [_decision(e, rel, recorded.get(e.line, ""), walked, lower) for e in entries]


def _decision(
    e: LedgerEntry,
    rel: str,
    recorded: str,
    walked: list[history.Commit],
    lower: str,
) -> DecisionDrift:
    """One decision's drift among the commits `walked` from `lower`."""
    patterns, implemented = _patterns(e), _implemented(e)
    out = DecisionDrift(
        display_path(e.file), e.line, e.text, patterns, implemented, recorded, "", "recorded"
    )
    if not recorded:
        return out  # not committed yet: nothing to drift from
    done = {c for i in e.implemented_by for c in i.commits}
    applied = next((c.id for c in walked if c.id in done), "")
    out.since, out.counted_from = (applied, "implemented") if applied else (recorded, "recorded")
    later = history.after(walked, out.since, lower)
    named = _naming(rel)
    for c in later:
        governed = tuple(p for p in c.paths if _governed(p, patterns, implemented))
        if governed and c.id not in done:
            out.changes.append(Change(c, governed, rel in c.paths, bool(named.search(c.message))))
    return out


def _governed(path: str, patterns: list[str], implemented: list[str]) -> bool:
    return any(matches(p, path) for p in patterns) or any(
        matches(p, path, literal=True) for p in implemented
    )


def _naming(rel: str) -> re.Pattern[str]:
    """What a commit message names the discussion by: its path or its file name, as a word."""
    name = rel.rsplit("/", 1)[-1]
    either = "|".join(re.escape(n) for n in dict.fromkeys([rel, name]))
    return re.compile(rf"(?<![\w.-])(?:{either})(?![\w-])", re.IGNORECASE)


# --------------------------------------------------------------------------- the recheck


def recheck(
    ws: Workspace,
    path: Path,
    since: str | None = None,
    *,
    provider: str | None = None,
    on_step: Callable[[str], None] | None = None,
) -> RecheckOutcome:
    """Have the council of the discussion at `path` recheck whether the code its decisions
    govern, as it is now, still conforms to them: shown the changes to that code since
    `since` (default: where its drift is counted from, the oldest of its decisions'), and
    recorded as a ``RECHECK`` block (`engine.council.recheck`)."""
    from ..engine.council.recheck import recheck_code
    from ..engine.runner import Runner

    found = drift(ws, [str(path)]).decisions
    if not found:
        raise DiscussionsError(
            f"{path.name} has no decision that governs code: name it on a `GOVERNS:` line "
            "under the decision (or apply it), then recheck"
        )
    root = repo_root(path)
    start = _commit_id(root, since) if since else _oldest(root, found)
    specs = [pathspec(p) for x in found for p in x.governs]
    specs += [pathspec(p, literal=True) for x in found for p in x.implemented]
    d = Discussion.load(path, ws)
    return recheck_code(
        Runner(ws), d, start, list(dict.fromkeys(specs)), provider=provider, on_step=on_step
    )


def _oldest(root: Path, found: list[DecisionDrift]) -> str:
    """The commit the drift of all of `found` counts from (their common base)."""
    since = [x.since for x in found if x.since]
    if not since:
        raise DiscussionsError(
            "its decisions are not committed yet: commit the discussion, or give --since REV"
        )
    return history.common_base(root, since)
