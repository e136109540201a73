"""The acts that make a discussion and move it through its life: create, advance, close and
reopen. Each takes the workspace and the discussion's path (an interface resolves what its
user named by its own rule: the CLI looks anywhere, a server only in the discussions folder),
does the act under the file's lock, and returns a result whose `to_dict` is the one JSON
every interface answers with."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BadInput, DiscussionExists, DiscussionsError
from ..model.discussion import Discussion
from ..settings.config import default_author
from ..settings.templates import is_open
from ..settings.workspace import Workspace, display_path


@dataclass(slots=True)
class Created:
    """What `create` made: the discussion, and the lines saying which files were attached."""

    discussion: Discussion
    attached: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The discussion's state (`Discussion.to_dict`) with its `file` as shown."""
        return {**self.discussion.to_dict(), "file": display_path(self.discussion.path)}


@dataclass(slots=True)
class Advanced:
    """The phase `advance` moved the discussion to."""

    file: Path
    phase: str
    notices: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"file": display_path(self.file), "phase": self.phase, "notices": self.notices}


@dataclass(slots=True)
class StatusChanged:
    """The status `close` or `reopen` recorded."""

    file: Path
    status: str
    notices: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"file": display_path(self.file), "status": self.status, "notices": self.notices}


def create(
    ws: Workspace,
    title: str,
    *,
    template: str | None = None,
    context: str | None = None,
    participants: list[str] | None = None,
    directory: Path | None = None,
    file_name: str | None = None,
    attach: list[str] | None = None,
    language: str | None = None,
) -> Created:
    """Create and save a discussion: in `directory` (default: ``output.directory``), named
    `file_name` (default: made from the title), the files matching the `attach` patterns
    attached as evidence, held in `language` (a ``Language:`` header line). Never replaces
    a file: `DiscussionExists` says what to do instead."""
    path = None
    if file_name:
        name = file_name if file_name.endswith(".md") else f"{file_name}.md"
        if Path(name).name != name:
            raise BadInput("give a file name, not a path (use --dir for the folder)", "file")
        path = (directory or ws.config.output_directory) / name
    d = Discussion.create(
        title,
        template=template,
        context=context,
        participants=participants or None,
        directory=directory,
        path=path,
        workspace=ws,
        language=language,
    )
    if d.path.exists() or d.path.is_symlink():
        raise DiscussionExists(
            f"{display_path(d.path)} already exists; choose another name with --file, "
            f"or comment on it with `discussions comment {d.path.name}`"
        )
    d.save()
    return Created(d, _attached(d, attach or []))


def _attached(d: Discussion, patterns: list[str]) -> list[str]:
    """Attach the files matching `patterns` as evidence; the lines saying what was attached."""
    if not patterns:
        return []
    from ..engine.evidence.fulfil import attach

    return attach(d, default_author(), patterns).lines()


def advance(ws: Workspace, path: Path, to: str | None = None) -> Advanced:
    """Move the discussion to phase `to` (default: the current phase's next); votes restart.
    Decided from the phase as read now and checked again under the lock: two people advancing
    at once move the discussion one phase, not two."""
    d = Discussion.load(path, ws)
    phase = d.advance(to)
    d.save()
    return Advanced(d.path, phase, list(d.notices))


def close(ws: Workspace, path: Path, status: str = "CLOSED") -> StatusChanged:
    """Record a status change to `status`, one that ends the discussion (DECIDED, REJECTED,
    a template's own...); an open status is refused (`reopen` reopens)."""
    d = Discussion.load(path, ws)
    if is_open(status, d.template):
        shown = status.strip().upper()
        raise BadInput(f"{shown} is an open status; use `discussions reopen` to reopen", "status")
    new = d.transact(lambda now: now.set_status(status))
    return StatusChanged(d.path, new, list(d.notices) + _council_updated(ws, d.path))


def reopen(ws: Workspace, path: Path) -> StatusChanged:
    """Reopen a closed or decided discussion: record a status change to OPEN."""
    d = Discussion.load(path, ws)
    new = d.transact(lambda now: now.set_status("OPEN"))
    return StatusChanged(d.path, new, list(d.notices) + _council_updated(ws, d.path))


def _council_updated(ws: Workspace, path: Path) -> list[str]:
    """The council files brought up to date for the discussion at `path`, once they exist
    (`model.council.update_council`); a notice when they could not be (they can be rebuilt)."""
    from ..model.council import update_council

    try:
        update_council(ws, [path])
    except (DiscussionsError, OSError) as exc:
        return [f"council memory not updated: {exc}"]
    return []
