"""Statuses are a known set: the built-in ones and those the templates name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions import Discussion, PhaseError

from ..conftest import code, out, run, write


def error_line(r: object) -> str:
    lines = [ln for ln in out(r).splitlines() if ln.startswith("Error:")]
    assert len(lines) == 1 and "Traceback" not in out(r), out(r)
    return lines[0]


def test_close_with_an_unknown_status_lists_the_known_ones(isolated: Path) -> None:
    run("new", "Feature X")
    r = run("close", "feature-x.md", "--status", "FOO")
    assert code(r) == 1
    line = error_line(r)
    assert "unknown status 'FOO'" in line
    for known in ("CLOSED", "DECIDED", "REJECTED", "ABANDONED", "ACCEPTED", "DIAGNOSED"):
        assert known in line  # built-ins, and the adr's and diagnostic template's
    assert "Status changed" not in out(r)
    assert Discussion.load("feature-x.md").status == "OPEN"


def test_a_templates_statuses_are_known(isolated: Path) -> None:
    write(
        isolated / "templates" / "launch.yaml",
        """
        name: launch
        status: PLANNED
        consensus_status: SHIPPED
        phases:
          - id: review
            voting_mode: true
        """,
    )
    run("new", "Rocket", "--template", "launch")
    assert "Status changed to: SHIPPED" in out(run("close", "rocket.md", "--status", "shipped"))
    assert code(run("reopen", "rocket.md")) == 0


def test_close_refuses_an_open_status(isolated: Path) -> None:
    run("new", "Feature X")
    r = run("close", "feature-x.md", "--status", "proposed")
    assert code(r) == 2 and "open status" in out(r)


def test_the_library_refuses_an_unknown_status(isolated: Path) -> None:
    run("new", "Feature X")
    d = Discussion.load("feature-x.md")
    with pytest.raises(PhaseError, match="unknown status 'NOPE'"):
        d.set_status("nope")


@pytest.mark.slow
def test_list_status_open_means_not_finished(isolated: Path) -> None:
    run("new", "Feature X")
    run("new", "Use Postgres", "--template", "adr")
    run("new", "Done thing")
    run("close", "done-thing.md", "--status", "decided")
    rows = json.loads(out(run("list", "--status", "open", "--json")))
    assert sorted((r["file"], r["status"]) for r in rows) == [
        ("discussions/feature-x.md", "OPEN"),
        ("discussions/use-postgres.md", "PROPOSED"),
    ]
    plain = out(run("list", "--status", "OPEN"))
    assert "use-postgres.md" in plain and "done-thing.md" not in plain
    decided = json.loads(out(run("list", "--status", "Decided", "--json")))
    assert [r["file"] for r in decided] == ["discussions/done-thing.md"]


def test_list_with_an_unknown_status_is_an_error(isolated: Path) -> None:
    run("new", "Feature X")
    r = run("list", "--status", "decidd")
    assert code(r) == 1 and "unknown status 'decidd'" in error_line(r)
    assert "DECIDED" in error_line(r)
