"""The first document's diagnostics sent before pygls is loaded (`discussions.lsp.early`):
what pygls itself would send, sent once, and sent while pygls cannot even be imported."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from discussions.lsp.early import opened
from discussions.lsp.features import build

from ..conftest import code, run
from .support import TIMEOUT, _framed, _message, _request

TEXT = "\nName: Rob\n\n😀 é — what do you think, @securty? And `@nobody`, @archtect.\n"


def _discussion(isolated: Path) -> Path:
    assert code(run("new", "Feature", "--participants", "security,architect")) == 0
    path = isolated / "discussions" / "feature.md"
    with path.open("a", encoding="utf-8") as f:
        f.write(TEXT)
    return path


def _initialize(root: Path, encoding: str) -> bytes:
    caps = {"general": {"positionEncodings": [encoding]}}
    return _request({"rootPath": str(root), "capabilities": caps}, 1)


def _did_open(path: Path, version: int = 1) -> dict[str, Any]:
    document = {
        "uri": path.as_uri(),
        "languageId": "markdown",
        "version": version,
        "text": path.read_text(encoding="utf-8"),
    }
    return {
        "jsonrpc": "2.0",
        "method": "textDocument/didOpen",
        "params": {"textDocument": document},
    }


def _bodies(messages: list[bytes]) -> list[Any]:
    return [json.loads(m.split(b"\r\n\r\n", 1)[1]) for m in messages]


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_the_early_notifications_are_what_pygls_sends(isolated: Path, encoding: str) -> None:
    path = _discussion(isolated)
    message = _did_open(path)

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
    for body in (_initialize(isolated, encoding), json.dumps(message).encode()):
        server.protocol.handle_message(
            json.loads(body, object_hook=server.protocol.structure_message)
        )
    early = opened(message, encoding)
    assert _bodies(early) == _bodies(writer.out[1:])
    published = _bodies(early)[-1]["params"]["diagnostics"]
    assert {d.get("code") for d in published} >= {"mention-typo"}


def test_the_server_starts_from_the_early_analysis(isolated: Path) -> None:
    """pygls opening the document the early path checked does not check it again (`serve`
    hands the analysis over): what it would send is the same, from the same analysis."""
    path = _discussion(isolated)
    message = _did_open(path)
    analysed: dict[str, Any] = {}
    early = opened(message, "utf-16", analysed)
    uri = message["params"]["textDocument"]["uri"]
    assert list(analysed) == [uri]

    sent: list[bytes] = []
    server = build()
    server.buffers.update(analysed)
    server.protocol.set_writer(type("W", (), {"write": lambda _, d: sent.append(d)})())
    for body in (_initialize(isolated, "utf-16"), json.dumps(message).encode()):
        server.protocol.handle_message(
            json.loads(body, object_hook=server.protocol.structure_message)
        )
    assert server.buffers[uri] is analysed[uri]
    assert _bodies(early) == _bodies(sent[1:])


GATE = '''\
"""lsprotocol, held until the test opens the gate (a FIFO) for writing and closes it."""
import os, sys
_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.environ["DISCUSSIONS_TEST_GATE"], "rb") as gate:
    gate.read()
sys.path.remove(_here)
del sys.modules["lsprotocol"]
import lsprotocol  # the real one, which the import system then keeps
'''


async def _until(stdout: asyncio.StreamReader, method: str, version: int) -> list[bytes]:
    """The messages read up to the notification `method` for document `version`."""
    got: list[bytes] = []
    while True:
        got.append(await asyncio.wait_for(_message(stdout), TIMEOUT))
        body = _bodies(got[-1:])[0]
        if body.get("method") == method and body["params"].get("version") == version:
            return got


async def _gated_session(project: Path, path: Path, gate: Path, shadow: Path) -> list[bytes]:
    env = dict(os.environ, DISCUSSIONS_TEST_GATE=str(gate))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(shadow), env.get("PYTHONPATH")]))
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "discussions",
        "lsp",
        "--debounce",
        "0",
        cwd=str(project),
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin and proc.stdout
    try:
        initialized = {"jsonrpc": "2.0", "method": "initialized", "params": {}}
        proc.stdin.write(
            _framed(_initialize(project, "utf-16"))
            + _framed(json.dumps(initialized).encode())
            + _framed(json.dumps(_did_open(path)).encode())
        )
        publish = "textDocument/publishDiagnostics"
        got = await _until(proc.stdout, publish, 1)  # lsprotocol cannot have loaded yet
        loop = asyncio.get_running_loop()
        opened_gate = await asyncio.wait_for(
            loop.run_in_executor(None, os.open, str(gate), os.O_WRONLY), TIMEOUT
        )
        os.close(opened_gate)
        change = {
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "text": "x",
        }
        did_change = {
            "jsonrpc": "2.0",
            "method": "textDocument/didChange",
            "params": {
                "textDocument": {"uri": path.as_uri(), "version": 2},
                "contentChanges": [change],
            },
        }
        proc.stdin.write(_framed(json.dumps(did_change).encode()))
        return got + await _until(proc.stdout, publish, 2)
    finally:
        proc.kill()
        await proc.wait()


@pytest.mark.slow
def test_the_first_diagnostics_come_before_pygls_is_loaded_and_once(
    isolated: Path, tmp_path: Path
) -> None:
    path = _discussion(isolated)
    shadow = tmp_path / "shadow"
    (shadow / "lsprotocol").mkdir(parents=True)
    (shadow / "lsprotocol" / "__init__.py").write_text(GATE, encoding="utf-8")
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    got = _bodies(asyncio.run(_gated_session(isolated, path, gate, shadow)))
    assert got[0]["id"] == 1  # the early answer to initialize
    published = [m["params"] for m in got if m.get("method") == "textDocument/publishDiagnostics"]
    assert [p["version"] for p in published] == [1, 2]  # pygls did not say version 1 again
    assert any("@securty" in d["message"] for d in published[0]["diagnostics"])
    statuses = [m for m in got if m.get("method") == "discussions/status"]
    assert len(statuses) == 2
