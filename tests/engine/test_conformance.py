"""The conformance review: the council votes whether an applied branch implements the decision,
the lead revises on blockers, bounded (`engine.council.conformance`). Real git, real subprocess voters."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from discussions.engine.council.conformance import review_apply, review_due, votes_since
from discussions.engine.runner import Runner
from discussions.errors import DiscussionsError
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace
from discussions.syntax.apply import ApplyRecord, render_apply

from ..conftest import code, out, result_of, run, script_command, signed, write
from ..support.apply import RETRY_POLICY as DECIDED
from ..support.apply import decided_repository
from ..support.git import git_line as git

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)

BRANCH = "discussions/apply/retry-policy-1"


def Applied(  # noqa: N802 - reads as the record it makes
    number: int,
    lead: str,
    branch: str,
    base: str,
    commit: str | None,
    result: str = "committed",
    reason: str = "",
) -> ApplyRecord:
    """An apply's record as `discussions apply` writes it."""
    return ApplyRecord(
        number,
        lead,
        "lead-cli",
        branch,
        base,
        commit,
        "Test User <test@example.com>",
        result,
        files=(("app.py", 1, 1),) if commit else (),
        reason=reason,
    )


@pytest.fixture
def project(isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, providers_file):  # type: ignore[no-untyped-def]
    """project(plan, config=""): a git repository holding a decided discussion and a branch
    with the lead's change (checked out in a worktree of its own); voters answer by `plan`.
    Returns (discussion path, the apply's record, the branch's worktree)."""
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")

    def make(plan: dict[str, str], config: str = "") -> tuple[Path, Applied, Path]:
        providers_file(
            {"voter": script_command("conformance_voter.py", json.dumps(plan), str(memory))}
        )
        write(
            isolated / "discussions.yaml",
            "providers:\n  default: voter\n  detect: false\n" + config,
        )
        path = decided_repository(isolated)
        base = git(isolated, "rev-parse", "HEAD")
        tree = tmp_path / "lead-tree"
        git(isolated, "worktree", "add", "-q", "-b", BRANCH, str(tree))
        (tree / "app.py").write_text("def fetch():\n    for _ in range(100):\n        pass\n")
        git(tree, "commit", "-q", "-am", "Bound the retries")
        applied = Applied(1, "AI-Architect", BRANCH, base, git(tree, "rev-parse", "HEAD"))
        d = Discussion.load(path)
        d.add_block(render_apply(applied))
        d.save()
        return path, applied, tree

    memory = tmp_path / "memory"
    return make


def reviser(  # type: ignore[no-untyped-def]
    tree: Path, applied: ApplyRecord, calls: list[list[str]], from_tip: bool = False
):
    """A lead that revises for real, as `engine.apply.revise` does: a new commit on the branch
    that bounds the retries, recorded as the next APPLY block of the discussion (its base the
    original base, or with `from_tip` the tip it started from, as `revise` records it)."""

    def revise(under: ApplyRecord, blockers: list[str]) -> ApplyRecord:
        assert under.branch == applied.branch
        calls.append(blockers)
        (tree / "app.py").write_text(
            "RETRIES = 3\n\n\ndef fetch():\n    for _ in range(RETRIES):\n        pass\n"
        )
        tip = git(tree, "rev-parse", "HEAD")
        git(tree, "commit", "-q", "-am", f"Revision {len(calls)}: " + "; ".join(blockers))
        d = Discussion.load(Path.cwd() / "discussions" / "retry-policy.md")
        number = max(a.number for a in d.applies) + 1
        record = Applied(
            number,
            under.lead,
            under.branch,
            tip if from_tip else under.base,
            git(tree, "rev-parse", "HEAD"),
        )
        d.add_block(render_apply(record))
        d.save()
        return record

    return revise


def prompts(tmp_path: Path) -> list[str]:
    return [p.read_text("utf-8") for p in sorted((tmp_path / "memory" / "prompts").iterdir())]


def review_blocks(path: Path) -> list[str]:
    return [ln for ln in path.read_text("utf-8").splitlines() if ln.startswith("<!-- APPLY-REVIEW")]


