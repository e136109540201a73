"""The discussions in a folder, as `discussions list` and the servers show them, and the one
rule for which file a server (the MCP server, the web server) may open when asked by name."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import DiscussionNotFound, DiscussionsError, NotADiscussion, PhaseError
from ..settings.templates import is_open, known_statuses
from ..settings.workspace import (
    Workspace,
    display_in,
    display_path,
    missing,
    resolve_file,
    shorten,
)
from ..syntax.record import FrozenRecord, Record
from .discussion import Discussion
from .filecache import Batch, Shelf
from .storage import discussion_problem, is_derived, require_discussion


def served_path(name: str, ws: Workspace) -> Path:
    """The discussion file a server is asked for by `name`: a file name in the discussions
    folder (``.md`` may be left out), or a path to such a file, relative to the current folder
    or absolute. Everything else is refused with the file unread: another folder (``../``, an
    absolute path elsewhere), hidden and derived files, anything but a regular file, a symbolic
    link that leads out of the project, a file that is not a discussion (`NotADiscussion`).
    `discussion_paths` lists exactly the files this accepts."""
    path = _in_folder(name, ws)
    refusal = refusal_of(path, ws)
    if refusal is not None:
        raise refusal
    return path


def _in_folder(name: str, ws: Workspace) -> Path:
    """`name` as a ``*.md`` entry of the discussions folder (not checked to exist)."""
    folder = ws.config.output_directory
    shown = shorten(name)
    given = Path(name)
    if not name.strip() or "\x00" in name or "\\" in name:
        raise missing(name, ws)
    if ".." in given.parts or len(given.parts) > 1:
        try:
            inside = ".." not in given.parts and (
                Path(os.path.abspath(given)).parent.resolve() == folder.resolve()
            )
        except (OSError, RuntimeError):
            inside = False
        if not inside:
            raise DiscussionNotFound(
                f"{shown} is not in the discussions folder ({display_path(folder)}); "
                "only the discussions there can be opened: give the name of one"
            )
    file = given.name
    return folder / (file if file.endswith(".md") else f"{file}.md")


class Bounds(Record):
    """Where served files may lie, resolved once for a listing: `folder`, the folder listed
    (default: the discussions folder), symbolic links resolved; `roots`, the project folder,
    the discussions folder and the folder listed, resolved.
    (A slotted `Record`: making a dataclass costs start-up time on every command.)"""

    __slots__ = ("folder", "roots")

    def __init__(self, folder: Path, roots: tuple[Path, ...]) -> None:
        self.folder = folder
        self.roots = roots

    @classmethod
    def of(cls, ws: Workspace, folder: Path | None = None) -> Bounds:
        output = ws.config.output_directory.resolve()
        listed = folder.resolve() if folder is not None else output
        return cls(listed, (ws.config.base_dir.resolve(), output, listed))


def refusal_of(path: Path, ws: Workspace, bounds: Bounds | None = None) -> DiscussionsError | None:
    """Why a server must not open `path` (an entry of the discussions folder), or None."""
    shown = shorten(path.name)
    if path.name.startswith(".") or is_derived(path):
        return missing(path.name, ws)
    bounds = bounds or Bounds.of(ws, path.parent)
    try:
        linked = stat.S_ISLNK(os.lstat(path).st_mode)
        real = path.resolve(strict=True) if linked else bounds.folder / path.name
    except (OSError, RuntimeError):
        return missing(path.name, ws)
    if not any(real.is_relative_to(root) for root in bounds.roots):
        return DiscussionNotFound(f"{shown} is a symbolic link out of the project")
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return missing(path.name, ws)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return DiscussionNotFound(f"{shown} is not a regular file, so not a discussion")
    except OSError:
        return DiscussionNotFound(f"{shown} cannot be read")
    finally:
        os.close(fd)
    problem = discussion_problem(real)
    return None if problem is None else NotADiscussion(problem)


def discussion_paths(ws: Workspace, folder: Path | None = None) -> list[Path]:
    """The discussion files in `folder` (default: ``output.directory``) a server may open:
    exactly the ``*.md`` entries `served_path` accepts (never a FIFO, a link out of the
    project or a file that is not a discussion)."""
    folder = folder or ws.config.output_directory
    if not folder.is_dir():
        return []
    bounds = Bounds.of(ws, folder)
    return [p for p in sorted(folder.glob("*.md")) if refusal_of(p, ws, bounds) is None]


def list_discussions(
    ws: Workspace, folder: Path | None = None, status: str | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows (file, title, phase, status, comments; consensus: the outcome reached or None;
    consensus_summary: where the vote stands in words, as `ConsensusResult.summary`;
    questions: how many; changed: modification time in UTC) for the discussions in `folder`
    (default: ``output.directory``), optionally of one `status`; and one line per file that
    could not be read. Derived files and files that are not discussions are left out; what a
    server may not open (a link out of the project) is listed as not read.

    `status` ``open`` (any case) means not finished, whatever the template calls its
    starting status (`templates.is_open`: OPEN, PROPOSED...); any other is matched exactly
    and must be a known status (`templates.known_statuses`) or one a listed file has, else
    `PhaseError` lists the known ones."""
    folder = folder or ws.config.output_directory
    if not folder.is_dir():
        raise DiscussionNotFound(f"no discussions folder at {display_path(folder)}")
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    bounds = Bounds.of(ws, folder)
    seen: set[str] = set()
    shown = display_in(folder)
    with briefs(ws, folder) as cache:
        for path in sorted(folder.glob("*.md")):
            if path.name.startswith(".") or is_derived(path):
                continue
            refusal = refusal_of(path, ws, bounds)
            if isinstance(refusal, NotADiscussion):
                continue
            known, b = cache.peek(path)  # a file derived and unchanged since exists
            try:
                if refusal is not None:
                    raise refusal
                if not known:
                    Discussion.load(path, ws)
            except DiscussionsError as exc:
                skipped.append(f"{display_path(path)}: {exc}")
                continue
            b = b if b is not None else brief(cache, path, ws)
            seen.add(b.status.upper())
            if status and not _matches(b, status):
                continue
            rows.append(_row(b, path, shown(path)))
    if status:
        check_status(status, ws, seen)
    return rows, skipped


