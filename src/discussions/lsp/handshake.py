"""The ``initialize`` request answered before pygls is loaded (importing it and its protocol
types takes most of a second), and the bytes pygls is handed afterwards.

An editor starts ``discussions lsp`` and sends ``initialize`` first; `open_connection` reads
that one message from standard input (its header a byte at a time, then exactly its body, so
nothing past it leaves the pipe, and by the rules of pygls's own reader), answers it at once
when it is a request whose answer this module knows (the same bytes pygls writes), and keeps
what it read so pygls is given it too: pygls then sets up its workspace from the same
request, and its own answer (which the editor must not see twice) is compared with the one
sent (`takeover`). Anything else is left to pygls unanswered, as before.

The answer is pygls's for the features `features.build` registers: only the position
encoding depends on the editor. ``tests/lsp/test_handshake.py`` compares it with pygls's own.

    opening = open_connection(__version__)   # before importing pygls
    opening.raw, opening.answer              # replay to pygls; the bytes sent, or None
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from .framing import MAX_HEADER, declared_length

NAME = "discussions"
COMMANDS = (
    "discussions.ask",
    "discussions.comment",
    "discussions.advance",
    "discussions.resolve",
    "discussions.insertVote",
    "discussions.status",
)
"""The commands the server registers, in the order pygls lists them."""
ENCODINGS = ("utf-8", "utf-16", "utf-32")
"""The position encodings pygls can use; an editor preferring none of them gets UTF-16."""
TRACE = (None, "off", "messages", "verbose")


def capabilities(encoding: str, client_saves: tuple[str, ...] = ()) -> dict[str, Any]:
    """The server's capabilities as pygls computes them for the registered features, for an
    editor that says whether it sends each of `client_saves` (``willSave``,
    ``willSaveWaitUntil``): pygls then states that the server wants none of them."""
    sync: dict[str, Any] = {"openClose": True, "change": 2}
    sync.update((key, False) for key in client_saves)
    sync["save"] = True
    return {
        "positionEncoding": encoding,
        "textDocumentSync": sync,
        "completionProvider": {"triggerCharacters": ["@", ":", " "]},
        "hoverProvider": True,
        "referencesProvider": True,
        "documentSymbolProvider": True,
        "codeActionProvider": {"codeActionKinds": ["quickfix", "source"]},
        "workspaceSymbolProvider": {"resolveProvider": False},
        "executeCommandProvider": {"commands": list(COMMANDS)},
        "workspace": {
            "workspaceFolders": {"supported": True, "changeNotifications": True},
            "fileOperations": {},
        },
    }


@dataclass(slots=True)
class Opening:
    """What was read of the editor's first message, and the answer already written for it
    (None: pygls answers it)."""

    raw: bytes
    body: bytes = b""
    answer: bytes | None = None
    ident: int | str | None = None
    early: list[bytes] = field(default_factory=list)
    """The notifications sent before pygls was loaded (`early`): pygls's own, when the same,
    are held back."""
    analysed: dict[str, Any] = field(default_factory=dict)
    """The analysis (`buffer.Buffer`) behind them, by document URI: the server starts from
    it rather than checking the document again."""


def open_connection(version: str, fd_in: int = 0, fd_out: int = 1) -> Opening:
    """Read the editor's first message from `fd_in`; answer it on `fd_out` when it is an
    ``initialize`` request `initialize_answer` can answer. `version` is the server's."""
    raw, body = read_message(fd_in)
    found = initialize_answer(body, version) if body is not None else None
    if body is None or found is None:
        return Opening(raw)
    ident, data = found
    write_all(fd_out, data)
    return Opening(raw, body, data, ident)


def write_all(fd: int, data: bytes) -> None:
    """Write all of `data` to `fd`."""
    while data:
        data = data[os.write(fd, data) :]


