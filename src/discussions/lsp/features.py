"""The protocol's requests and notifications, each answered by one small function; `build`
makes a server with all of them. Each answer's module is imported when first asked for."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from .diagnostics import quick_fixes
from .server import DiscussionsServer
from .workflow import register_commands, session_actions


def build(provider: str | None = None, debounce: float | None = None) -> DiscussionsServer:
    """A server with every feature; `provider` answers "Ask the mentioned participants now"
    (default: each participant's own), `debounce` the seconds of quiet before checking."""
    server = (
        DiscussionsServer(provider) if debounce is None else DiscussionsServer(provider, debounce)
    )
    _documents(server)
    _language(server)
    _navigation(server)
    _actions(server)
    register_commands(server)
    return server


def _documents(server: DiscussionsServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: DiscussionsServer, params: types.InitializeParams) -> None:
        options = params.initialization_options or {}
        if isinstance(options, dict):
            ls.provider = options.get("provider") or ls.provider
            if isinstance(options.get("debounce"), int | float):
                ls.debounce = float(options["debounce"])
        folders = params.workspace_folders or []
        root = Path(str(params.root_path)) if params.root_path else None
        if folders:
            from pygls.uris import to_fs_path

            root = Path(to_fs_path(folders[0].uri) or ".")
        ls.start_in(str(root) if root else None)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: DiscussionsServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.refresh(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: DiscussionsServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.later(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: DiscussionsServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.refresh(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DiscussionsServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)


def _snippets(ls: DiscussionsServer) -> bool:
    """Whether the client takes snippets in completions."""
    document = ls.client_capabilities.text_document
    completion = document.completion if document else None
    item = completion.completion_item if completion else None
    return bool(item and item.snippet_support)


def _language(server: DiscussionsServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=["@", ":", " "]),
    )
    def completion(
        ls: DiscussionsServer, params: types.CompletionParams
    ) -> types.CompletionList | None:
        uri = params.text_document.uri
        b = ls.buffer(uri)
        if not b.is_discussion:
            return None
        at = ls.document(uri).position_from_client_units(params.position)
        from .completion import complete

        items = complete(b, at.line, at.character, ls.author, _snippets(ls))
        return types.CompletionList(is_incomplete=False, items=items)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: DiscussionsServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        b = ls.buffer(uri)
        at = ls.document(uri).position_from_client_units(params.position)
        from .hover import hover

        return hover(b, at.line, at.character) if b.is_discussion else None


def _navigation(server: DiscussionsServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(
        ls: DiscussionsServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol]:
        from .symbols import document_symbols

        b = ls.buffer(params.text_document.uri)
        return document_symbols(b) if b.is_discussion else []

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    def references(ls: DiscussionsServer, params: types.ReferenceParams) -> list[types.Location]:
        from .symbols import answers

        uri = params.text_document.uri
        return answers(ls.buffer(uri), uri, params.position.line)

    @server.feature(types.WORKSPACE_SYMBOL)
    def folder_symbols(
        ls: DiscussionsServer, params: types.WorkspaceSymbolParams
    ) -> list[types.WorkspaceSymbol]:
        from .symbols import workspace_symbols

        return workspace_symbols(ls.ws, params.query)


def _actions(server: DiscussionsServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Source]
        ),
    )
    def code_actions(
        ls: DiscussionsServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        uri = params.text_document.uri
        b = ls.buffer(uri)
        if not b.is_discussion:
            return []
        doc = ls.document(uri)
        version = doc.version

        actions = quick_fixes(uri, version, b, params.range)
        return actions + session_actions(uri, version, b, ls.author, doc.position_codec)
