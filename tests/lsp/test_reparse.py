"""The language server parses a buffer again only from the comment an edit is in
(`syntax.reparse`, `lsp.buffer.analyse` with the previous version): what it finds must be what
a parse of the whole text finds, edit after edit, wherever the edits fall."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import from_fs_path

from discussions.derive.rules import derive, derive_parsed
from discussions.lsp.buffer import analyse
from discussions.lsp.early import diagnostic
from discussions.lsp.features import build
from discussions.lsp.status import status_params
from discussions.settings.workspace import Workspace
from discussions.syntax.document import Document
from discussions.syntax.parse import parse_document
from discussions.syntax.reparse import reparse

from ..support.edits import HEAD, edited


def _ordered(doc: Document) -> Document:
    """`doc` with its warnings in line order, as `reparse` gives them."""
    doc.warnings = sorted(doc.warnings, key=lambda w: w.line)
    return doc


@settings(max_examples=300, deadline=None)
@given(edited())
def test_a_parse_from_the_edited_comment_is_the_whole_parse(versions: list[str]) -> None:
    doc = parse_document(versions[0])
    for before, after in zip(versions, versions[1:], strict=False):
        doc = reparse(doc, before, after)
        assert doc == _ordered(parse_document(after))


def test_an_edit_in_the_last_comment_parses_that_comment_alone() -> None:
    """The comments above an edit are the previous parse's own (not parsed again)."""
    text = HEAD + "".join(f"\n---\n\nName: Rob\n\nComment {i}\n" for i in range(5))
    old = parse_document(text)
    new = reparse(old, text, text + "more\n")
    assert new.comments[:4] == old.comments[:4]
    assert all(a is b for a, b in zip(new.comments[:4], old.comments[:4], strict=True))
    assert new.comments[4].body == "\nComment 4\nmore\n"


@settings(max_examples=60, deadline=None)
@given(edited())
def test_the_buffer_analysed_from_its_last_version_is_the_buffer_analysed_anew(
    versions: list[str],
) -> None:
    """State, problems and status of each version, as the server keeps them."""
    ws = Workspace.discover(Path.cwd())
    path = Path.cwd() / "discussions" / "cache.md"
    b = analyse(ws, path, versions[0])
    for text in versions[1:]:
        b = analyse(ws, path, text, b)
        fresh = analyse(ws, path, text)
        assert b.problems == fresh.problems
        assert b.is_discussion == fresh.is_discussion
        assert status_params("u", b) == status_params("u", fresh)
        state, whole = derive_parsed(b.document, text, ws, "cache"), derive(text, ws, "cache")
        whole.doc = _ordered(whole.doc)
        assert state == whole
        assert b.state == whole  # resumed from the last version's (`derive.readings`)


def test_published_diagnostics_remembered_between_versions_are_those_made_anew(
    isolated: Path,
) -> None:
    """`diagnostics.Shown` keeps a diagnostic whose line did not change, and the server's
    converter encodes it once: what is published is what a fresh check gives, as pygls
    encodes it, version after version (lines moved, lines edited, characters beyond the
    Basic Multilingual Plane counted in UTF-16, a problem of a whole line whose line grew)."""
    server = build(debounce=0)
    init = types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(isolated))
    )
    for handler, args, _ in server.protocol.lsp_initialize(init):
        handler(*args)
    path = isolated / "discussions" / "cache.md"
    uri = from_fs_path(str(path)) or ""
    text = HEAD + "".join(f"\n---\n\nName: AI-Security\n\n😀 @securty {i}\n" for i in range(4))
    server.workspace.put_text_document(types.TextDocumentItem(uri, "markdown", 1, text))
    edits = [
        (-1, "\n😀😀 @architekt\n"),
        (len(HEAD) + 30, "a line above\n"),
        (len(HEAD) + 30, "😀"),
        (len(text) - 3, "x"),
        (-1, "\n```py\n"),  # a fence never closed: a problem of its whole line
        (-2, "thon 😀"),  # that line longer
    ]
    for version, (where, typed) in enumerate([(0, ""), *edits], 1):
        at = where if where >= 0 else len(text) + 1 + where
        text = text[:at] + typed + text[at:]
        line, col = text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1)
        start = types.Position(line, len(text[at - col : at].encode("utf-16-le")) // 2)
        server.workspace.update_text_document(
            types.VersionedTextDocumentIdentifier(version, uri),
            types.TextDocumentContentChangePartial(range=types.Range(start, start), text=typed),
        )
        assert server.workspace.get_text_document(uri).source == text
        _, params = server.publication(uri)
        ours = server.make_converter().unstructure(params)
        assert ours == default_converter().unstructure(params)
        fresh = analyse(Workspace.discover(isolated), path, text)
        assert ours["diagnostics"] == [diagnostic(fresh, p, "utf-16") for p in fresh.problems]
        assert len(ours["diagnostics"]) >= 4
