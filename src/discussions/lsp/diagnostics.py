"""What `check` reports, as the protocol's diagnostics, and the quick fixes it knows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .early import SOURCE, problem_span

if TYPE_CHECKING:
    from ..ops.check import Problem
    from .buffer import Buffer


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
    out: list[types.Diagnostic] = []
    for p in b.problems:
        data = {"fix": p.fix} if p.fix else None
        out.append(
            types.Diagnostic(
                range=problem_range(b, p),
                message=p.message,
                severity=SEVERITY.get(p.severity, types.DiagnosticSeverity.Warning),
                source=SOURCE,
                code=p.code or None,
                data=data,
            )
        )
    return out


def quick_fixes(
    uri: str, version: int | None, b: Buffer, wanted: types.Range
) -> list[types.CodeAction]:
    """Fixes for the problems in `wanted`: a mistyped mention becomes the close alias, a
    ``Name:`` line gets its ``---`` separator, a merge-conflict line offers `RESOLVE`."""
    actions: list[types.CodeAction] = []
    for p, d in zip(b.problems, diagnostics(b), strict=True):
        if not _overlaps(d.range, wanted):
            continue
        if p.code == "mention-typo" and p.fix:
            title, edit = f"Change to {p.fix}", types.TextEdit(d.range, p.fix)
        elif p.code == "missing-separator":
            at = types.Position(p.line - 1, 0)
            title, edit = "Insert the `---` separator above", types.TextEdit(
                types.Range(at, at), "---\n\n"
            )
        elif p.code == "merge-conflict":
            title = "Resolve the merge block by block (discussions resolve)"
            command = types.Command(title, RESOLVE, arguments=[uri])
            actions.append(
                types.CodeAction(
                    title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[d],
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


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)
