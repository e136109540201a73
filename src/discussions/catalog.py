"""The discussions in a folder, as `discussions list` and the MCP server show them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import DiscussionNotFound, DiscussionsError
from .model import Discussion
from .storage import check_exists, is_derived, is_discussion_file
from .workspace import Workspace, display_path


def discussion_paths(folder: Path) -> list[Path]:
    """The discussion files in `folder`: the ``*.md`` files `storage.discussion_problem` finds
    nothing wrong with (never a FIFO: opening one would block)."""
    if not folder.is_dir():
        return []
    files = []
    for path in sorted(folder.glob("*.md")):
        if is_discussion_file(path):
            files.append(path)
    return files


def list_discussions(
    ws: Workspace, folder: Path | None = None, status: str | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows (file, title, phase, status, comments; consensus: the outcome reached or None;
    questions: how many; changed: modification time in UTC) for the discussions in `folder`
    (default: ``output.directory``), optionally of one `status`; and one line per file that
    could not be read. Derived files and files that are not discussions are left out."""
    folder = folder or ws.config.output_directory
    if not folder.is_dir():
        raise DiscussionNotFound(f"no discussions folder at {display_path(folder)}")
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    for path in sorted(folder.glob("*.md")):
        if is_derived(path):
            continue
        try:
            check_exists(path)  # a pipe, a dangling link: said, not silently left out
            if not is_discussion_file(path):
                continue
            d = Discussion.load(path, ws)
        except DiscussionsError as exc:
            skipped.append(f"{display_path(path)}: {exc}")
            continue
        if status and d.status.upper() != status.upper():
            continue
        consensus = d.consensus_result
        rows.append(
            {
                "file": display_path(path),
                "title": d.title,
                "phase": d.phase,
                "status": d.status,
                "comments": len(d.comments),
                "consensus": consensus.outcome if consensus.reached else None,
                "questions": len(d.questions),
                "changed": _changed(path),
            }
        )
    return rows, skipped


def _changed(path: Path) -> str:
    from datetime import UTC, datetime

    try:
        mtime = path.stat().st_mtime
    except OSError:
        return ""
    return datetime.fromtimestamp(mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
