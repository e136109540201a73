"""The five guards of issue 37 survive a merge through the driver (real git, two branches from
the same challenged round): branch a holds a person's comment that cites the code, raises a
concern and votes READY; branch b the round that answers the contrarian and decides. Merged
either way, the file checks clean and `status` (text and JSON) still shows where each vote
came from and its confidence, the citations' verdicts at the commits recorded, the minority
report (the advocate's concern unanswered, the READY voters' reservations), and the
challenge, answered."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..conftest import code, out, run
from ..support.git import commit_all, git, git_line, markers_present
from ..support.guards import RESERVATION, guarded_council, status_json, turn

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)

_ROB = "The retry at src/net.py:12 worries me.\n\nCONCERN: no backoff between the retries."


@pytest.mark.slow
def test_the_five_guards_survive_a_merge(repo: Path, providers_file) -> None:  # type: ignore[no-untyped-def]
    path = guarded_council(repo, providers_file)
    turn()
    held = status_json()
    assert held["challenge"]["held"] == "challenged by @advocate: awaiting an answer"  # type: ignore[index]
    assert "Consensus: not reached (challenged by @advocate" in out(run("status", "auth.md"))
    commit_all(repo, "round 1")
    head = git_line(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "a")
    assert code(run("comment", "auth.md", _ROB, "--author", "Rob", "--vote", "READY")) == 0
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "-b", "b", "main")
    turn()
    commit_all(repo, "b")
    merged = set()
    for into, other in (("a", "b"), ("b", "a")):
        git(repo, "checkout", "-q", "-b", f"m-{into}", into)
        result = git(repo, "merge", "-q", "--no-edit", other, check=False)
        assert result.returncode == 0, result.stdout + result.stderr
        text = path.read_text(encoding="utf-8")
        assert not markers_present(text) and text.count("<!-- CONTRARIAN: advocate") == 1
        _checks_clean_but_the_invented_line()
        _guards_shown(head)
        merged.add(text)
    assert len(merged) == 1


def _guards_shown(head: str) -> None:
    data = status_json()
    assert data["status"] == "DECIDED"
    sources = data["vote_sources"]
    assert sources["AI-Architect"]["provider"] == "solo"  # type: ignore[index]
    assert sources["AI-Architect"]["confidence"] == 6  # type: ignore[index]
    assert sources["AI-Security"]["provider"] == "other"  # type: ignore[index]
    assert data["consensus"]["independent_sources"] == 3  # type: ignore[index]  # solo, other, Rob
    verdicts = {
        (c["by"], c["text"]): (c["verdict"]["status"], c["verdict"]["against"])
        for c in data["grounds"]["citations"]  # type: ignore[index]
    }
    assert verdicts[("AI-Security", "src/net.py:12")][0] == "grounded"
    assert verdicts[("AI-Security", "src/net.py:99")][0] == "unresolvable"
    assert verdicts[("Rob", "src/net.py:12")] == ("grounded", f"commit {head[:7]}")
    dissent = data["dissent"]
    assert [c["by"] for c in dissent["concerns"]] == ["AI-Advocate"]  # type: ignore[index]
    kept = {(c["by"], c["text"]) for c in dissent["reservations"]}  # type: ignore[index]
    assert kept == {("Rob", "no backoff between the retries."), ("AI-Architect", RESERVATION)}
    challenge = data["challenge"]
    assert challenge["answered"] is True and challenge["held"] is None  # type: ignore[index]
    text = out(run("status", "auth.md"))
    assert "confidence 6" in text and "3 independent sources" in text
    assert "src/net.py:99 (unresolvable)" in text
    assert "Recorded with 1 unanswered concern (AI-Advocate)." in text
    assert "2 reservations from READY voters" in text


def _checks_clean_but_the_invented_line() -> None:
    """`check` finds nothing wrong with the merge: its only problems are the security
    persona's invented line, once per round it was said in."""
    r = run("check", "auth.md")
    problems = [line for line in out(r).splitlines() if line.startswith("/") or ".md:" in line]
    assert len(problems) == 2, out(r)
    assert all("`src/net.py:99` cites nothing in the repository" in p for p in problems)
