"""The language server: one `DiscussionsServer` per editor session, over stdio.

Documents are checked on open and save at once, and after a pause in typing (`debounce`) on
change. Commands that make the engine write (ask the mentioned participants, advance the
phase) refuse while the buffer differs from the saved file, so an editor's unsaved text is never
lost; what the engine appended is then brought into the buffer as an edit valid only at the
version it was made for. What answers a request is imported when first asked for, so the
server is ready (`initialized`) before the discussion machinery has loaded."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import default_converter
from pygls.workspace import TextDocument

from .. import __version__
from ..derive.rules import COLLECTOR_PAUSE, remember_comments
from ..errors import DiscussionsError
from ..model import storage
from .diagnostics import Shown
from .early import enter
from .edits import catch_up_edit
from .status import STATUS_METHOD, status_params

if TYPE_CHECKING:
    from cattrs import Converter

    from ..ops.service import DiscussionTools, TurnJob
    from ..settings.workspace import Workspace
    from .buffer import Buffer

DEBOUNCE = 0.15
"""Seconds of quiet after a change before the document is checked again."""


class DiscussionsServer(LanguageServer):
    """The server's state: the workspace, the last analysis of each open document, the turns
    under way and their progress tokens."""

    def __init__(self, provider: str | None = None, debounce: float = DEBOUNCE) -> None:
        super().__init__("discussions", __version__, converter_factory=self.make_converter)
        remember_comments()  # an editor derives the same file on every key: re-read what changed
        self.provider = provider
        self.debounce = debounce
        self.buffers: dict[str, Buffer] = {}
        self.shown: dict[str, Shown] = {}
        """The diagnostics last published for each open document (`diagnostics.Shown`)."""
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._ws: Workspace | None = None
        self._tools: DiscussionTools | None = None
        self._author: str | None = None
        self.tokens: dict[str, str] = {}
        """The progress token of the turn under way in each file (by resolved path)."""
        self.loop: asyncio.AbstractEventLoop | None = None

    def make_converter(self) -> Converter:
        """pygls's converter, but a diagnostic published before (`diagnostics.Shown`) is
        unstructured once, not again for each version: most of a long file's are."""
        converter: Converter = default_converter()  # type: ignore[no-untyped-call]
        make = converter.get_unstructure_hook(types.Diagnostic)

        def unstructure(d: types.Diagnostic) -> dict[str, Any]:
            for shown in self.shown.values():
                found = shown.encoding(d, make)
                if found is not None:
                    return found
            result: dict[str, Any] = make(d)
            return result

        converter.register_unstructure_hook(types.Diagnostic, unstructure)
        return converter

    # -- what the features share ---------------------------------------------------------

    def start_in(self, root: str | None) -> None:
        """Work in the project at `root` (the editor's folder): its settings and personas;
        a folder that cannot be entered leaves the server where it started (``initialize``
        never fails: its answer may have been sent already, see `handshake`)."""
        enter(root)
        self._ws = None

    @property
    def ws(self) -> Workspace:
        if self._ws is None:
            from ..settings.workspace import Workspace

            self._ws = Workspace.discover()
        return self._ws

    @property
    def tools(self) -> DiscussionTools:
        if self._tools is None:
            from ..ops.service import DiscussionTools

            self._tools = DiscussionTools(self.ws)
            self._tools.observe(self._heard)
        return self._tools

    @property
    def author(self) -> str:
        if self._author is None:
            from ..settings.config import default_author

            self._author = default_author()
        return self._author

    def document(self, uri: str) -> TextDocument:
        """The document at `uri`: the editor's text when it opened it, else the file on disk,
        read only when it is a regular file (`storage.read_bytes` opens without waiting and
        refuses a FIFO or a device: pygls would wait on a FIFO for a writer, forever, and read
        /dev/zero without end). A refusal is the request's error."""
        opened: TextDocument | None = self.workspace.text_documents.get(unquote(uri))
        if opened is not None:
            return opened
        doc = self.workspace.get_text_document(uri)
        if doc.path is None:
            return doc
        text = storage.read_bytes(Path(doc.path)).decode("utf-8", errors="replace")
        return TextDocument(uri, text, position_codec=self.workspace.position_codec)

    def buffer(self, uri: str) -> Buffer:
        """The analysis of the document's current text (made again when the text changed,
        from the previous analysis: parsed again from the comment the change starts in)."""
        from .buffer import analyse

        doc = self.document(uri)
        b = self.buffers.get(uri)
        if b is None or b.text != doc.source:
            b = analyse(self.ws, Path(doc.path), doc.source, b)
            self.buffers[uri] = b
        return b

    def refresh(self, uri: str) -> None:
        """Check the document now: the status notification, then the diagnostics (so a
        client that has the diagnostics of a version has its status too)."""
        self._timers.pop(uri, None)
        with COLLECTOR_PAUSE:  # a pass over the long-lived analyses costs more than the check
            status, params = self.publication(uri)
            if status is not None:
                self.protocol.notify(STATUS_METHOD, status)
            self.text_document_publish_diagnostics(params)

    def publication(self, uri: str) -> tuple[dict[str, Any] | None, types.PublishDiagnosticsParams]:
        """What `refresh` sends for the document's current text: its status (None for a
        file that is not a discussion) and its diagnostics, in the client's units."""
        doc = self.document(uri)
        try:
            b = self.buffer(uri)
        except DiscussionsError as exc:  # the project's settings cannot be read
            found = [_whole_file(str(exc))]
            return None, types.PublishDiagnosticsParams(uri, found, doc.version)
        if not b.is_discussion:
            return None, types.PublishDiagnosticsParams(uri, [], doc.version)
        shown = self.shown.setdefault(uri, Shown(doc.position_codec))
        found = shown.of(b)
        return status_params(uri, b), types.PublishDiagnosticsParams(uri, found, doc.version)

    def later(self, uri: str) -> None:
        """Check the document after `debounce` seconds without another change."""
        old = self._timers.pop(uri, None)
        if old is not None:
            old.cancel()
        if self.debounce <= 0:
            self.refresh(uri)
            return
        loop = asyncio.get_running_loop()
        self._timers[uri] = loop.call_later(self.debounce, self.refresh, uri)

    def forget(self, uri: str) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self.buffers.pop(uri, None)
        self.shown.pop(uri, None)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )

    def say(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    # -- engine writes -------------------------------------------------------------------

    def refusal(self, uri: str) -> str | None:
        """Why the engine may not write to the document's file now, or None."""
        from .buffer import is_dirty

        doc = self.document(uri)
        if not self.buffer(uri).is_discussion:
            return f"{Path(doc.path).name} is not a discussion"
        if is_dirty(Path(doc.path), doc.source):
            return (
                f"{Path(doc.path).name} has unsaved changes: save it first, then try again "
                "(the engine appends to the saved file, and your text must not be lost)"
            )
        return None

    async def catch_up(self, uri: str, before: str) -> bool:
        """Bring what the engine appended into the buffer, if it still holds `before` (the
        file as it was saved); never over text typed since. Returns whether it asked."""
        doc = self.document(uri)
        try:
            after = storage.read_bytes(Path(doc.path)).decode("utf-8", errors="replace")
        except DiscussionsError:
            return False
        if doc.source == after:
            return False
        if doc.source != before:
            self.say(
                f"{Path(doc.path).name} changed on disk while you typed; your text is kept: "
                "compare it with the file and merge by hand",
                types.MessageType.Warning,
            )
            return False
        edit = catch_up_edit(uri, doc.version, before, after, doc.position_codec)
        label = "discussions: what the engine appended"
        await self.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit, label))
        return True

    def _heard(self, job: TurnJob, step: str, data: dict[str, Any]) -> None:
        """A step of a turn (in the turn's thread): passed to the event loop as progress."""
        token = self.tokens.get(str(job.path))
        if token is None or self.loop is None:
            return
        message = progress_message(step, data)
        if message:
            report = types.WorkDoneProgressReport(message=message)
            self.loop.call_soon_threadsafe(self.work_done_progress.report, token, report)


def progress_message(step: str, data: dict[str, Any]) -> str:
    """One line for a step of a turn (`TurnJob` observer steps), "" for none."""
    name = data.get("name") or data.get("participant") or ""
    if step == "answer-start":
        return f"{name} is answering"
    if step == "chunk":
        tail = " ".join(str(data.get("text", "")).split())[-60:]
        return f"{name}: {tail}" if tail else ""
    if step == "attempt-failed":
        return f"{name}: {data.get('message', 'failed')}; trying the next provider"
    if step == "answer":
        error = data.get("error")
        return f"{name}: {data['status']}" + (f" ({error})" if error else "")
    return ""


def _whole_file(message: str) -> types.Diagnostic:
    """A problem of the whole file, shown on its first line (as `check` shows it on line 0)."""
    at = types.Range(types.Position(0, 0), types.Position(0, 0))
    return types.Diagnostic(at, message, types.DiagnosticSeverity.Error, source="discussions")
