"""The recheck (issue 38, item 1): the council votes whether the code a decision governs, as
it is now, still conforms to it, after that code drifted; a ``RECHECK`` block records it,
read back into the state, checked, shown by ``status --json`` and merged by the driver.
Real git, real subprocess voters (tests/scripts/conformance_voter.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace
from discussions.syntax.evidence import fenced_content
from discussions.syntax.recheck import RecheckRecord, parse_recheck, render_recheck

from ..conftest import script_command, write
from ..support.apply import decided_repository
from ..support.git import commit_all, git, git_line, markers_present, run_cli

BOUNDED = "RETRIES = 3\n\n\ndef fetch():\n    for _ in range(RETRIES):\n        pass\n"
ENDLESS = "def fetch():\n    while True:\n        pass\n"
VOTERS = {"architect": "fixed", "security": "fixed", "pragmatist": "fixed"}


@pytest.fixture
def governed(isolated: Path, tmp_path: Path, providers_file, git_identity: Path) -> Path:  # type: ignore[no-untyped-def]
    """A decided discussion whose decision governs app.py, committed; then a commit that
    bounds the retries without naming it. Voters READY only on a diff adding RETRIES = 3."""
    plan = json.dumps(VOTERS)
    providers_file({"voter": script_command("conformance_voter.py", plan, str(tmp_path / "m"))})
    write(isolated / "discussions.yaml", "providers:\n  default: voter\n  detect: false\n")
    path = decided_repository(isolated)
    d = Discussion.load(path, Workspace.discover())
    d.add_comment("Rob", "DECISION: app.py bounds its retries with RETRIES = 3\nGOVERNS: app.py")
    d.save()
    commit_all(isolated, "govern app.py")
    (isolated / "app.py").write_text(BOUNDED)
    commit_all(isolated, "bound the retries")
    return path


def test_the_council_finds_the_code_conforms_and_it_is_recorded(governed: Path) -> None:
    recorded = git_line(governed.parent.parent, "rev-parse", "HEAD~1")
    r = run_cli("recheck", governed.name, "--json")
    assert r.exit_code == 0, r.output
    outcome = json.loads(r.stdout)
    assert outcome["stage"] == "conforms" and outcome["since"] == recorded
    assert sorted(outcome["votes"].values()) == ["READY"] * 3
    state = json.loads(run_cli("status", governed.name, "--json").stdout)
    [block] = state["rechecks"]
    assert (block["result"], block["since"], block["line"]) == (
        "conforms",
        recorded,
        outcome["line"],
    )
    assert block["intact"] and block["blockers"] == []
    assert run_cli("check", governed.name).exit_code == 0


def test_code_that_departs_is_recorded_with_its_blockers(governed: Path) -> None:
    root = governed.parent.parent
    (root / "app.py").write_text(ENDLESS)
    commit_all(root, "retry forever again")
    r = run_cli("recheck", governed.name, "--since", "HEAD~1")
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert lines[0] == f"Recheck of the code at {git_line(root, 'rev-parse', 'HEAD')[:7]}: departs."
    assert lines[1:4] == [
        f"  AI-{who.title()}: retries are not bounded (asked by {who})"
        for who in ("architect", "security", "pragmatist")
    ]
    [block] = Discussion.load(governed, Workspace.discover()).rechecks
    assert block.result == "departs" and len(block.blockers) == 3
    assert block.since == git_line(root, "rev-parse", "HEAD~1")
    assert f"Recorded at {governed.name}:{block.line}." in lines


def test_nothing_changed_or_nothing_governed_is_a_clear_error(governed: Path) -> None:
    r = run_cli("recheck", governed.name, "--since", "HEAD")
    assert r.exit_code == 1
    assert "has not changed since" in r.output and "nothing to recheck" in r.output
    assert Discussion.load(governed, Workspace.discover()).rechecks == []
    other = Discussion.create("Nothing governed", workspace=Workspace.discover())
    other.save()
    r = run_cli("recheck", other.path.name)
    assert r.exit_code == 1 and "has no decision that governs code" in r.output


def test_an_edited_recheck_block_fails_the_check(governed: Path) -> None:
    assert run_cli("recheck", governed.name).exit_code == 0
    text = governed.read_text(encoding="utf-8")
    governed.write_text(text.replace("result: conforms", "result: departs"), encoding="utf-8")
    r = run_cli("check", governed.name)
    assert r.exit_code == 1 and "recheck 1 does not match the digest" in r.output


def test_the_block_reads_back_as_written() -> None:
    record = RecheckRecord(
        3, "a" * 40, "b" * 40, "departs", ("AI-A",), ("AI-B", "Rob, Jr"), (), ("AI-B: x | y",), "t"
    )
    block = render_recheck(record)
    assert block.startswith("<!-- RECHECK: 3 | since: " + "a" * 40)
    args = block.split("<!-- RECHECK: ", 1)[1].split(" -->", 1)[0]
    content = fenced_content(block.split("\n"), 1)
    assert parse_recheck(args, content) == record
    assert "*Recheck 3 of the code at bbbbbbb (changed since aaaaaaa): departs" in block


def test_two_branches_that_each_recheck_merge_through_the_driver(repo: Path) -> None:
    assert run_cli("init").exit_code == 0
    write(repo / "app.py", ENDLESS)
    d = Discussion.create("Both", workspace=Workspace.discover())
    d.save()
    commit_all(repo, "start")
    for branch, result in (("a", "conforms"), ("main", "departs")):
        if branch == "a":
            git(repo, "checkout", "-q", "-b", "a")
        else:
            git(repo, "checkout", "-q", "main")
        d = Discussion.load(d.path, Workspace.discover())
        blockers = ("AI-B: no",) if result == "departs" else ()
        record = RecheckRecord(1, "a" * 40, "b" * 40, result, blockers=blockers, at="t")
        d.add_block(render_recheck(record))
        d.save()
        commit_all(repo, f"recheck on {branch}")
    merge = git(repo, "merge", "-q", "--no-edit", "a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert not markers_present(d.path.read_text())
    merged = Discussion.load(d.path, Workspace.discover()).rechecks
    assert sorted(r.result for r in merged) == ["conforms", "departs"]
    assert run_cli("check", str(d.path)).exit_code == 0


def test_a_malformed_recheck_block_is_reported_at_its_line(isolated: Path) -> None:
    d = Discussion.create("Malformed", workspace=Workspace.discover())
    d.save()
    block = render_recheck(RecheckRecord(1, "a" * 40, "b" * 40, "conforms", at="t"))
    d = Discussion.load(d.path, Workspace.discover())
    d.add_block(block.replace("result: conforms", "result: maybe"))
    d.save()
    line = next(n for n, text in enumerate(d.path.read_text().split("\n"), 1) if "RECHECK:" in text)
    r = run_cli("check", str(d.path))
    assert r.exit_code == 1
    assert f"{d.path.name}:{line}: recheck 1 has an unknown result 'maybe'" in r.output
