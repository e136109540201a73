"""A test editor: a language client driving `python -m discussions lsp` over stdio, that keeps
its own copy of each open document and applies the edits the server asks for as an editor
does (refusing one made for an older version)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient
from pytest_lsp.client import make_test_lsp_client

TIMEOUT = 30.0


class Editor:
    """The client plus the documents it holds (text and version by URI)."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.statuses: list[dict[str, Any]] = []
        self.edits: list[types.ApplyWorkspaceEditParams] = []

    def open(self, path: Path) -> str:
        uri = from_fs_path(str(path)) or ""
        text = path.read_text(encoding="utf-8")
        self.texts[uri], self.versions[uri] = text, 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "markdown", 1, text))
        )
        return uri

    def type(self, uri: str, text: str) -> None:
        """Replace the whole buffer with `text` (unsaved)."""
        self.texts[uri] = text
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(self.versions[uri], uri),
                [types.TextDocumentContentChangeWholeDocument(text)],
            )
        )

    def save(self, uri: str, path: Path) -> None:
        path.write_text(self.texts[uri], encoding="utf-8")
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri))
        )

    def apply(self, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        self.edits.append(params)
        for change in params.edit.document_changes or []:
            assert isinstance(change, types.TextDocumentEdit)
            uri = change.text_document.uri
            if change.text_document.version != self.versions[uri]:
                return types.ApplyWorkspaceEditResult(False, "the document changed")
            text = self.texts[uri]
            for edit in change.edits:
                assert isinstance(edit, types.TextEdit)
                text = apply_edit(text, edit)
            self.type(uri, text)
        return types.ApplyWorkspaceEditResult(True)

    async def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """The diagnostics the server publishes next for `uri`."""
        while True:
            params = await asyncio.wait_for(
                self.client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS),
                TIMEOUT,
            )
            if params.uri == uri:
                return list(params.diagnostics)


def apply_edit(text: str, edit: types.TextEdit) -> str:
    lines = text.split("\n")

    def offset(p: types.Position) -> int:
        return sum(len(line) + 1 for line in lines[: p.line]) + p.character

    start, end = offset(edit.range.start), offset(edit.range.end)
    return text[:start] + edit.new_text + text[end:]


@asynccontextmanager
async def editor(project: Path, *args: str) -> AsyncIterator[Editor]:
    """An editor with `project` open as its folder, its server started with `args`."""
    client = make_test_lsp_client()
    ed = Editor(client)

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply(
        _client: LanguageClient, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        return ed.apply(params)

    @client.feature("discussions/status")
    def status(_client: LanguageClient, params: Any) -> None:
        ed.statuses.append(_plain(params))

    await client.start_io(
        sys.executable, "-m", "discussions", "lsp", "--debounce", "0", *args, cwd=str(project)
    )
    try:
        await asyncio.wait_for(
            client.initialize_session(
                types.InitializeParams(
                    capabilities=types.ClientCapabilities(
                        window=types.WindowClientCapabilities(work_done_progress=True),
                        workspace=types.WorkspaceClientCapabilities(
                            apply_edit=True,
                            workspace_edit=types.WorkspaceEditClientCapabilities(
                                document_changes=True
                            ),
                        ),
                    ),
                    root_uri=from_fs_path(str(project)),
                    workspace_folders=[
                        types.WorkspaceFolder(from_fs_path(str(project)) or "", "project")
                    ],
                )
            ),
            TIMEOUT,
        )
        yield ed
    finally:
        await asyncio.wait_for(client.shutdown_session(), TIMEOUT)


def _plain(value: Any) -> Any:
    """A notification's parameters as dicts and lists (pygls hands the parameters of one it
    does not know over as named tuples)."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _request(params: Any, ident: int | str = 1, method: str = "initialize") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}).encode()


def _framed(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def _message(stream: asyncio.StreamReader) -> bytes:
    """One message (header and body) as the server wrote it."""
    header = await stream.readuntil(b"\r\n\r\n")
    length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
    return header + await stream.readexactly(length)