def test_consensus_on_the_first_vote_sets_implemented(project, tmp_path: Path) -> None:
    path, applied, _ = project({"architect": "ready", "security": "ready", "pragmatist": "ready"})
    calls: list[list[str]] = []
    result = review_apply(
        Runner(Workspace.discover()),
        Discussion.load(path),
        applied,
        reviser(tmp_path / "lead-tree", applied, calls),
    )
    assert result.stage == "implemented" and len(result.rounds) == 1 and calls == []
    d = Discussion.load(path)
    assert d.status == "IMPLEMENTED"
    assert len(review_blocks(path)) == 1 and "result: implemented" in review_blocks(path)[0]
    # every voter got the decision and the branch's diff against its base, fenced
    asked = prompts(tmp_path)
    assert len(asked) == 3
    for prompt in asked:
        assert "retry at most 3 times, with a constant RETRIES in app.py" in prompt
        assert f"**Branch:** `{BRANCH}`" in prompt
        assert "```diff\ndiff --git a/app.py b/app.py" in prompt
        assert "+    for _ in range(100):" in prompt and "-    while True:" in prompt
    assert code(run("check", str(path))) == 0, out(run("check", str(path)))
    (review,) = d.applies[0].reviews
    assert (review.result, review.revision, review.commit) == ("implemented", 0, applied.commit)
    assert sorted(review.yes) == ["AI-Architect", "AI-Pragmatist", "AI-Security"]


@pytest.mark.slow
def test_changes_drive_a_revision_and_a_second_vote(project, tmp_path: Path) -> None:
    path, applied, tree = project(
        {"architect": "ready", "security": "changes", "pragmatist": "fixed"}
    )
    calls: list[list[str]] = []
    result = review_apply(
        Runner(Workspace.discover()), Discussion.load(path), applied, reviser(tree, applied, calls)
    )
    assert [r.result for r in result.rounds] == ["changes", "implemented"]
    assert result.stage == "implemented"
    # both voters' blockers went to the lead, once
    assert calls == [
        [
            "AI-Security: retries are not bounded (asked by security)",
            "AI-Pragmatist: retries are not bounded (asked by pragmatist)",
        ]
    ]
    # the second vote saw the revised branch: the whole change against the base
    second = prompts(tmp_path)[3:]
    assert len(second) == 3 and all("\n+RETRIES = 3" in p for p in second)
    assert all("Revision 1: AI-Security" in p for p in second)  # the commits of the range
    assert result.rounds[1].votes == {
        "AI-Architect": "READY",
        "AI-Security": "CHANGES",
        "AI-Pragmatist": "READY",
    }  # 2 of 3 READY meets the default threshold (0.67)
    d = Discussion.load(path)
    assert d.status == "IMPLEMENTED"
    blocks = review_blocks(path)
    assert ["result: changes" in blocks[0], "result: implemented" in blocks[1]] == [True, True]
    assert result.rounds[1].commit == git(tree, "rev-parse", "HEAD")
    assert git(Path.cwd(), "rev-parse", "--abbrev-ref", "HEAD") == "main"  # user's tree untouched


@pytest.mark.slow
def test_max_revisions_bounds_the_loop_and_lists_the_blockers(project, tmp_path: Path) -> None:
    path, applied, tree = project(
        {"architect": "changes", "security": "changes", "pragmatist": "ready"},
        "apply:\n  max_revisions: 1\n",
    )
    calls: list[list[str]] = []
    result = review_apply(
        Runner(Workspace.discover()), Discussion.load(path), applied, reviser(tree, applied, calls)
    )
    assert len(calls) == 1
    assert [r.result for r in result.rounds] == ["changes", "unresolved"]
    assert result.stage == "unresolved"
    assert [b.by for b in result.blockers] == ["AI-Architect", "AI-Security"]
    d = Discussion.load(path)
    assert d.status == "DECIDED"  # not implemented
    text = path.read_text("utf-8")
    assert (
        "- AI-Security: retries are not bounded (asked by security)"
        in text.split(review_blocks(path)[-1], 1)[1]
    )


