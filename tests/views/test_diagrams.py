"""Diagram fences in the HTML export and the web view's HTML (`views.diagrams`): a figure with
the source one click away; PlantUML drawn by the user's renderer command (a real subprocess),
embedded as an image; never by a command a project names."""

from __future__ import annotations

import base64
import re
from pathlib import Path

from discussions.settings.workspace import Workspace
from discussions.views.diagrams import mermaid_script, plantuml_command

from ..conftest import code, out, run, script_command, write

MERMAID = "```mermaid\ngraph TD\n  A[Client] -->|token| B[API]\n```"
PLANTUML = "```plantuml\n@startuml\nAlice -> Bob: hi <b>\n@enduml\n```"
BROKEN = "```puml\n@startuml\nFAIL here\n@enduml\n```"


def _discussion(isolated: Path, *fences: str) -> Path:
    assert code(run("new", "Diagrams", "--participants", "architect")) == 0
    for fence in fences:
        text = f"Here is the flow:\n\n{fence}\n\nVOTE: READY"
        assert code(run("comment", "discussions/diagrams.md", text, "--author", "Rob")) == 0
    return isolated / "discussions" / "diagrams.md"


def _export(path: Path) -> str:
    r = run("export", str(path), "--format", "html", "--out", "-")
    assert code(r) == 0, out(r)
    return out(r)


def test_a_mermaid_fence_is_a_figure_with_its_source(isolated: Path) -> None:
    page = _export(_discussion(isolated, MERMAID, "```python\nprint('x')\n```"))
    figure = re.search(r'<figure class="diagram diagram-mermaid">.*?</figure>', page, re.S)
    assert figure is not None
    assert '<details class="diagram-source" open><summary>Mermaid source</summary>' in figure[0]
    assert "A[Client] --&gt;|token| B[API]" in figure[0]
    assert '<code class="language-python">' in page  # other fences as before
    assert "<script" not in page  # the export embeds no script


def test_plantuml_is_drawn_by_the_users_command(isolated: Path, userdir: Path) -> None:
    record = isolated.parent / "renderer.log"
    command = script_command("fake_plantuml.py", str(record))
    write(userdir / "config.yaml", f"diagrams:\n  plantuml: {command!r}\n")
    page = _export(_discussion(isolated, PLANTUML, BROKEN))
    drawn = re.search(
        r'<img alt="PlantUML diagram" src="data:image/svg\+xml;base64,([^"]+)">', page
    )
    assert drawn is not None
    assert base64.b64decode(drawn[1]).endswith(b"<text>3</text></svg>")
    assert '<details class="diagram-source"><summary>PlantUML source</summary>' in page
    assert "Alice -&gt; Bob: hi &lt;b&gt;" in page
    assert "Not drawn: the PlantUML command failed: Error line 2 in file: syntax error" in page
    assert page.count('<details class="diagram-source" open>') == 1  # the broken one
    # Sandboxed, in an empty folder of its own.
    assert record.read_text(encoding="utf-8").splitlines()[0] == "SANDBOX []"


def test_a_project_cannot_name_the_renderer(isolated: Path) -> None:
    marker = isolated / "ran"
    command = script_command("fake_plantuml.py", str(marker))
    write(isolated / "discussions.yaml", f"diagrams:\n  plantuml: {command!r}\n")
    page = _export(_discussion(isolated, PLANTUML))
    assert not marker.exists()
    assert '<details class="diagram-source" open><summary>PlantUML source</summary>' in page
    ws = Workspace.discover()
    assert plantuml_command(ws) is None or "fake_plantuml" not in " ".join(plantuml_command(ws))


def test_without_mermaid_js_the_web_view_serves_no_diagram_script(
    isolated: Path, userdir: Path
) -> None:
    from ..support.web import LiveServer

    write(userdir / "config.yaml", f"diagrams:\n  mermaid_js: {str(isolated / 'none.js')!r}\n")
    _discussion(isolated, MERMAID)
    ws = Workspace.discover()
    assert mermaid_script(ws) is None
    server = LiveServer(ws)
    try:
        page = server.get("/d/diagrams.md").text
        assert "mermaid.min.js" not in page and 'class="diagram diagram-mermaid"' in page
        assert server.get("/static/mermaid.min.js").status == 404
        assert server.get("/static/diagrams.js").status == 200
    finally:
        server.stop()
