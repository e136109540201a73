"""Where votes come from survives a merge of two branches through git and the driver: the
provider, model and confidence of each vote, the failed seat, and the independent sources
counted over both branches' votes."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import code, out, run
from ..support.git import check_clean, commit_all, git, markers_present
from ..support.quorum import open_vote, scripted_providers, seat


def test_vote_sources_and_failed_seats_survive_a_merge(repo: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    assert code(run("init")) == 0
    scripted_providers(repo, providers_file, "  distinct_providers: 2\n  threshold_ready: 0.5\n")
    seat(repo, "architect", "claude-x")
    seat(repo, "security", "solo")
    seat(repo, "pragmatist", "dead")
    path = open_vote()
    commit_all(repo, "the vote opens")
    git(repo, "checkout", "-q", "-b", "a")
    run("turn", "auth.md", "@architect", "@pragmatist")  # the pragmatist's call fails
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    run("turn", "auth.md", "@security")
    commit_all(repo, "b")
    alone = json.loads(out(run("status", "auth.md", "--json")))["consensus"]
    assert not alone["reached"] and alone["independent_sources"] == 1
    git(repo, "checkout", "-q", "a")
    merge = git(repo, "merge", "-q", "--no-edit", "b", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert not markers_present(path.read_text())
    data = json.loads(out(run("status", "auth.md", "--json")))
    sources = data["vote_sources"]
    assert sources["AI-Architect"]["model"] == "claude-x-1"
    assert sources["AI-Architect"]["confidence"] == 8
    assert sources["AI-Security"]["provider"] == "solo"
    assert data["failed_seats"] == ["AI-Pragmatist"]
    consensus = data["consensus"]
    assert consensus["independent_sources"] == 2 and consensus["abstained"] == ["AI-Pragmatist"]
    assert consensus["reached"]  # 2 of 3 READY from two sources, the dead seat abstaining
    check_clean(path)