def test_consensus_with_a_blocker_raised_is_implemented(project) -> None:
    path, applied, _ = project({"architect": "ready", "security": "changes", "pragmatist": "ready"})
    result = review_apply(Runner(Workspace.discover()), Discussion.load(path), applied)
    # 2 of 3 READY meets the threshold: the consensus rule decides, not one voter
    assert result.stage == "implemented" and result.blockers == []  # not a blocker...
    assert Discussion.load(path).status == "IMPLEMENTED"
    assert "CONCERN:" in path.read_text("utf-8")  # ...its concern stands in its comment


@pytest.mark.slow
def test_without_revise_the_review_stops_at_changes_and_resumes_there(
    project, tmp_path: Path
) -> None:
    path, applied, tree = project(
        {"architect": "ready", "security": "changes", "pragmatist": "fixed"}
    )
    result = review_apply(Runner(Workspace.discover()), Discussion.load(path), applied)
    assert [r.result for r in result.rounds] == ["changes"] and result.stage == "changes"
    assert "discussions apply FILE --review" in result.note
    assert Discussion.load(path).status == "DECIDED"
    asked = len(prompts(tmp_path))
    # again without a lead: nobody is asked, the blockers still wait for the lead
    again = review_apply(Runner(Workspace.discover()), Discussion.load(path))
    assert again.stage == "changes" and again.rounds == []
    assert len(prompts(tmp_path)) == asked
    # with the lead: the revision comes first (with the recorded blockers), then the vote
    calls: list[list[str]] = []
    done = review_apply(
        Runner(Workspace.discover()), Discussion.load(path), None, reviser(tree, applied, calls)
    )
    assert calls == [
        [
            "AI-Security: retries are not bounded (asked by security)",
            "AI-Pragmatist: retries are not bounded (asked by pragmatist)",
        ]
    ]
    assert [r.result for r in done.rounds] == ["implemented"] and done.rounds[0].revision == 1
    d = Discussion.load(path)
    assert [(a.number, [(r.revision, r.result) for r in a.reviews]) for a in d.applies] == [
        (1, [(0, "changes")]),
        (2, [(1, "implemented")]),
    ]
    assert d.status == "IMPLEMENTED"
    # finished: asks nobody, writes nothing
    before = path.read_text("utf-8")
    last = review_apply(Runner(Workspace.discover()), Discussion.load(path), None)
    assert last.stage == "implemented" and last.rounds == []
    assert path.read_text("utf-8") == before
    assert code(run("check", str(path))) == 0, out(run("check", str(path)))


def test_a_failed_voter_records_no_result(project) -> None:
    path, applied, tree = project({"architect": "ready", "security": "fail", "pragmatist": "ready"})
    calls: list[list[str]] = []
    result = review_apply(
        Runner(Workspace.discover()), Discussion.load(path), applied, reviser(tree, applied, calls)
    )
    assert result.stage == "waiting" and calls == []
    assert "AI-Security" in result.note
    assert review_blocks(path) == []
    d = Discussion.load(path)
    assert d.status == "DECIDED"
    assert [who for who, _ in d.engine_blocks("failed")] == ["AI-Security"]


def test_a_failed_revision_ends_unresolved(project) -> None:
    path, applied, _ = project({"architect": "changes", "security": "changes"})

    def revise(under: ApplyRecord, blockers: list[str]) -> ApplyRecord:
        return Applied(2, "AI-Architect", BRANCH, applied.base, None, "failed", "the lead crashed")

    result = review_apply(Runner(Workspace.discover()), Discussion.load(path), applied, revise)
    assert result.stage == "unresolved" and "the lead crashed" in result.note
    assert [r.result for r in result.rounds] == ["changes"]
    reviews = Discussion.load(path).applies[0].reviews
    assert [(r.revision, r.result) for r in reviews] == [(0, "changes"), (0, "unresolved")]
    assert reviews[1].blockers == reviews[0].blockers != ()


