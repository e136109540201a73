"""The contrarian's record survives a merge through the driver (issue 37, item 4): branch a
has a person's comment, branch b the turn whose agreement came too fast (the ``CONTRARIAN``
block and the advocate's challenge); merged either way, both are there once, the file checks
clean, and the challenge is read back."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from discussions.git.units import split_blocks
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace

from ..support.contrarian import advocate_comments, contrarian_council
from ..support.git import check_clean, comment, commit_all, git, run_cli
from ..support.quorum import ALIASES

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)


@pytest.mark.slow
def test_a_challenge_merged_either_way_is_kept_once(repo: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    challenge = json.dumps({"comment": "CONCERN: nothing here bounds the session's lifetime."})
    contrarian_council(repo, providers_file, challenge=challenge)
    assert run_cli("init").exit_code == 0
    assert run_cli("new", "Auth", "--context", "Tokens in cookies.").exit_code == 0
    path = repo / "discussions" / "auth.md"
    assert run_cli("advance", str(path), "--to", "consensus_vote").exit_code == 0
    commit_all(repo, "start")
    git(repo, "checkout", "-q", "-b", "a")
    comment(path, "Ann", "A note on a.")
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    assert run_cli("turn", str(path), *(f"@{a}" for a in ALIASES)).exit_code == 0
    commit_all(repo, "b")
    b_text = path.read_text(encoding="utf-8")
    assert b_text.count("<!-- CONTRARIAN: advocate") == 1 and advocate_comments(b_text) == 1
    results = set()
    for into, other in (("a", "b"), ("b", "a")):
        git(repo, "checkout", "-q", "-b", f"m-{into}", into)
        git(repo, "merge", "-q", other, "-m", f"merge {other}")
        merged = path.read_text(encoding="utf-8")
        assert set(split_blocks(b_text)[0]) <= set(split_blocks(merged)[0])
        assert merged.count("<!-- CONTRARIAN: advocate") == 1 and advocate_comments(merged) == 1
        assert "A note on a." in merged
        check_clean(path)
        d = Discussion.load(path, Workspace.discover())
        assert d.challenge is not None and d.challenge.by == "advocate"
        results.add(merged)
    assert len(results) == 1
