"""Outline and navigation: the phases and comments of a discussion, the comments that answer
a ``Q:``, and symbols across the discussions folder."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from ..derive.state import Comment
from ..errors import DiscussionsError
from ..model.catalog import brief, briefs, discussion_paths
from ..settings.workspace import Workspace
from ..syntax.document import ENGINE_LINE
from .buffer import Buffer

OUTLINED = ("Q", "DECISION", "MOTION", "CONCERN", "TODO")
"""The markers shown under their comment in the outline."""


def _range(b: Buffer, first: int, last: int) -> types.Range:
    """Lines `first` to `last` (1-based, inclusive) as a protocol range."""
    last = max(first, min(last, len(b.lines)))
    return types.Range(types.Position(first - 1, 0), types.Position(last - 1, len(b.line(last))))


def _line_range(b: Buffer, number: int) -> types.Range:
    return _range(b, number, number)


def phase_starts(b: Buffer) -> list[tuple[str, int]]:
    """(phase, first line) of each phase the file went through, the header's first."""
    d = b.discussion
    first = d.header.get("phase") or d.phase
    starts = [(first, 1)]
    for number in d.engine_marker_lines:
        m = ENGINE_LINE.match(b.line(number))
        if m and m.group(1) == "PHASE-TRANSITION":
            target = m.group(2).split("->")[-1].strip()
            starts.append((target, number))
    return starts


def document_symbols(b: Buffer) -> list[types.DocumentSymbol]:
    """Phases, each holding its comments (author, vote), each holding its questions,
    decisions, motions, concerns and to-dos."""
    starts = phase_starts(b)
    phases: list[types.DocumentSymbol] = []
    for i, (phase, first) in enumerate(starts):
        last = starts[i + 1][1] - 1 if i + 1 < len(starts) else len(b.lines)
        children = [
            _comment_symbol(b, c)
            for c in b.discussion.comments
            if first <= c.line <= max(first, last)
        ]
        phases.append(
            types.DocumentSymbol(
                name=f"Phase: {phase}",
                kind=types.SymbolKind.Namespace,
                range=_range(b, first, last),
                selection_range=_line_range(b, first),
                children=children,
            )
        )
    return phases


def _comment_symbol(b: Buffer, c: Comment) -> types.DocumentSymbol:
    items = [
        types.DocumentSymbol(
            name=f"{m.kind}: {m.text}"[:120],
            kind=types.SymbolKind.Key,
            range=_line_range(b, m.line),
            selection_range=_line_range(b, m.line),
        )
        for m in c.markers
        if m.kind in OUTLINED
    ]
    return types.DocumentSymbol(
        name=c.author,
        detail=f"VOTE: {c.vote}" if c.vote else "",
        kind=types.SymbolKind.Event,
        range=_range(b, c.line, c.end_line),
        selection_range=_line_range(b, c.line),
        children=items,
    )


def answers(b: Buffer, uri: str, line: int) -> list[types.Location]:
    """The comments after the ``Q:`` on 0-based `line` that quote or repeat its question."""
    number = line + 1
    question = next((q for q in b.discussion.questions if q.line == number), None)
    if question is None:
        return []
    needle = _words(question.text.rstrip("?"))[:60]
    if not needle:
        return []
    return [
        types.Location(uri, _range(b, c.line, c.end_line))
        for c in b.discussion.comments
        if c.line > number and needle in _words(c.body)
    ]


def _words(text: str) -> str:
    """`text` lower-cased with quote marks and runs of blanks made one space."""
    lines = (line.lstrip().lstrip(">").strip() for line in text.lower().splitlines())
    return " ".join(" ".join(lines).split())


def workspace_symbols(ws: Workspace, query: str) -> list[types.WorkspaceSymbol]:
    """Each discussion of the folder (its title), its questions and decisions, whose name
    holds `query` (any case). From the shared cache of listings (`catalog.briefs`): a file
    is derived again only once it changed."""
    wanted = query.lower()
    found: list[types.WorkspaceSymbol] = []
    with briefs(ws) as cache:
        for path in discussion_paths(ws):
            try:
                b = brief(cache, path, ws)
            except (DiscussionsError, OSError):  # `check` reports a file that cannot be read
                continue
            rows = [(b.title or path.stem, 1, types.SymbolKind.File)]
            rows += [(f"Q: {text}", line, types.SymbolKind.Key) for text, line in b.questions]
            rows += [(f"DECISION: {t}", line, types.SymbolKind.Key) for t, line in b.decisions]
            found += [
                _symbol(path, name, line, kind, b.title)
                for name, line, kind in rows
                if wanted in name.lower()
            ]
    return found


def _symbol(
    path: Path, name: str, line: int, kind: types.SymbolKind, title: str
) -> types.WorkspaceSymbol:
    at = types.Position(max(line - 1, 0), 0)
    return types.WorkspaceSymbol(
        name=name[:120],
        kind=kind,
        location=types.Location(from_fs_path(str(path)) or "", types.Range(at, at)),
        container_name=title or path.stem,
    )