class Brief(FrozenRecord):
    """What the listings show of one discussion (`list`, the TUI's browser, the web list
    page, the editor's workspace symbols), derived once per change of its file and kept in
    the shared cache (`filecache`, shelf ``brief``). (A `FrozenRecord`: the command line loads
    this module before a turn's first call, and making a frozen dataclass costs ~0.45 ms.)"""

    __slots__ = (
        "title",
        "phase",
        "status",
        "open",
        "comments",
        "consensus",
        "consensus_summary",
        "questions",
        "decisions",
        "mentions",
    )

    title: str
    phase: str
    status: str
    open: bool
    """Not finished (`templates.is_open` of its status and template)."""
    comments: int
    consensus: str | None
    """The outcome reached, or None."""
    consensus_summary: str
    questions: tuple[tuple[str, int], ...]
    """(text, line) of each open question."""
    decisions: tuple[tuple[str, int], ...]
    """(text, line) of each decision."""
    mentions: int
    """Mentions still waiting for an answer."""

    def __init__(
        self,
        title: str,
        phase: str,
        status: str,
        open: bool,  # noqa: A002 - the listing's word
        comments: int,
        consensus: str | None,
        consensus_summary: str,
        questions: tuple[tuple[str, int], ...],
        decisions: tuple[tuple[str, int], ...],
        mentions: int,
    ) -> None:
        self._init(
            title,
            phase,
            status,
            open,
            comments,
            consensus,
            consensus_summary,
            questions,
            decisions,
            mentions,
        )


_BRIEFS: Shelf[Brief] = Shelf("brief")


@contextmanager
def briefs(ws: Workspace, folder: Path | None = None) -> Iterator[Batch[Brief]]:
    """The cache of `Brief`s of the files of `folder` (default: ``output.directory``), for
    `brief`; what was derived is kept on disk when the block ends."""
    with _BRIEFS.batch(ws, folder or ws.config.output_directory) as cache:
        yield cache


def brief(cache: Batch[Brief], path: Path, ws: Workspace) -> Brief:
    """The `Brief` of the discussion at `path`, from `cache` while its file is unchanged.
    Raises `DiscussionsError` (nothing kept) when it cannot be read or derived."""
    return cache.get(path, lambda p: _brief_of(p, ws))


def _brief_of(path: Path, ws: Workspace) -> Brief:
    d = Discussion.load(path, ws)
    consensus = d.consensus_result
    return Brief(
        d.title,
        d.phase,
        d.status,
        is_open(d.status, d.template),
        len(d.comments),
        consensus.outcome if consensus.reached else None,
        consensus.summary,
        tuple((q.text, q.line) for q in d.questions),
        tuple((x.text, x.line) for x in d.decisions),
        len(d.pending_mentions),
    )


def _matches(b: Brief, status: str) -> bool:
    if status.strip().lower() == "open":
        return b.open
    return b.status.upper() == status.strip().upper()


def check_status(status: str, ws: Workspace, seen: set[str]) -> None:
    """Refuse a `status` filter (`list`, `decisions`) that is neither a known status
    (`templates.known_statuses`) nor one of `seen` (those the files listed have): a
    misspelt one would list nothing and look like an answer."""
    wanted = status.strip().upper()
    known = known_statuses(ws.templates)
    if wanted not in known and wanted not in seen:
        raise PhaseError(
            f"unknown status '{status}'; known statuses: {', '.join(known)} "
            "('open' lists every discussion not finished)"
        )


def _row(b: Brief, path: Path, shown: str) -> dict[str, Any]:
    return {
        "file": shown,
        "title": b.title,
        "phase": b.phase,
        "status": b.status,
        "comments": b.comments,
        "consensus": b.consensus,
        "consensus_summary": b.consensus_summary,
        "questions": len(b.questions),
        "changed": _changed(path),
    }


def _changed(path: Path) -> str:
    from datetime import UTC, datetime

    try:
        mtime = path.stat().st_mtime
    except OSError:
        return ""
    return datetime.fromtimestamp(mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def resolve_discussion(name: str, ws: Workspace) -> Path:
    """`resolve_file`, then the one rule for what a discussion is: a file that is not one (a
    README, a binary, a summary) is refused with the error every command gives
    (`storage.require_discussion`)."""
    path = resolve_file(name, ws)
    require_discussion(path)
    return path
