"""`discussions mcp` answers `initialize` before loading the SDK, and the SDK takes over the
connection: raw JSON-RPC over the real server's stdin and stdout."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from discussions import __version__
from discussions.mcp.handshake import CAPABILITIES, HANDSHAKE_VERSIONS, initialize_answer

SRC = Path(__file__).parent.parent.parent / "src"
CLIENT = {"name": "test-client", "version": "1.0"}


def _initialize(version: Any = "2025-06-18", ident: Any = 1, **params: Any) -> dict[str, Any]:
    body = {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT, **params}
    return {"jsonrpc": "2.0", "id": ident, "method": "initialize", "params": body}


def _line(message: dict[str, Any]) -> bytes:
    return (json.dumps(message) + "\n").encode()


def _server(project: Path, *paths: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k.startswith(("DISCUSSIONS_", "HOME", "NO_"))}
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in (*paths, SRC))
    return subprocess.Popen(
        [sys.executable, "-m", "discussions", "mcp"],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_initialize_is_answered_while_the_sdk_is_still_loading(
    isolated: Path, tmp_path: Path
) -> None:
    # An `mcp` package that never finishes importing, ahead of the real one.
    slow = tmp_path / "slow-sdk"
    (slow / "mcp").mkdir(parents=True)
    (slow / "mcp" / "__init__.py").write_text("import time\ntime.sleep(120)\n")
    with _server(isolated, slow) as server:
        try:
            assert server.stdin is not None and server.stdout is not None
            server.stdin.write(_line(_initialize(ident="first")))
            server.stdin.flush()
            ready, _, _ = select.select([server.stdout], [], [], 30)
            assert ready, "no answer to initialize while the SDK was loading"
            answer = json.loads(server.stdout.readline())
        finally:
            server.kill()
    assert answer["id"] == "first"
    assert answer["result"]["protocolVersion"] == "2025-06-18"
    assert answer["result"]["serverInfo"] == {"name": "discussions", "version": __version__}


RICH = {
    "roots": {"listChanged": True},
    "sampling": {"context": {}, "tools": {}},
    "elicitation": {"form": {}, "url": {}},
    "experimental": {"x": {"y": 1}},
    "tasks": {"list": {}, "requests": {"sampling": {"createMessage": {}}}},
}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("version", "capabilities", "info"),
    [
        ("2025-06-18", {}, CLIENT),
        ("2024-11-05", RICH, {**CLIENT, "title": "Test"}),
        ("2025-11-25", {"roots": {}}, CLIENT),
        ("2026-07-28", {}, CLIENT),  # not a handshake version: the newest one is offered
        ("1999-01-01", {}, CLIENT),
    ],
)
def test_the_sdk_takes_over_after_the_early_answer(
    isolated: Path, version: str, capabilities: dict[str, Any], info: dict[str, Any]
) -> None:
    pytest.importorskip("mcp")
    first = _initialize(version, capabilities=capabilities, clientInfo=info)
    sent = [
        first,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
    ]
    answers, errors = _exchange(isolated, b"".join(_line(m) for m in sent), 3)
    assert "otherwise" not in errors, errors
    by_id: dict[Any, list[dict[str, Any]]] = {}
    for a in answers:
        by_id.setdefault(a.get("id"), []).append(a)
    assert len(by_id[1]) == 1, "initialize answered twice"
    assert by_id[1][0] == initialize_answer(_line(first), __version__)
    expected = version if version in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    assert by_id[1][0]["result"]["protocolVersion"] == expected
    assert by_id[2] == [{"jsonrpc": "2.0", "id": 2, "result": {}}]
    # Listing tools needs a connection the SDK initialized itself (from the replayed request).
    tools = {t["name"] for t in by_id[3][0]["result"]["tools"]}
    assert {"list_discussions", "start_turn", "turn_result"} <= tools


def _exchange(project: Path, data: bytes, answers: int) -> tuple[list[dict[str, Any]], str]:
    """What the server writes for `data` until `answers` lines came, and its standard error
    after its input was closed."""
    got: list[dict[str, Any]] = []
    with _server(project) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(data)
        server.stdin.flush()
        while len(got) < answers and select.select([server.stdout], [], [], 120)[0]:
            line = server.stdout.readline()
            if not line:
                break
            got.append(json.loads(line))
        _, err = server.communicate(timeout=60)
    return got, err.decode()


@pytest.mark.slow
def test_a_first_line_that_is_not_json_is_the_sdks_to_answer(isolated: Path) -> None:
    pytest.importorskip("mcp")
    sent = (
        b"this is not json\n"
        + _line(_initialize(ident=7))
        + _line({"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
    )
    answers, errors = _exchange(isolated, sent, 2)
    # The SDK drops a line it cannot read (as without the early answer) and answers the rest.
    assert [a.get("id") for a in answers] == [7, 8], errors
    assert answers[0]["result"]["capabilities"] == CAPABILITIES
    assert "tools" in answers[1]["result"]


@pytest.mark.slow
def test_a_first_request_other_than_initialize_is_the_sdks_to_answer(isolated: Path) -> None:
    pytest.importorskip("mcp")
    sent = (
        _line({"jsonrpc": "2.0", "id": 5, "method": "ping"})
        + _line(_initialize(ident=6))
        + _line({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
    )
    answers, errors = _exchange(isolated, sent, 3)
    assert [a.get("id") for a in answers] == [5, 6, 7], errors
    assert answers[0] == {"jsonrpc": "2.0", "id": 5, "result": {}}
    assert answers[1] == initialize_answer(_line(_initialize(ident=6)), __version__)
    assert "tools" in answers[2]["result"]


def test_the_sdks_own_answer_is_what_the_early_answer_says() -> None:
    """The constants here are the SDK's: its handshake versions and, for these tools and
    resources, its capabilities and server info (an in-memory session of the real server)."""
    pytest.importorskip("mcp")
    import anyio
    from mcp.shared.memory import create_client_server_memory_streams
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    from discussions.mcp.server import build_server

    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS
    request = _initialize("2025-03-26", ident=41)

    async def scenario() -> dict[str, Any]:
        server = build_server()._lowlevel_server  # as the SDK's in-memory transport does
        async with (
            create_client_server_memory_streams() as (client, served),
            anyio.create_task_group() as tg,
        ):
            tg.start_soon(server.run, served[0], served[1], server.create_initialization_options())
            message = jsonrpc_message_adapter.validate_python(request, by_name=False)
            await client[1].send(SessionMessage(message))
            got = await client[0].receive()
            tg.cancel_scope.cancel()
        assert isinstance(got, SessionMessage), got
        wire: dict[str, Any] = json.loads(
            got.message.model_dump_json(by_alias=True, exclude_unset=True)
        )
        return wire

    assert anyio.run(scenario) == initialize_answer(_line(request), __version__)


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "initialize", "params": _initialize()["params"]},
        {**_initialize(), "id": True},
        {**_initialize(), "id": None},
        {**_initialize(), "jsonrpc": "1.0"},
        _initialize(_meta={"progressToken": 1}),
        _initialize(clientInfo={"name": "x"}),
        _initialize(clientInfo={**CLIENT, "icons": [{"src": "x"}]}),
        _initialize(clientInfo={**CLIENT, "title": 3}),
        _initialize(capabilities={"roots": {"listChanged": "yes"}}),
        _initialize(capabilities={"experimental": {"x": 1}}),
        _initialize(capabilities={"sampling": []}),
        _initialize(capabilities=None),
        _initialize(version=20250618),
    ],
)
def test_what_is_not_a_plain_initialize_is_left_to_the_sdk(message: dict[str, Any]) -> None:
    assert initialize_answer(_line(message), __version__) is None
    assert initialize_answer(b"[1, 2", __version__) is None
    assert initialize_answer(b"", __version__) is None


def test_the_sdks_answer_to_an_initialize_answered_early_is_held_back_and_checked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter

    from discussions.mcp.takeover import AnsweredOnce

    sent = initialize_answer(_line(_initialize()), __version__)
    assert sent is not None
    other = {**sent, "result": {**sent["result"], "protocolVersion": "2024-11-05"}}
    later = {"jsonrpc": "2.0", "id": 1, "result": {}}

    async def scenario(answer: dict[str, Any]) -> list[dict[str, Any]]:
        out, got = anyio.create_memory_object_stream[SessionMessage](10)
        async with AnsweredOnce(out, sent) as writer:
            for m in (answer, later):
                await writer.send(SessionMessage(jsonrpc_message_adapter.validate_python(m)))
        async with got:
            return [json.loads(m.message.model_dump_json(exclude_unset=True)) async for m in got]

    assert anyio.run(scenario, sent) == [later]
    assert capsys.readouterr().err == ""
    assert anyio.run(scenario, other) == [later]
    assert "otherwise than the early answer" in capsys.readouterr().err


@pytest.mark.parametrize(
    "line",
    [
        b"\xef\xbb\xbf" + _line(_initialize()),  # a byte-order mark before the JSON
        json.dumps(_initialize()).encode("utf-16"),  # JSON, but not UTF-8
        _line(_initialize()).replace(b'"test-client"', b'"\\ud800"'),  # a lone surrogate
    ],
)
def test_a_line_the_sdk_cannot_read_gets_no_early_answer(line: bytes) -> None:
    """The early answer is sent only where the SDK reads the same line as an initialize
    request (its stdio reader decodes UTF-8 and validates strictly)."""
    pytest.importorskip("mcp")
    from mcp.shared.message import SessionMessage

    from discussions.mcp.takeover import replayed

    assert not isinstance(replayed(line), SessionMessage)
    assert initialize_answer(line, __version__) is None


@pytest.mark.slow
def test_a_first_line_longer_than_the_early_read_reaches_the_sdk_whole(isolated: Path) -> None:
    pytest.importorskip("mcp")
    from discussions.mcp.handshake import MAX_LINE

    first = _initialize(clientInfo={**CLIENT, "title": "x" * (MAX_LINE + 1000)})
    sent = _line(first) + _line({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    answers, errors = _exchange(isolated, sent, 2)
    assert [a.get("id") for a in answers] == [1, 3], errors
    assert answers[0] == initialize_answer(_line(first), __version__)
