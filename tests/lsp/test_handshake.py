"""The ``initialize`` answered before pygls loads: the same bytes pygls answers, in this
process and from the real server, and never a second answer."""

from __future__ import annotations

import asyncio
import json
import sys
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest

from discussions import __version__
from discussions.lsp.features import build
from discussions.lsp.handshake import initialize_answer
from discussions.lsp.takeover import Replay

from .support import TIMEOUT, _framed, _message, _request

CLIENTS: list[dict[str, Any]] = [
    {"processId": None, "rootUri": None, "capabilities": {}},
    {"capabilities": {}},
    {
        "processId": 4242,
        "clientInfo": {"name": "Neovim", "version": "0.11"},
        "locale": "en",
        "rootPath": "/tmp/x",
        "rootUri": "file:///tmp/x",
        "trace": "off",
        "workspaceFolders": [{"uri": "file:///tmp/x", "name": "x"}],
        "initializationOptions": {"provider": "echo", "debounce": 0.2},
        "capabilities": {
            "general": {"positionEncodings": ["utf-32", "utf-16"]},
            "notebookDocument": {"synchronization": {"dynamicRegistration": True}},
            "textDocument": {
                "synchronization": {"willSave": True, "willSaveWaitUntil": True},
                "rename": {"prepareSupport": True},
                "completion": {"completionItem": {"snippetSupport": True}},
            },
            "workspace": {
                "fileOperations": {"willCreate": True, "didRename": True},
                "workspaceFolders": True,
                "applyEdit": True,
            },
            "window": {"workDoneProgress": True},
            "experimental": {"anything": [1, 2]},
        },
    },
    {"processId": 1, "capabilities": {"general": {"positionEncodings": ["utf-8"]}}},
    {"capabilities": {"general": {"positionEncodings": ["utf-99", "utf-8"]}}},
    {"capabilities": {"general": {"positionEncodings": ["utf-99"]}}},
    {"capabilities": {"general": {"positionEncodings": None}}, "trace": "verbose"},
    {"capabilities": {"general": None}, "clientInfo": {"name": "x"}, "unknownKey": 1},
    {"capabilities": {"textDocument": {"synchronization": {"willSave": False}}}},
    {"capabilities": {"textDocument": {"synchronization": {"willSaveWaitUntil": 0}}}},
    {"capabilities": {"textDocument": {"synchronization": {"willSave": None}}}},
    {"capabilities": {"textDocument": {"synchronization": None}}},
    {"capabilities": {"textDocument": None, "workspace": None, "window": None}},
]
DECLINED: list[dict[str, Any]] = [
    {"processId": "x", "capabilities": {}},
    {"processId": 1.0, "capabilities": {}},
    {"trace": "bogus", "capabilities": {}},
    {"clientInfo": {"version": "1"}, "capabilities": {}},
    {"workspaceFolders": [{"uri": 5, "name": "x"}], "capabilities": {}},
    {"capabilities": {"general": 5}},
    {"capabilities": {"general": {"positionEncodings": [8]}}},
    {"rootUri": None},
]


def pygls_answer(body: bytes) -> list[bytes]:
    """What pygls itself writes for the request `body`, in this process."""

    class Collect:
        def __init__(self) -> None:
            self.out: list[bytes] = []

        def write(self, data: bytes) -> None:
            self.out.append(data)

        def close(self) -> None:
            pass

    server = build()
    writer = Collect()
    server.protocol.set_writer(writer)
    server.protocol.handle_message(json.loads(body, object_hook=server.protocol.structure_message))
    return writer.out


@pytest.mark.parametrize("params", CLIENTS)
@pytest.mark.parametrize("ident", [1, 0, "abc-ü"])
def test_the_early_answer_is_pygls_answer_byte_for_byte(
    params: dict[str, Any], ident: int | str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    body = _request(params, ident)
    early = initialize_answer(body, __version__)
    assert early is not None
    assert early == (ident, pygls_answer(body)[0])


@pytest.mark.parametrize("params", DECLINED)
def test_parameters_of_another_shape_are_left_to_pygls(params: dict[str, Any]) -> None:
    assert initialize_answer(_request(params), __version__) is None


def test_other_first_messages_are_left_to_pygls() -> None:
    assert initialize_answer(_request({}, method="shutdown"), __version__) is None
    assert initialize_answer(b'{"jsonrpc":"2.0","method":"initialize"}', __version__) is None
    assert initialize_answer(_request({"capabilities": {}}, True), __version__) is None
    assert initialize_answer(b"not json", __version__) is None


def test_the_replayed_bytes_come_first_then_the_pipe() -> None:
    inner = BytesIO(b"t: 2\r\n\r\n{}rest")
    replay = Replay(inner, b"Content-Length: 1\r\n\r\n1Conten")
    assert replay.readline() == b"Content-Length: 1\r\n"
    assert replay.readline() == b"\r\n"
    assert replay.read(1) == b"1"
    assert replay.readline() == b"Content: 2\r\n"
    assert replay.readline() == b"\r\n"
    assert replay.read(2) == b"{}"
    assert replay.read(10) == b"rest"


async def _session(project: Path, first: bytes) -> tuple[list[bytes], bytes, int]:
    """Start the real server, send `first`, `initialized`, then ``shutdown`` (id 99) and
    ``exit``; every message it wrote up to the shutdown's answer, its stderr and exit code."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "discussions",
        "lsp",
        "--debounce",
        "0",
        cwd=str(project),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin and proc.stdout and proc.stderr
    notify = json.dumps({"jsonrpc": "2.0", "method": "initialized", "params": {}}).encode()
    proc.stdin.write(_framed(first) + _framed(notify) + _framed(_request(None, 99, "shutdown")))
    got: list[bytes] = []
    try:
        while not got or b'"id": 99' not in got[-1]:
            got.append(await asyncio.wait_for(_message(proc.stdout), TIMEOUT))
    except asyncio.IncompleteReadError:
        pass
    exit_ = json.dumps({"jsonrpc": "2.0", "method": "exit"}).encode()
    if proc.returncode is None:
        proc.stdin.write(_framed(exit_))
        proc.stdin.close()
    err = await asyncio.wait_for(proc.stderr.read(), TIMEOUT)
    return got, err, await asyncio.wait_for(proc.wait(), TIMEOUT)


@pytest.mark.slow
def test_the_server_answers_initialize_once_with_pygls_answer(tmp_path: Path) -> None:
    body = _request(CLIENTS[2], 7)
    got, err, code = asyncio.run(_session(tmp_path, body))
    assert got[0] == pygls_answer(body)[0]
    assert [json.loads(m.split(b"\r\n\r\n")[1])["id"] for m in got] == [7, 99]
    assert b"otherwise than" not in err
    assert code == 0


@pytest.mark.slow
def test_an_initialize_left_to_pygls_is_answered_once_by_pygls(tmp_path: Path) -> None:
    body = _request({"processId": 1.0, "capabilities": {}}, 3)
    got, err, code = asyncio.run(_session(tmp_path, body))
    assert initialize_answer(body, __version__) is None
    assert [json.loads(m.split(b"\r\n\r\n")[1])["id"] for m in got] == [3, 99]
    assert code == 0


@pytest.mark.slow
def test_an_answered_initialize_pygls_cannot_read_stops_the_server(tmp_path: Path) -> None:
    body = _request({"capabilities": {"textDocument": 5}}, 5)
    got, err, code = asyncio.run(_session(tmp_path, body))
    assert [json.loads(m.split(b"\r\n\r\n")[1])["id"] for m in got] == [5]
    assert b"does not fit the protocol" in err
    assert code == 1
