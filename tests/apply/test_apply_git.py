"""APPLY blocks in git: two branches that each appended one merge through the merge driver,
keeping both (two branches that each applied both write apply 1: a legitimate merge, which `check`
passes; it fails on an edited block); `status --json` and
`status` show them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace
from discussions.syntax.apply import render_apply, render_apply_review

from ..support.apply import record, review
from ..support.git import (
    commit_all,
    git,
    markers_present,
    run_cli,
    start_discussion,
)


def add(path: Path, block: str) -> None:
    d = Discussion.load(path, Workspace.discover())
    d.add_block(block)
    d.save()


@pytest.mark.slow
def test_two_branches_each_appending_an_apply_merge_keeping_both(repo: Path) -> None:
    path = start_discussion(repo)
    git(repo, "checkout", "-q", "-b", "b")
    add(path, render_apply(record(number=1, branch="apply-b", at="2026-11-24T10:02:00Z")))
    commit_all(repo, "b applied")
    git(repo, "checkout", "-q", "main")
    add(path, render_apply(record(number=1, branch="apply-a", at="2026-11-24T10:01:00Z")))
    add(path, render_apply_review(review(result="implemented", blockers=())))
    commit_all(repo, "a applied")
    merge = git(repo, "merge", "-q", "--no-edit", "b", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    text = path.read_text("utf-8")
    assert not markers_present(text)
    d = Discussion.load(path, Workspace.discover())
    assert sorted(a.branch for a in d.applies) == ["apply-a", "apply-b"]
    assert all(a.intact for a in d.applies)
    reviews = {a.branch: [r.result for r in a.reviews] for a in d.applies}
    assert reviews == {"apply-a": ["implemented"], "apply-b": []}  # the nearest block above
    shown = run_cli("check", str(path)).output
    assert "no problems" in shown
    edited = text.replace("3 passed in 0.1s", "3 passed in 9.9s", 1)
    path.write_text(edited, "utf-8")
    result = run_cli("check", str(path))
    assert result.exit_code != 0 and "does not match the digest" in result.output


def test_status_shows_applies_and_reviews(repo: Path) -> None:
    path = start_discussion(repo)
    add(path, render_apply(record()))
    add(path, render_apply_review(review()))
    data = json.loads(run_cli("status", str(path), "--json").output)
    (applied,) = data["applies"]
    assert applied["number"] == 1 and applied["result"] == "committed"
    assert applied["commit"] == "9c1d" * 10 and applied["tests"] == "passed"
    assert applied["files"][0] == {"path": "src/app.py", "added": 3, "removed": 1}
    assert applied["reviews"][0]["result"] == "changes"
    assert applied["reviews"][0]["blockers"] == ["the migration is missing"]
    shown = run_cli("status", str(path)).output
    assert "Applies (1):" in shown
    assert "Apply 1: AI-Architect (claude-write) committed 2 files" in shown and "(line " in shown
    assert "changes requested (yes: AI-A; no: AI-B); 1 blocker: the migration is missing" in shown
