"""The real server given what an editor should never send, over stdio: a ``file://`` URI to a
FIFO or a device (reading it would block the server, or never end), a ``Content-Length`` that
is absurd or not a number. Each gets an answer, and the server keeps serving."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from .support import TIMEOUT


def _framed(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _request(ident: int, method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}


def _hover(ident: int, uri: str) -> bytes:
    where = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}
    return _framed(_request(ident, "textDocument/hover", where))


INITIALIZE = _framed(_request(1, "initialize", {"processId": None, "capabilities": {}}))
INITIALIZED = _framed({"jsonrpc": "2.0", "method": "initialized", "params": {}})
SHUTDOWN = _framed(_request(99, "shutdown", None))


async def _read(stream: asyncio.StreamReader) -> dict[str, Any]:
    header = await stream.readuntil(b"\r\n\r\n")
    length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
    message: dict[str, Any] = json.loads(await stream.readexactly(length))
    return message


async def _converse(project: Path, sent: bytes) -> list[dict[str, Any]]:
    """Start the real server in `project`, send `sent`, and return every message it writes
    up to its answer to the ``shutdown`` request (id 99); the server is killed after."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "discussions", "lsp", "--debounce", "0",
        cwd=str(project), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, limit=1 << 20,
    )  # fmt: skip
    assert proc.stdin and proc.stdout
    proc.stdin.write(sent)
    got: list[dict[str, Any]] = []
    try:
        while not got or got[-1].get("id") != 99:
            got.append(await asyncio.wait_for(_read(proc.stdout), TIMEOUT))
    finally:
        proc.kill()
        await proc.wait()
    return got


def _answers(got: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    """The responses by request id (notifications left out)."""
    return {m.get("id"): m for m in got if "method" not in m}


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_uri_to_a_fifo_or_a_device_is_answered_and_never_blocks(
    isolated: Path, kind: str
) -> None:
    """Hover on a document the editor never opened: the server reads it from disk, which for
    a FIFO waits for a writer forever and for /dev/zero never ends."""
    if kind == "fifo":
        target = isolated / "discussions" / "pipe.md"
        target.parent.mkdir(exist_ok=True)
        os.mkfifo(target)
    else:
        target = Path("/dev/zero")
    (isolated / "discussions").mkdir(exist_ok=True)
    real = isolated / "discussions" / "real.md"
    real.write_text("# Not a discussion\n", encoding="utf-8")
    symbols = _framed(_request(4, "workspace/symbol", {"query": ""}))  # lists the folder
    sent = INITIALIZE + INITIALIZED + _hover(2, target.as_uri()) + _hover(3, real.as_uri())
    got = asyncio.run(_converse(isolated, sent + symbols + SHUTDOWN))
    answers = _answers(got)
    assert "error" in answers[2] and "regular file" in answers[2]["error"]["message"]
    assert answers[3] == {"jsonrpc": "2.0", "id": 3, "result": None}  # still serving
    assert answers[4]["result"] == []
    assert "result" in answers[99]


@pytest.mark.slow
def test_a_command_on_an_open_fifo_never_blocks(isolated: Path) -> None:
    """An editor that opened a FIFO as a discussion and asks to run a turn: whether the
    buffer differs from the saved file is asked of a regular file only."""
    pipe = isolated / "discussions" / "pipe.md"
    pipe.parent.mkdir(exist_ok=True)
    os.mkfifo(pipe)
    text = "<!-- DISCUSSION -->\n<!-- Title: Pipe -->\n\n# Pipe\n\n@architect what now?\n"
    item = {"uri": pipe.as_uri(), "languageId": "markdown", "version": 1, "text": text}
    opened = _framed(
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": item}}
    )
    ask = _framed(
        _request(2, "workspace/executeCommand", {"command": "discussions.ask", "arguments": [
            pipe.as_uri()
        ]})
    )  # fmt: skip
    got = asyncio.run(_converse(isolated, INITIALIZE + INITIALIZED + opened + ask + SHUTDOWN))
    assert 2 in _answers(got) and "result" in _answers(got)[99]


BAD_LENGTHS = {
    "absurd": b"Content-Length: 99999999999999999999\r\n",
    "huge digits": b"Content-Length: " + b"9" * 5000 + b"\r\n",
    "not a number": b"Content-Length: abc\r\n",
    "negative": b"Content-Length: -12\r\n",
    "zero": b"Content-Length: 0\r\n",
    "over the cap": b"Content-Length: %d\r\n" % (64 * 1024 * 1024 + 1),
}


@pytest.mark.slow
@pytest.mark.parametrize("where", ["first", "later"])
@pytest.mark.parametrize("bad", sorted(BAD_LENGTHS))
def test_a_bad_content_length_gets_an_error_and_the_server_goes_on(
    tmp_path: Path, bad: str, where: str
) -> None:
    body = json.dumps(_request(7, "textDocument/hover", {})).encode()
    broken = BAD_LENGTHS[bad] + b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + body
    if where == "first":
        sent = broken + INITIALIZE + INITIALIZED
    else:
        sent = INITIALIZE + INITIALIZED + broken
    got = asyncio.run(_converse(tmp_path, sent + SHUTDOWN))
    answers = _answers(got)
    error = answers[None]["error"]
    assert error["code"] == -32700 and "Content-Length" in error["message"]
    assert 7 not in answers  # its body was not taken for a message
    assert "result" in answers[1] and "result" in answers[99]
