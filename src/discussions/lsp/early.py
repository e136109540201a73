"""The first document's diagnostics, sent before pygls is loaded.

Importing pygls and its protocol types takes most of a second (``lsprotocol.types`` alone
builds some 570 attrs classes, compiling their methods), longer than a whole ``discussions
check``; an editor that opens a discussion waited for it before seeing anything. After the
``initialize`` answered early (`handshake`), `first_diagnostics` reads on while the editor's
messages are ones the server answers with nothing (``initialized``, a configuration), checks
the first document opened as the server does (`buffer.analyse`) and sends its
``discussions/status`` and ``publishDiagnostics`` at once. Everything read is kept in
`Opening.raw` for pygls, which then opens the document too; its own notifications for that
version, when they say the same, are held back (`takeover`): the editor is told once.

Imports nothing of pygls or lsprotocol: the numbers and shapes below are the protocol's, as
pygls writes them (``tests/lsp/test_early.py`` compares the two).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from ..errors import DiscussionsError
from .handshake import Opening, position_encoding, read_message, write_all

if TYPE_CHECKING:
    from ..ops.check import Problem
    from .buffer import Buffer

SOURCE = "discussions"
SEVERITY = {"error": 1, "warning": 2, "hint": 4}
"""The protocol's ``DiagnosticSeverity`` of each of `check`'s severities (else Warning)."""
QUIET = ("initialized", "workspace/didChangeConfiguration")
"""Notifications the server answers with nothing: read past while waiting for a document."""
DID_OPEN = "textDocument/didOpen"


def first_diagnostics(opening: Opening, fd_in: int = 0, fd_out: int = 1) -> None:
    """After an ``initialize`` answered early, read the editor's next messages from `fd_in`
    up to the first that is not `QUIET`; when it opens a document, write that document's
    status and diagnostics to `fd_out`. What was read is added to ``opening.raw``, what was
    written to ``opening.early``."""
    if opening.answer is None:
        return
    params = json.loads(opening.body)["params"]
    enter(_root(params))
    from . import buffer  # noqa: F401  (the check, loaded while the editor answers)

    while True:
        raw, body = read_message(fd_in)
        opening.raw += raw
        method, message = _notification(body)
        if method not in QUIET:
            break
    if method == DID_OPEN:
        sent = opened(message, position_encoding(params), opening.analysed)
        for data in sent:
            write_all(fd_out, data)
        opening.early.extend(sent)


def enter(root: str | None) -> None:
    """Work in the editor's folder `root` (its settings and personas); one that cannot be
    entered leaves the server where it started."""
    if root and Path(root).is_dir():
        try:
            os.chdir(root)
        except OSError:
            pass


def file_path(uri: object) -> str | None:
    """The path of a plain ``file:///...`` URI, as pygls's ``to_fs_path`` reads it; None for
    anything else (then pygls alone answers)."""
    if not isinstance(uri, str) or os.name != "posix":
        return None
    parts = urlparse(uri)
    if parts.scheme != "file" or parts.netloc:
        return None
    return unquote(parts.path) or None


def _root(params: dict[str, Any]) -> str | None:
    """The folder `features`' ``initialize`` enters: the first workspace folder, else the
    root path."""
    folders = params.get("workspaceFolders") or []
    if folders:
        return file_path(folders[0]["uri"]) or "."
    root = params.get("rootPath")
    return str(root) if root else None


def _notification(body: bytes | None) -> tuple[str | None, dict[str, Any]]:
    """The method and the message of a notification (no id); (None, {}) for anything else."""
    try:
        message = json.loads(body) if body is not None else None
    except ValueError:
        return None, {}
    if not isinstance(message, dict) or "id" in message:
        return None, {}
    method = message.get("method")
    return (method, message) if isinstance(method, str) else (None, {})


def opened(
    message: dict[str, Any], encoding: str, analysed: dict[str, Any] | None = None
) -> list[bytes]:
    """The notifications for a ``didOpen`` message, as `server.DiscussionsServer.refresh`
    sends them; none when the message is not of the usual shape or the project's settings
    cannot be read (pygls then answers it, with the whole-file problem). A failure of the
    check is said on standard error and left to pygls as well. The analysis goes into
    `analysed`, by URI."""
    document = (message.get("params") or {}).get("textDocument")
    if not isinstance(document, dict):
        return []
    uri, text, version = document.get("uri"), document.get("text"), document.get("version")
    path = file_path(uri)
    if path is None or not isinstance(text, str) or not isinstance(version, int):
        return []
    try:
        return _notifications(str(uri), Path(path), text, version, encoding, analysed)
    except Exception as exc:  # noqa: BLE001  (pygls reports it when it opens the document)
        print(f"discussions lsp: the first check failed: {exc}", file=sys.stderr, flush=True)
        return []


def _notifications(
    uri: str,
    path: Path,
    text: str,
    version: int,
    encoding: str,
    analysed: dict[str, Any] | None = None,
) -> list[bytes]:
    from ..derive.rules import remember_comments
    from ..settings.workspace import Workspace
    from .buffer import analyse
    from .status import STATUS_METHOD, status_params

    remember_comments()
    try:
        b = analyse(Workspace.discover(), path, text)
    except DiscussionsError:
        return []
    if analysed is not None:
        analysed[uri] = b
    found = [diagnostic(b, p, encoding) for p in b.problems] if b.is_discussion else []
    out = [notification(STATUS_METHOD, status_params(uri, b))] if b.is_discussion else []
    params = {"uri": uri, "diagnostics": found, "version": version}
    return [*out, notification("textDocument/publishDiagnostics", params)]


def notification(method: str, params: dict[str, Any]) -> bytes:
    """A notification, framed as pygls frames what it writes."""
    text = json.dumps({"params": params, "method": method, "jsonrpc": "2.0"})
    header = (
        f"Content-Length: {len(text)}\r\n"
        "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
    )
    return (header + text).encode("utf-8")


def problem_span(b: Buffer, p: Problem) -> tuple[int, int, int]:
    """Where `p` is, as a 0-based line and its start and end characters: its columns when it
    names part of a line, else the line's text (the first line for a problem of the whole
    file)."""
    number = max(p.line, 1)
    text = b.line(number)
    if p.column:
        return number - 1, p.column - 1, p.end_column - 1
    return number - 1, len(text) - len(text.lstrip()), len(text)


def diagnostic(b: Buffer, p: Problem, encoding: str) -> dict[str, Any]:
    """The protocol's ``Diagnostic`` for `p`, its characters counted in `encoding`."""
    line, start, end = problem_span(b, p)
    out: dict[str, Any] = {
        "range": {
            "start": _position(b, line, start, encoding),
            "end": _position(b, line, end, encoding),
        },
        "message": p.message,
        "severity": SEVERITY.get(p.severity, 2),
    }
    if p.code:
        out["code"] = p.code
    out["source"] = SOURCE
    if p.fix:
        out["data"] = {"fix": p.fix}
    return out


def _position(b: Buffer, line: int, character: int, encoding: str) -> dict[str, int]:
    """A position in the client's units, as pygls's position codec converts it (a line past
    the end becomes the start of the line after the last)."""
    if line >= len(b.lines):
        return {"line": len(b.lines), "character": 0}
    before = b.lines[line][:character]
    if before.isascii():  # one unit a character in every encoding: most lines
        return {"line": line, "character": len(before)}
    return {"line": line, "character": sum(_units(c, encoding) for c in before)}


def _units(char: str, encoding: str) -> int:
    point = ord(char)
    if encoding == "utf-32":
        return 1
    if encoding == "utf-16":
        return 2 if point > 0xFFFF else 1
    return 1 if point < 0x80 else 2 if point < 0x800 else 3 if point < 0x10000 else 4
