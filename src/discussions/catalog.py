"""The discussions in a folder, as `discussions list` and the MCP server show them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import DiscussionNotFound, DiscussionsError, PhaseError
from .format import has_discussion_header
from .model import Discussion
from .storage import is_derived
from .templates import is_open, known_statuses
from .workspace import Workspace, display_path


def discussion_paths(folder: Path) -> list[Path]:
    """The discussion files in `folder`: regular ``*.md`` files (never a FIFO: opening one
    would block) that are not derived and start with the discussion header. Reads 4 KiB of
    each."""
    if not folder.is_dir():
        return []
    files = []
    for path in sorted(folder.glob("*.md")):
        if is_derived(path) or not path.is_file():
            continue
        try:
            with path.open("rb") as f:
                head = f.read(4096).decode("utf-8", errors="replace")
        except OSError:
            continue
        if has_discussion_header(head):
            files.append(path)
    return files


def list_discussions(
    ws: Workspace, folder: Path | None = None, status: str | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows (file, title, phase, status, comments; consensus: the outcome reached or None;
    questions: how many; changed: modification time in UTC) for the discussions in `folder`
    (default: ``output.directory``), optionally of one `status`; and one line per file that
    could not be read. Derived files and files that are not discussions are left out.

    `status` ``open`` (any case) means not finished, whatever the template calls its
    starting status (`templates.is_open`: OPEN, PROPOSED...); any other is matched exactly
    and must be a known status (`templates.known_statuses`) or one a listed file has, else
    `PhaseError` lists the known ones."""
    folder = folder or ws.config.output_directory
    if not folder.is_dir():
        raise DiscussionNotFound(f"no discussions folder at {display_path(folder)}")
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    seen: set[str] = set()
    for path in sorted(folder.glob("*.md")):
        if is_derived(path):
            continue
        try:
            d = Discussion.load(path, ws)
            if not has_discussion_header(d.text):
                continue
        except DiscussionsError as exc:
            skipped.append(f"{display_path(path)}: {exc}")
            continue
        seen.add(d.status.upper())
        if status and not _matches(d, status):
            continue
        rows.append(_row(d, path))
    if status:
        _check_status(status, ws, seen)
    return rows, skipped


def _matches(d: Discussion, status: str) -> bool:
    if status.strip().lower() == "open":
        return is_open(d.status, d.template)
    return d.status.upper() == status.strip().upper()


def _check_status(status: str, ws: Workspace, seen: set[str]) -> None:
    wanted = status.strip().upper()
    known = known_statuses(ws.templates)
    if wanted not in known and wanted not in seen:
        raise PhaseError(
            f"unknown status '{status}'; known statuses: {', '.join(known)} "
            "('open' lists every discussion not finished)"
        )


def _row(d: Discussion, path: Path) -> dict[str, Any]:
    consensus = d.consensus_result
    return {
        "file": display_path(path),
        "title": d.title,
        "phase": d.phase,
        "status": d.status,
        "comments": len(d.comments),
        "consensus": consensus.outcome if consensus.reached else None,
        "questions": len(d.questions),
        "changed": _changed(path),
    }


def _changed(path: Path) -> str:
    from datetime import UTC, datetime

    try:
        mtime = path.stat().st_mtime
    except OSError:
        return ""
    return datetime.fromtimestamp(mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