def read_message(fd: int) -> tuple[bytes, bytes | None]:
    """The bytes of one message read from `fd` as `framing.Framed` reads it (header lines
    until a blank one, a ``Content-Length`` among them, then that many bytes), and its body.
    None when the header block has no usable length (the body is then left unread: the
    framing answers it), or the input ended."""
    raw = bytearray()
    length: int | None = None
    while len(raw) < MAX_HEADER:
        line = _read_line(fd, MAX_HEADER - len(raw))
        raw += line
        if not line.endswith(b"\n"):
            return bytes(raw), None
        if length is None and line.lower().startswith(b"content-length:"):
            length = declared_length(line)
            if length is None:
                return bytes(raw), None
        if not line.strip() and raw.strip():
            if length is None:
                return bytes(raw), None
            body = _read_exactly(fd, length)
            raw += body
            return bytes(raw), body if len(body) == length else None
    return bytes(raw), None


def _read_line(fd: int, limit: int) -> bytes:
    got = bytearray()
    while len(got) < limit:
        byte = os.read(fd, 1)
        if not byte:
            break
        got += byte
        if byte == b"\n":
            break
    return bytes(got)


def _read_exactly(fd: int, n: int) -> bytes:
    got = bytearray()
    while len(got) < n:
        chunk = os.read(fd, n - len(got))
        if not chunk:
            break
        got += chunk
    return bytes(got)


def initialize_answer(body: bytes, version: str) -> tuple[int | str, bytes] | None:
    """The request's id and pygls's response to `body` (header and JSON, byte for byte) when
    it is an ``initialize`` request with parameters of the known shape; None otherwise."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    ident = message.get("id")
    if message.get("method") != "initialize" or not _is_id(ident):
        return None
    params = message.get("params")
    if not isinstance(params, dict) or not _plain_params(params):
        return None
    result = {
        "capabilities": capabilities(position_encoding(params), _client_saves(params)),
        "serverInfo": {"name": NAME, "version": version},
    }
    text = json.dumps({"id": ident, "jsonrpc": "2.0", "result": result})
    header = (
        f"Content-Length: {len(text)}\r\n"
        "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
    )
    return ident, (header + text).encode("utf-8")


def _is_id(value: object) -> TypeGuard[int | str]:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def position_encoding(params: dict[str, Any]) -> str:
    """The first of the editor's position encodings pygls supports, else UTF-16."""
    general = params["capabilities"].get("general") or {}
    for wanted in general.get("positionEncodings") or ():
        if wanted in ENCODINGS:
            return str(wanted)
    return "utf-16"


def _client_saves(params: dict[str, Any]) -> tuple[str, ...]:
    """Which of ``willSave`` and ``willSaveWaitUntil`` the editor's synchronization
    capabilities state (any value but null)."""
    document = params["capabilities"].get("textDocument") or {}
    sync = (document.get("synchronization") if isinstance(document, dict) else None) or {}
    if not isinstance(sync, dict):
        return ()
    return tuple(key for key in ("willSave", "willSaveWaitUntil") if sync.get(key) is not None)


def _plain_params(params: dict[str, Any]) -> bool:
    """Whether `params` has the shape ``InitializeParams`` must have for the fields this
    module can check: the top-level ones and the position encodings. (Deeper client
    capabilities are pygls's to read; `takeover` stops the server if it cannot.)"""
    optional_str = ("rootUri", "rootPath", "locale")
    if any(params.get(k) is not None and not isinstance(params[k], str) for k in optional_str):
        return False
    pid = params.get("processId")
    if pid is not None and not _is_int(pid):
        return False
    token = params.get("workDoneToken")
    if token is not None and not _is_id(token):
        return False
    if params.get("trace") not in TRACE or not _client_info(params.get("clientInfo")):
        return False
    if not _folders(params.get("workspaceFolders")):
        return False
    caps = params.get("capabilities")
    if not isinstance(caps, dict):
        return False
    general = caps.get("general")
    if general is None:
        return True
    if not isinstance(general, dict):
        return False
    encodings = general.get("positionEncodings")
    return encodings is None or (
        isinstance(encodings, list) and all(isinstance(e, str) for e in encodings)
    )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _client_info(info: object) -> bool:
    if info is None:
        return True
    return (
        isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and (info.get("version") is None or isinstance(info["version"], str))
    )


def _folders(folders: object) -> bool:
    if folders is None:
        return True
    return isinstance(folders, list) and all(
        isinstance(f, dict) and isinstance(f.get("uri"), str) and isinstance(f.get("name"), str)
        for f in folders
    )
