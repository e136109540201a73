"""IMPLEMENTED is a finished status, and the decision ledger links each settled decision to
the commits of the applies written after it (`decisions --json` `implemented_by`)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from discussions.cli import cli
from discussions.model import ledger
from discussions.settings.templates import FINISHED_STATUSES, is_open
from discussions.settings.workspace import Workspace

from ..support.apply import decided


def test_implemented_is_a_finished_status(isolated: Path) -> None:
    assert "IMPLEMENTED" in FINISHED_STATUSES and not is_open("IMPLEMENTED")
    d = decided(isolated / "discussions", "IMPLEMENTED")
    assert d.status == "IMPLEMENTED"
    assert all(e.settled for e in ledger.collect(Workspace.discover()))


def test_decisions_json_links_the_commits_that_implement_them(isolated: Path) -> None:
    decided(isolated / "discussions")
    r = CliRunner().invoke(cli, ["decisions", "--json"], catch_exceptions=False)
    first, second = json.loads(r.output)
    assert first["text"] == "accounts use email logins"
    assert first["implemented_by"] == [
        {
            "apply": 1,
            "branch": "discussions/apply/apply-1",
            "commits": ["a" * 40, "b" * 40, "c" * 40],
            "implemented": True,
            "paths": ["src/app.py", "logo.png"],  # what the decision governs from then on
        }
    ]
    assert second["implemented_by"] == []  # written after the apply
    text = CliRunner().invoke(cli, ["decisions"], catch_exceptions=False).output
    assert "implemented by ccccccc" in text


def test_an_open_discussion_implements_nothing_yet(isolated: Path) -> None:
    decided(isolated / "discussions", "OPEN")
    entries = ledger.collect(Workspace.discover())
    assert [e.implemented_by for e in entries] == [(), ()]
