"""The MCP `handoff` tool: a decided discussion's hand-off; an error otherwise; starts nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from discussions.errors import NotDecided
from discussions.ops.service import DiscussionTools

from ..support.documents import decided_file


def test_handoff_of_a_decided_discussion(isolated: Path) -> None:
    path = decided_file(isolated / "discussions")
    before = path.read_bytes()
    got = DiscussionTools().handoff("cache")
    # the fixture's CONCERN: beside its author's READY is never answered: a reservation, which
    # the lead reads first (`derive.dissent`)
    assert got["text"].startswith(
        "# Implement a decided discussion\n\nThis decision was recorded with 1 reservation(s)"
    )
    assert got["handoff"]["dissent"]["reservations"][0]["by"] == "AI-Architect"
    assert "Cache layer" in got["text"] and "`discussions/`" in got["text"]
    assert got["handoff"]["file"] == "discussions/cache.md"
    assert got["handoff"]["approval"]["status"] == "pending"
    assert got["handoff"]["decisions"][0]["text"].startswith("Put an LRU cache")
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["cache.md"]


def test_handoff_of_an_undecided_discussion_is_an_error(isolated: Path) -> None:
    decided_file(isolated / "discussions", "OPEN")
    with pytest.raises(NotDecided, match="no motion has passed"):
        DiscussionTools().handoff("cache.md")


@pytest.mark.slow
def test_the_mcp_tool_answers_and_refuses(isolated: Path) -> None:
    pytest.importorskip("mcp")
    import anyio

    from discussions.mcp.server import build_server

    decided_file(isolated / "discussions")
    shutil.copy(isolated / "discussions" / "cache.md", isolated / "discussions" / "open.md")
    open_file = isolated / "discussions" / "open.md"
    open_file.write_text(open_file.read_text().replace("Status: DECIDED", "Status: OPEN"))
    server = build_server(DiscussionTools())

    async def calls() -> tuple[object, str]:
        ok = await server.call_tool("handoff", {"file": "cache"})
        try:
            await server.call_tool("handoff", {"file": "open"})
        except Exception as exc:  # the SDK raises the tool's error
            return ok, str(exc)
        return ok, ""

    ok, refused = anyio.run(calls)
    assert "Implement a decided discussion" in str(ok) and "Cache layer" in str(ok)
    assert "no motion has passed" in refused
