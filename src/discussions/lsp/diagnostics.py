"""What `check` reports, as the protocol's diagnostics, and the quick fixes it knows."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.workspace import PositionCodec, ServerTextPosition, ServerTextRange

from .early import SOURCE, problem_span

if TYPE_CHECKING:
    from ..ops.check import Problem
    from .buffer import Buffer


Unstructure = Callable[[types.Diagnostic], dict[str, Any]]

RESOLVE = "discussions.resolve"
"""The command that redoes a conflicted merge of the file (`discussions resolve`)."""
SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "hint": types.DiagnosticSeverity.Hint,
}


def problem_range(b: Buffer, p: Problem) -> types.Range:
    """Where `p` is (`early.problem_span`), in characters."""
    line, start, end = problem_span(b, p)
    return types.Range(types.Position(line, start), types.Position(line, end))


def diagnostics(b: Buffer) -> list[types.Diagnostic]:
    """Every problem of the buffer, at its place, with `check`'s message and severity."""
    return [diagnostic(p, problem_range(b, p)) for p in b.problems]


def diagnostic(p: Problem, at: types.Range) -> types.Diagnostic:
    """The problem `p` at `at`, with `check`'s message and severity."""
    return types.Diagnostic(
        range=at,
        message=p.message,
        severity=SEVERITY.get(p.severity, types.DiagnosticSeverity.Warning),
        source=SOURCE,
        code=p.code or None,
        data={"fix": p.fix} if p.fix else None,
    )


class Shown:
    """The diagnostics of one document as published (their characters counted as the client
    counts them), remembered from one version to the next: a problem on a line whose text
    did not change is the same diagnostic, not made and converted again. A long file has a
    problem on most comments; an edit changes those of one or two."""

    def __init__(self, codec: PositionCodec) -> None:
        self.codec = codec
        self.known: dict[tuple[Problem, str], types.Diagnostic] = {}
        self.encoded: dict[int, tuple[types.Diagnostic, dict[str, Any] | None]] = {}
        """The remembered diagnostics by ``id`` (each with itself: an id is only its while
        it is alive), with what the protocol's converter made of it once asked (`encoding`)."""

    def of(self, b: Buffer) -> list[types.Diagnostic]:
        """The buffer's diagnostics in the client's units; remembers only these."""
        known, self.known = self.known, {}
        out = []
        for p in b.problems:
            key = (p, b.line(p.line)) if 0 < p.line <= len(b.lines) else None
            d = (known.get(key) or self.known.get(key)) if key else None
            if d is None:
                d = diagnostic(p, self.in_client_units(b, problem_range(b, p)))
            if key:
                self.known[key] = d
            out.append(d)
        was = self.encoded
        self.encoded = {id(d): _kept(was, d) for d in self.known.values()}
        return out

    def encoding(self, d: types.Diagnostic, make: Unstructure) -> dict[str, Any] | None:
        """What `make` (the converter's own hook) makes of `d`, made once per remembered
        diagnostic; None when `d` is not one of them. Sent as it is: never changed."""
        entry = self.encoded.get(id(d))
        if entry is None or entry[0] is not d:
            return None
        if entry[1] is None:
            entry = self.encoded[id(d)] = (d, make(d))
        return entry[1]

    def in_client_units(self, b: Buffer, r: types.Range) -> types.Range:
        """`r` (in characters) counted as the client counts (UTF-16 code units by default),
        by the lines of `b` (the document's text, split once). On lines of ASCII alone every
        encoding counts one unit a character: most lines, and pygls counts char by char."""
        lines, a, z = b.lines, r.start, r.end
        if a.line < len(lines) and z.line < len(lines):
            first, last = lines[a.line], lines[z.line]
            if first.isascii() and last.isascii():
                return types.Range(  # as pygls counts: the units of the line up to there
                    types.Position(a.line, len(first[: a.character])),
                    types.Position(z.line, len(last[: z.character])),
                )
        server = ServerTextRange(
            ServerTextPosition(r.start.line, r.start.character),
            ServerTextPosition(r.end.line, r.end.character),
        )
        return self.codec.range_to_client_units(b.lines, server)


def quick_fixes(
    uri: str, version: int | None, b: Buffer, wanted: types.Range
) -> list[types.CodeAction]:
    """Fixes for the problems in `wanted`: a mistyped mention becomes the close alias, a
    ``Name:`` line gets its ``---`` separator, a formatted ``**Name:**`` header its plain
    form, a merge-conflict line offers `RESOLVE`."""
    actions: list[types.CodeAction] = []
    for p, d in zip(b.problems, diagnostics(b), strict=True):
        if not _overlaps(d.range, wanted):
            continue
        if p.code in ("mention-typo", "header-formatting") and p.fix:
            title, edit = f"Change to {p.fix}", types.TextEdit(d.range, p.fix)
        elif p.code == "missing-separator":
            at = types.Position(p.line - 1, 0)
            title, edit = (
                "Insert the `---` separator above",
                types.TextEdit(types.Range(at, at), "---\n\n"),
            )
        elif p.code == "merge-conflict":
            title = "Resolve the merge block by block (discussions resolve)"
            command = types.Command(title, RESOLVE, arguments=[uri])
            actions.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[d],
                    command=command,
                )
            )
            continue
        else:
            continue
        actions.append(
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[d],
                is_preferred=True,
                edit=document_edit(uri, version, [edit]),
            )
        )
    return actions


def document_edit(
    uri: str, version: int | None, edits: list[types.TextEdit]
) -> types.WorkspaceEdit:
    """A workspace edit of one document, valid only at `version` (the client refuses it
    when the user has typed since)."""
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri, version),
                edits=list(edits),
            )
        ]
    )


def _kept(
    was: dict[int, tuple[types.Diagnostic, dict[str, Any] | None]], d: types.Diagnostic
) -> tuple[types.Diagnostic, dict[str, Any] | None]:
    """`d`'s entry in `was` (`Shown.encoded`), or a new one."""
    entry = was.get(id(d))
    return entry if entry is not None and entry[0] is d else (d, None)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)