def test_an_apply_without_a_change_is_refused(project) -> None:
    path, applied, _ = project({})
    with pytest.raises(DiscussionsError, match="no change to review"):
        review_apply(
            Runner(Workspace.discover()),
            Discussion.load(path),
            Applied(1, "AI-Architect", BRANCH, applied.base, applied.base),
        )
    with pytest.raises(DiscussionsError, match="made no commit"):
        review_apply(
            Runner(Workspace.discover()),
            Discussion.load(path),
            Applied(1, "AI-Architect", BRANCH, applied.base, None, "unchanged"),
        )
    assert review_blocks(path) == []


def test_the_diff_stays_within_the_budget(project, tmp_path: Path) -> None:
    path, applied, tree = project({}, "context:\n  max_chars: 4000\n")
    (tree / "big.txt").write_text("".join(f"line {i}\n" for i in range(2000)))
    git(tree, "add", "big.txt")
    git(tree, "commit", "-q", "-m", "A big file")
    applied.commit = git(tree, "rev-parse", "HEAD")
    result = review_apply(Runner(Workspace.discover()), Discussion.load(path), applied)
    assert result.rounds[0].omitted == ["big.txt"]
    assert all("`big.txt`" in p and "+line 1999" not in p for p in prompts(tmp_path))


def test_votes_since_reads_concerns_of_changes_and_reject(isolated: Path) -> None:
    path = write(
        isolated / "x.md",
        DECIDED
        + (
            "\n---\n\n"
            + signed("AI-Security", "No.\n\nCONCERN: one\nCONCERN: two", "REJECT")
            + "\n---\n\n"
            + signed("AI-Architect", "Hm.", "CHANGES")
        ),
    )
    d = Discussion.load(path)
    start = DECIDED.count("\n")
    votes, blockers = votes_since(d, start)
    assert votes == {"AI-Security": "REJECT", "AI-Architect": "CHANGES"}
    assert [(b.by, b.text) for b in blockers] == [
        ("AI-Security", "one"),
        ("AI-Security", "two"),
        ("AI-Architect", "(voted CHANGES, no CONCERN: given)"),
    ]


def test_a_required_human_ready_keeps_the_review_waiting(project) -> None:
    path, applied, _ = project({}, "consensus:\n  human_required: true\n")
    result = review_apply(Runner(Workspace.discover()), Discussion.load(path), applied)
    assert result.stage == "waiting" and "human_required" in result.note
    assert review_blocks(path) == [] and Discussion.load(path).status == "DECIDED"


REVIEWED_TEMPLATE = """
name: reviewed
participants: [architect, security, pragmatist]
consensus_status: DECIDED
apply: {review: true}
phases:
  - id: consensus_vote
    voting_mode: true
"""


def test_run_reviews_an_applied_change_when_the_template_says_so(
    project, isolated: Path, tmp_path: Path
) -> None:
    path, applied, _ = project({"architect": "ready", "security": "changes", "pragmatist": "ready"})
    # the bundled template does not ask for a review: `run` runs rounds as ever
    assert not review_due(Discussion.load(path))
    plain = path.read_text("utf-8")
    write(isolated / "templates" / "reviewed.yaml", REVIEWED_TEMPLATE)
    path.write_text(plain.replace("Template: feature", "Template: reviewed"), encoding="utf-8")
    r = run("run", str(path), "--json")
    assert code(r) == 0, out(r)
    res = result_of(r)
    assert res["stopped"] == "reviewed" and res["rounds"] == 0
    assert res["review"]["stage"] == "implemented" and res["status"] == "IMPLEMENTED"
    assert len(prompts(tmp_path)) == 3 and all("### The change" in p for p in prompts(tmp_path))
    # reviewed: the next run does not review again
    assert not review_due(Discussion.load(path))


def test_run_records_the_changes_review_without_running_the_lead(project) -> None:
    path, applied, _ = project(
        {"architect": "changes", "security": "changes", "pragmatist": "ready"},
        "apply:\n  review: true\n",
    )
    assert review_due(Discussion.load(path))
    r = run("run", str(path))
    assert "cannot lead" not in out(r), out(r)  # `run` never starts a lead
    (review,) = Discussion.load(path).applies[0].reviews
    assert review.result == "changes" and len(review.blockers) == 2
    assert Discussion.load(path).status == "DECIDED"


