"""The web view shows the positions grid and the flips citing nothing new in its panel."""

from __future__ import annotations

from pathlib import Path

from discussions.settings.workspace import Workspace

from ..conftest import code, run
from ..support.web import LiveServer


def test_the_web_page_and_api_show_the_positions(isolated: Path) -> None:
    assert code(run("new", "Auth")) == 0
    assert code(run("comment", "auth.md", "--author", "Rob", "--vote", "CHANGES", "Not yet.")) == 0
    assert code(run("comment", "auth.md", "--author", "Rob", "--vote", "READY", "Fine.")) == 0
    server = LiveServer(Workspace.discover())
    try:
        page = server.get("/d/auth.md").text
        assert '<section id="panel-positions"><h2>Positions by round</h2>' in page
        assert "<tr><th>Rob</th>" in page
        assert "Rob moved CHANGES -&gt; READY citing nothing new" in page
        data = server.get("/api/discussions/auth.md").json()
        assert data["positions"]["grid"] == {"Rob": {"0": "READY"}}
        assert data["positions"]["unexplained_flips"] == 1
    finally:
        server.stop()
