"""`export --format handoff`, and `providers list/show` saying which providers can write."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from click.testing import CliRunner

from discussions.cli import cli

from ..conftest import write
from ..support.documents import decided_file

PY = shlex.quote(sys.executable)


def test_export_handoff_json(isolated: Path) -> None:
    path = decided_file(isolated)
    before = path.read_bytes()
    r = CliRunner().invoke(cli, ["export", "cache.md", "--format", "handoff", "--out", "-"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["format"] == "discussions-handoff/1" and data["file"] == "cache.md"
    assert data["approval"] == {"status": "pending", "by": None, "at": None}
    assert data["decided"] is True
    assert data["todos"][0]["assignee"] == "pragmatist"
    r = CliRunner().invoke(cli, ["export", "cache.md", "--format", "handoff"])
    assert r.exit_code == 0 and "cache.handoff.json" in r.output, r.output
    assert json.loads((isolated / "cache.handoff.json").read_text())["title"] == "Cache layer"
    assert path.read_bytes() == before


def test_export_handoff_of_an_undecided_discussion_is_refused(isolated: Path) -> None:
    decided_file(isolated, "OPEN")
    for out in (["--out", "-"], []):
        r = CliRunner().invoke(cli, ["export", "cache.md", "--format", "handoff", *out])
        assert r.exit_code == 1, r.output
        assert r.output.startswith("Error: cache.md is not decided: ") and "{" not in r.output
        assert "no motion has passed" in r.output and "--allow-undecided" in r.output
        assert "--force" not in r.output  # an apply's override, not the export's
    assert not (isolated / "cache.handoff.json").exists()
    args = ["export", "cache.md", "--format", "handoff", "--allow-undecided", "--out", "-"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["decided"] is False and "no motion has passed" in data["reason"]
    r = CliRunner().invoke(cli, ["export", "cache.md", "--format", "json", "--allow-undecided"])
    assert r.exit_code == 2 and "--format handoff" in r.output


def test_providers_list_and_show_say_which_can_write(isolated: Path, userdir: Path) -> None:
    write(
        userdir / "providers.yaml",
        f"providers:\n  - name: lead\n    command: {PY} -c pass\n"
        f"    write_command: {PY} -c pass\n  - name: talk\n    command: {PY} -c pass\n",
    )
    r = CliRunner().invoke(cli, ["providers", "list"])
    lines = {line.split()[0]: line for line in r.output.splitlines() if line.strip()}
    assert "writes" in lines["lead"] and "writes" not in lines["talk"]
    assert "writes" not in lines["ollama"]
    data = json.loads(CliRunner().invoke(cli, ["providers", "list", "--json"]).output)
    rows = {row["name"]: row for row in data["providers"]}
    assert rows["lead"]["can_write"] and not rows["talk"]["can_write"]
    assert rows["claude"]["write_command"] and rows["ollama"]["write_command"] is None
    shown = CliRunner().invoke(cli, ["providers", "show", "lead"])
    assert "Write mode:" in shown.output and "can lead `discussions apply`" in shown.output
    shown = CliRunner().invoke(cli, ["providers", "show", "talk"])
    assert "Write mode: none" in shown.output
    missing = CliRunner().invoke(cli, ["providers", "show", "nope"])
    assert missing.exit_code != 0 and "providers list" in missing.output


def test_export_and_the_mcp_tool_refuse_an_undecided_discussion_in_one_sentence(
    isolated: Path,
) -> None:
    """`export --format handoff` and the MCP `handoff` tool say the same sentence (the export
    then adds its own way past it); they said it in two different ways."""
    import pytest

    from discussions.errors import NotDecided
    from discussions.ops.service import DiscussionTools

    decided_file(isolated / "discussions", "OPEN")
    with pytest.raises(NotDecided) as refused:
        DiscussionTools().handoff("cache.md")
    sentence = str(refused.value)
    assert sentence.startswith("cache.md is not decided: ") and "no motion has passed" in sentence
    r = CliRunner().invoke(cli, ["export", "cache.md", "--format", "handoff", "--out", "-"])
    assert r.exit_code == 1
    assert r.output.startswith(f"Error: {sentence}. To export its hand-off anyway"), r.output