def test_the_budget_stops_the_review_before_a_call(project, tmp_path: Path) -> None:
    path, applied, _ = project({}, "budget:\n  max_calls: 2\n")
    result = review_apply(Runner(Workspace.discover()), Discussion.load(path), applied)
    assert result.stage == "budget" and "budget" in result.note
    assert not (tmp_path / "memory").exists()  # no call was made
    assert review_blocks(path) == [] and "<!-- RUN-STOP: budget" in path.read_text("utf-8")


@pytest.mark.slow
def test_a_revision_is_reviewed_as_the_whole_change_from_the_first_base(
    project, tmp_path: Path
) -> None:
    """A revision's block records the tip it started from as its base; the council still
    votes on everything the branch changed since the first apply's base."""
    path, applied, tree = project(
        {"architect": "ready", "security": "changes", "pragmatist": "fixed"}
    )
    calls: list[list[str]] = []
    result = review_apply(
        Runner(Workspace.discover()),
        Discussion.load(path),
        applied,
        reviser(tree, applied, calls, from_tip=True),
    )
    assert [r.result for r in result.rounds] == ["changes", "implemented"]
    second = prompts(tmp_path)[3:]
    assert len(second) == 3
    for prompt in second:
        assert "-    while True:" in prompt and "\n+RETRIES = 3" in prompt  # from the base
        assert "Bound the retries" in prompt  # the first apply's commit is in the range


@pytest.mark.slow
def test_run_is_not_blocked_by_an_apply_made_in_another_clone(project, isolated: Path) -> None:
    """APPLY blocks travel through merges; apply branches stay in the clone that made them.
    A review due on a commit this clone lacks is not due here: rounds run, a note says why."""
    path, applied, tree = project(
        {"architect": "ready", "security": "ready", "pragmatist": "ready"},
        "apply:\n  review: true\n",
    )
    d = Discussion.load(path)
    foreign = Applied(2, "AI-Architect", "discussions/apply/retry-policy-9", applied.base, "a" * 40)
    d.add_block(render_apply(foreign))
    d.save()
    assert not review_due(Discussion.load(path))
    r = run("run", str(path), "--rounds", "1", "--json")
    assert code(r) == 0, out(r)
    res = result_of(r)
    assert res["stopped"] != "reviewed" and res["rounds"] == 1
    assert any("discussions/apply/retry-policy-9" in n for n in res["notes"]), res
    plain = run("run", str(path), "--rounds", "1")
    assert "discussions/apply/retry-policy-9" in out(plain)


def test_a_review_of_a_commit_not_in_this_clone_names_its_branch(project) -> None:
    from discussions.errors import ApplyError

    path, applied, _ = project({})
    foreign = Applied(1, "AI-Architect", "discussions/apply/retry-policy-9", applied.base, "a" * 40)
    with pytest.raises(ApplyError, match="retry-policy-9"):
        review_apply(Runner(Workspace.discover()), Discussion.load(path), foreign)
    assert review_blocks(path) == []


def test_the_review_asks_through_any_asker(project) -> None:
    """`review_apply` takes an asker, not a runner: a recorder sees one turn asked of the
    voters, outside the council's motions, with the decision and the change's diff; its turn
    stopped, nothing is recorded."""
    from ..support.asking import RecordingAsker

    path, applied, _ = project({})
    before = path.read_text("utf-8")
    asker = RecordingAsker(Workspace.discover())
    result = review_apply(asker, Discussion.load(path), applied)
    assert result.stage == "budget" and "nothing was recorded" in result.note
    ((aliases, callout, council),) = asker.turns
    assert aliases == ["architect", "security", "pragmatist"] and council is False
    assert "retry at most 3 times, with a constant RETRIES in app.py" in callout
    assert "+    for _ in range(100):" in callout and f"`{BRANCH}`" in callout
    assert asker.asked == [] and path.read_text("utf-8") == before
