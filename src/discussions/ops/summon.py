"""Code comments that summon a council (`git.summons`): list them (`find`), and start or
continue the discussion each one calls for (`start`), the code around the comment attached
as evidence through the evidence rule, the discussion linking back to ``path:line``.

A summons's discussion is the one named after its question (``discussions/<slug>.md``): the
first `start` creates it with the question and a link to the line in its context, a later one
attaches the code again when the file changed since (a comment moved, the code around it
edited), and does nothing when it did not. The source file is only read, never written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BadInput, DiscussionsError
from ..git.confine import Confinement
from ..git.summons import DEFAULT_PREFIX, CodeSummons, find_in, staged_files
from ..model.discussion import Discussion
from ..settings.config import default_author
from ..settings.evidence import evidence_settings
from ..settings.workspace import Workspace, display_path
from ..syntax.text import slugify

DEFAULT_CONTEXT = 6
"""Lines of code above and below the comment attached (``summon.context``)."""


@dataclass(slots=True)
class Summoning:
    """Where summonses are looked for, and how they are read."""

    where: Confinement
    prefix: str
    context: int
    skip: tuple[str, ...]
    """The discussions folder (relative, ending ``/``), when it is inside the project."""

    @classmethod
    def of(cls, ws: Workspace) -> Summoning:
        section = ws.config.section("summon")
        where = Confinement.of(
            ws.config.base_dir or Path.cwd(), evidence_settings(ws.config).exclude
        )
        folder = ws.config.output_directory.resolve()
        skip: tuple[str, ...] = ()
        if where.root in folder.parents:
            skip = (folder.relative_to(where.root).as_posix() + "/",)
        context = section.get("context")
        return cls(
            where,
            str(section.get("prefix") or DEFAULT_PREFIX),
            context if isinstance(context, int) else DEFAULT_CONTEXT,
            skip,
        )

    def relative(self, given: str) -> str:
        """`given` (a path from the current folder) relative to the project's root."""
        full = (Path.cwd() / given).resolve()
        if full != self.where.root and self.where.root not in full.parents:
            raise BadInput(f"{given} is outside the project at {self.where.root}", "paths")
        if not full.exists():
            raise BadInput(f"{given}: no such file or folder", "paths")
        return full.relative_to(self.where.root).as_posix() if full != self.where.root else "."


def find(
    ws: Workspace, paths: list[str] | None = None, *, staged: bool = False
) -> list[CodeSummons]:
    """The summonses under `paths` (files or folders from the current folder; none: the whole
    project), or with `staged`, in the files staged for the next commit."""
    s = Summoning.of(ws)
    rel = [s.relative(p) for p in paths or []]
    if staged:
        rel = staged_files(s.where)
        if not rel:
            return []
    return find_in(s.where, rel, skip=s.skip, prefix=s.prefix)


@dataclass(slots=True)
class Started:
    """What `start` did for one summons."""

    summons: CodeSummons
    file: Path
    action: str
    """``started``, ``continued`` (the code attached again) or ``unchanged``."""
    evidence: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.summons.to_dict(),
            "file": str(self.file),
            "action": self.action,
            "evidence": self.evidence,
        }


def start(ws: Workspace, summons: CodeSummons, by: str | None = None) -> Started:
    """Start the discussion `summons` calls for, or continue it (module docstring)."""
    from ..engine.evidence.fulfil import attach

    s = Summoning.of(ws)
    request = _request(s, summons)
    path = ws.config.output_directory / f"{slugify(summons.question)}.md"
    action = "continued"
    if not path.exists():
        d = Discussion.create(
            summons.question, context=_context(summons, s, path), path=path, workspace=ws
        )
        d.save()
        action = "started"
    d = Discussion.load(path, ws)
    if action == "continued" and _attached_as_is(d, s, request):
        return Started(summons, path, "unchanged")
    lines = attach(d, by or default_author(), [request]).lines()
    return Started(summons, path, action, lines)


def _request(s: Summoning, summons: CodeSummons) -> str:
    """``PATH:START-END``: the comment's line and `Summoning.context` lines either side."""
    first = max(1, summons.line - s.context)
    return f"{summons.path}:{first}-{summons.line + s.context}"


def _context(summons: CodeSummons, s: Summoning, discussion: Path) -> str:
    """The discussion's context: the question, and a link to the line it was asked on."""
    target = os.path.relpath(s.where.root / summons.path, discussion.parent)
    link = f"[{summons.where}]({Path(target).as_posix()}#L{summons.line})"
    return (
        f"The code comment at {link} asks:\n\n> {summons.question}\n\n"
        f"The lines around it are attached below as evidence (`read {_request(s, summons)}`)."
    )


def _attached_as_is(d: Discussion, s: Summoning, request: str) -> bool:
    """Whether `d` holds the code of `request` as the file is now (same lines, same file)."""
    from ..engine.evidence.sources import read
    from ..git.confine import Refused

    wanted = f"read {request}"
    ours = [e for e in d.evidence if e.request == wanted and e.status in ("fulfilled", "same")]
    if not ours:
        return False
    try:
        now = read(request, s.where).ref
    except Refused:
        return False
    return ours[-1].ref == now


def start_all(ws: Workspace, found: list[CodeSummons], by: str | None = None) -> list[Started]:
    """`start` for each summons, one discussion per question (the first place it is asked)."""
    done: list[Started] = []
    seen: set[str] = set()
    for summons in found:
        slug = slugify(summons.question)
        if slug in seen:
            continue
        seen.add(slug)
        try:
            done.append(start(ws, summons, by))
        except DiscussionsError as exc:
            raise DiscussionsError(f"{summons.where}: {exc}") from exc
    return done


def shown(started: Started) -> str:
    """One line for a person: what was done, where."""
    return f"{started.action:>9}  {display_path(started.file)} ({started.summons.where})"
