"""MCP's ``initialize`` handshake answered before the SDK is loaded (it takes most of a second
to import), and what the SDK is handed afterwards.

A client starts ``discussions mcp`` and sends ``initialize`` first; `open_connection` reads
that one line from standard input (a byte at a time, so nothing past it leaves the pipe),
answers it at once when it is a plain handshake request this module can answer exactly as
the SDK would, and returns the line so the SDK is given it too: the SDK then sets up its
connection from the same request, and its own answer (which the client must not see twice)
is compared with the one sent (`server.py`). Anything else (another first message, a protocol
version or a parameter this module does not know) is left to the SDK unanswered, as before.

    opening = open_connection(__version__)   # before importing the SDK
    opening.line, opening.answer             # replay to the SDK; what was sent, or None
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

NAME = "discussions"
INSTRUCTIONS = (
    "Structured discussions between AI personas and humans, one markdown file each. "
    "list_discussions finds them; discussion_status and read_discussion read one; "
    "handoff gives a decided one's hand-off to implement; "
    "add_comment writes a person's comment (with an optional READY/CHANGES/REJECT vote); "
    "start_turn asks AI participants in the background and turn_result collects the outcome."
)
CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
"""What the server offers: the SDK's answer for its registered tools, resources and prompts."""
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The protocol versions negotiated by ``initialize``, oldest first (the SDK's
``HANDSHAKE_PROTOCOL_VERSIONS``); a client asking for another gets the newest."""
MAX_LINE = 1 << 20
"""Longest first line answered before the SDK is loaded; a longer one is still read whole (the
SDK is given it as one line, as it would have read it) and left to the SDK to answer."""

_OBJECT: dict[str, Any] = {}
_CLIENT_CAPABILITIES: dict[str, Any] = {
    "experimental": "objects",
    "extensions": "objects",
    "roots": {"listChanged": bool},
    "sampling": {"context": _OBJECT, "tools": _OBJECT},
    "elicitation": {"form": _OBJECT, "url": _OBJECT},
    "tasks": {
        "list": _OBJECT,
        "cancel": _OBJECT,
        "requests": {"sampling": {"createMessage": _OBJECT}, "elicitation": {"create": _OBJECT}},
    },
}
"""The shape of ``ClientCapabilities`` (the SDK ignores keys it does not know)."""


@dataclass(slots=True)
class Opening:
    """The first line a client sent, and the answer already written for it (None: the SDK
    answers it)."""

    line: bytes
    answer: dict[str, Any] | None = None


def open_connection(version: str, fd_in: int = 0, fd_out: int = 1) -> Opening:
    """Read the client's first line from `fd_in`; answer it on `fd_out` when it is an
    ``initialize`` request `initialize_answer` can answer. `version` is the server's."""
    line = read_line(fd_in)
    answer = initialize_answer(line, version) if len(line) <= MAX_LINE else None
    if answer is not None:
        data = (json.dumps(answer, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        while data:
            data = data[os.write(fd_out, data) :]
    return Opening(line, answer)


def read_line(fd: int) -> bytes:
    """One line from `fd` (with its newline; without at the end of input), read a byte at a
    time so that what follows stays unread for the SDK."""
    got = bytearray()
    while True:
        byte = os.read(fd, 1)
        if not byte:
            break
        got += byte
        if byte == b"\n":
            break
    return bytes(got)


def initialize_answer(line: bytes, version: str) -> dict[str, Any] | None:
    """The JSON-RPC response to `line` when it is an ``initialize`` request whose parameters
    the SDK accepts for certain; None otherwise (the SDK answers)."""
    message = _read_as_the_sdk(line)
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    ident = message.get("id")
    if (
        message.get("method") != "initialize"
        or not _is_id(ident)
        or set(message) - {"jsonrpc", "id", "method", "params"}
    ):
        return None
    params = message.get("params")
    if not isinstance(params, dict) or not _plain_params(params):
        return None
    requested = params["protocolVersion"]
    negotiated = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    result = {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": negotiated,
        "serverInfo": {"name": NAME, "version": version},
    }
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def _read_as_the_sdk(line: bytes) -> Any:
    """`line` as JSON the way the SDK's stdio reader takes it (UTF-8, bad bytes replaced; no
    byte-order mark, no other encoding, no lone surrogate), or None where it would not."""
    try:
        message = json.loads(line.decode("utf-8", errors="replace"))
        json.dumps(message, ensure_ascii=False).encode("utf-8")  # a lone surrogate fails
    except ValueError:  # UnicodeEncodeError is one
        return None
    return message


def _is_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _plain_params(params: dict[str, Any]) -> bool:
    """`params` of ``initialize`` as the SDK validates them: a protocol version, the client's
    name and version, capabilities of the known shape; no ``_meta``, no icons."""
    if "_meta" in params:
        return False
    info = params.get("clientInfo")
    if not isinstance(params.get("protocolVersion"), str) or not isinstance(info, dict):
        return False
    if not all(isinstance(info.get(key), str) for key in ("name", "version")):
        return False
    optional = ("title", "description", "websiteUrl")
    if "icons" in info or any(
        info.get(key) is not None and not isinstance(info[key], str) for key in optional
    ):
        return False
    capabilities = params.get("capabilities")
    return isinstance(capabilities, dict) and _fits(capabilities, _CLIENT_CAPABILITIES)


def _fits(value: object, shape: object) -> bool:
    """Whether `value` (JSON) validates as `shape`: `bool`, ``"objects"`` (a map of
    objects), or a dict of the known keys' shapes (others ignored); None passes for all."""
    if value is None:
        return True
    if shape is bool:
        return isinstance(value, bool)
    if not isinstance(value, dict):
        return False
    if shape == "objects":
        return all(isinstance(v, dict) for v in value.values())
    assert isinstance(shape, dict)
    return all(_fits(value[key], sub) for key, sub in shape.items() if key in value)
