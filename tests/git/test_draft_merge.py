"""A documentation loop's drafts merge through git with the merge driver."""

from __future__ import annotations

from pathlib import Path

import pytest

from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace

from ..support.git import check_clean, commit_all, git, markers_present, run_cli


@pytest.mark.slow
def test_drafts_merge_with_a_comment_made_meanwhile(loop, repo: Path) -> None:
    path = loop({"voters": "once"})
    assert run_cli("init").exit_code == 0
    commit_all(repo, "start")
    attr = git(repo, "check-attr", "merge", "--", "discussions/plan.md").stdout
    assert attr.strip().endswith("merge: discussions")
    git(repo, "checkout", "-q", "-b", "b")
    d = Discussion.load(path, Workspace.discover())
    d.add_comment("Rob", "A thought while the document was drafted.")
    d.save()
    commit_all(repo, "b")
    git(repo, "checkout", "-q", "main")
    assert run_cli("draft", "plan.md").exit_code == 0
    commit_all(repo, "drafted")
    merge = git(repo, "merge", "-q", "--no-edit", "b", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    text = path.read_text("utf-8")
    assert not markers_present(text)
    d = Discussion.load(path, Workspace.discover())
    assert [x.number for x in d.drafts] == [1, 2] and all(x.intact for x in d.drafts)
    assert d.status == "APPROVED"
    assert any(c.author == "Rob" for c in d.comments)
    check_clean(path)
