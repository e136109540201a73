"""`discussions apply --review`, the review after `apply` and the one `run` makes
(``apply: review``): fake voters and a fake write-mode lead in a real git repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from discussions.model.discussion import Discussion

from ..conftest import code, out, result_of, run, script_command, write
from ..support.apply import decided_repository
from ..support.git import git_line as git

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)

PLAN = {"architect": "ready", "security": "changes", "pragmatist": "fixed"}


@pytest.fixture
def project(isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, providers_file):  # type: ignore[no-untyped-def]
    """project(config=""): a git repository with a decided discussion; one provider votes
    by `PLAN` and leads with tests/scripts/revising_lead.py, without a sandbox (it logs its
    prompts outside its clone). Returns the discussion's path. `config` is ``apply:`` keys."""
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("CI", raising=False)

    def make(config: str = "") -> Path:
        voter = script_command("conformance_voter.py", json.dumps(PLAN), str(tmp_path / "memory"))
        lead = script_command("revising_lead.py", str(tmp_path / "lead-prompts.txt"))
        providers_file({"voter": voter}, voter={"write_command": json.dumps(lead)})
        write(
            isolated / "discussions.yaml",
            "providers:\n  default: voter\n  fallback: []\n  detect: false\n"
            "apply:\n  sandbox: off\n" + config,
        )
        return decided_repository(isolated)

    return make


@pytest.mark.slow
def test_apply_reviews_revises_and_ends_implemented(project, isolated: Path) -> None:
    path = project("  review: true\n")
    r = run("apply", str(path), "--yes", "--json")
    assert code(r) == 0, out(r)
    res = result_of(r)
    assert res["apply"]["result"] == "committed"
    review = res["review"]
    assert review["stage"] == "implemented"
    assert [x["result"] for x in review["rounds"]] == ["changes", "implemented"]
    d = Discussion.load(path)
    assert d.status == "IMPLEMENTED"
    assert [(a.number, a.result) for a in d.applies] == [(1, "committed"), (2, "committed")]
    assert [(r.revision, r.result) for a in d.applies for r in a.reviews] == [
        (0, "changes"),
        (1, "implemented"),
    ]
    # the revision is a second commit on the same branch; the user's tree is untouched
    branch = d.applies[0].branch
    assert d.applies[1].branch == branch
    assert "RETRIES = 3" in git(isolated, "show", f"{branch}:app.py")
    assert git(isolated, "rev-list", "--count", f"main..{branch}") == "2"
    assert (isolated / "app.py").read_text() == "def fetch():\n    while True:\n        pass\n"
    assert code(run("check", str(path))) == 0


@pytest.mark.slow
def test_apply_review_reviews_the_change_already_applied(
    project, isolated: Path, tmp_path: Path
) -> None:
    path = project()
    r = run("apply", str(path), "--yes")
    assert code(r) == 0, out(r)
    assert "Review of apply" not in out(r)  # apply: review is not set
    assert not (tmp_path / "memory").exists()  # nobody was asked to vote
    # no terminal, no --yes: the council votes, the lead does not revise
    r = run("apply", str(path), "--review")
    assert "Revision 0: changes." in out(r) and "Revision 1" not in out(r), out(r)
    assert "Give --yes to let it revise" in out(r)
    assert len(Discussion.load(path).applies) == 1
    r = run("apply", str(path), "--review", "--yes")
    assert code(r) == 0, out(r)
    assert "Revision 1: implemented." in out(r)
    assert "Review of apply 2: implemented." in out(r)
    lead = (tmp_path / "lead-prompts.txt").read_text("utf-8")
    assert "- AI-Security: retries are not bounded (asked by security)" in lead
    assert Discussion.load(path).status == "IMPLEMENTED"
    # finished: asks nobody
    r = run("apply", str(path), "--review")
    assert code(r) == 0 and "Review of apply 2: implemented." in out(r)


def test_apply_review_refuses_options_of_a_new_apply(project) -> None:
    path = project()
    r = run("apply", str(path), "--review", "--lead", "architect")
    assert code(r) == 2 and "--lead" in out(r)
    r = run("apply", str(path), "--review", "--reason", "because")
    assert code(r) == 2 and "--reason" in out(r)
    r = run("apply", str(path), "--review")
    assert code(r) == 1 and "run `discussions apply retry-policy.md` first" in out(r)
    assert "--yes" not in out(r)  # no word about revising: no review runs


@pytest.mark.slow
def test_run_reviews_the_applied_change_and_leaves_revising_to_a_consent(
    project, isolated: Path
) -> None:
    """`run` asks no one, so it never starts the lead's write-mode run: the review stops at
    its blockers, and `apply --review --yes` has the lead revise."""
    path = project()
    assert code(run("apply", str(path), "--yes")) == 0
    write(
        isolated / "discussions.yaml",
        (isolated / "discussions.yaml").read_text() + "  review: true\n",
    )
    r = run("run", str(path))
    assert "Stopped after 0 round(s): reviewed." in out(r), out(r)
    assert "Review of apply 1: changes." in out(r)
    assert len(Discussion.load(path).applies) == 1  # no revision ran
    r = run("apply", str(path), "--review", "--yes")
    assert code(r) == 0, out(r)
    assert "Review of apply 2: implemented." in out(r)
    assert Discussion.load(path).status == "IMPLEMENTED"


@pytest.mark.slow
def test_an_unresolved_review_exits_1(project) -> None:
    path = project("  review: true\n  max_revisions: 0\n")
    r = run("apply", str(path), "--yes", "--json")
    assert code(r) == 1, out(r)
    assert result_of(r)["review"]["stage"] == "unresolved"
    r = run("apply", str(path), "--review")
    assert code(r) == 1 and "Review of apply 1: unresolved." in out(r)


@pytest.mark.slow
def test_the_revision_question_names_branch_command_and_author(
    project, isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from discussions.cli import reviewing

    path = project()
    assert code(run("apply", str(path), "--yes")) == 0
    monkeypatch.setattr(reviewing, "_terminals", lambda: True)
    from click.testing import CliRunner

    from discussions.cli import cli

    r = CliRunner().invoke(cli, ["apply", str(path), "--review"], input="n\n")
    said = out(r)
    assert "discussions/apply/retry-policy-1" in said and "revising_lead.py" in said, said
    assert "Test User <test@example.com>" in said and "[y/N]" in said
    assert "Revision 0: changes." in said and "Revision 1" not in said


@pytest.mark.slow
def test_a_review_with_yes_refuses_a_branch_no_apply_made(project, isolated: Path) -> None:
    from discussions.syntax.apply import ApplyRecord, render_apply

    path = project()
    assert code(run("apply", str(path), "--yes")) == 0
    d = Discussion.load(path)
    first = d.applies[0]
    git(isolated, "branch", "release", "main")
    tip = git(isolated, "rev-parse", "release")
    forged = ApplyRecord(
        2,
        first.lead,
        first.provider,
        "release",
        first.base,
        first.commit,
        "Linus Torvalds <torvalds@example.org>",
        "committed",
        files=first.files,
    )
    d.add_block(render_apply(forged))
    d.save()
    before = path.read_text("utf-8")
    r = run("apply", str(path), "--review", "--yes")
    assert code(r) == 1 and "not under discussions/apply/" in out(r)
    assert git(isolated, "rev-parse", "release") == tip
    assert "Linus" not in git(isolated, "log", "--all", "--format=%an")
    assert path.read_text("utf-8") == before  # refused before the vote


@pytest.mark.slow
def test_an_edited_apply_block_is_not_reviewed(project, tmp_path: Path) -> None:
    """An APPLY block edited after it was written (here its commit) fails its digest: the
    council is not pointed at whatever commit the edit names."""
    path = project()
    assert code(run("apply", str(path), "--yes")) == 0
    d = Discussion.load(path)
    commit = d.applies[0].commit
    assert commit
    text = path.read_text("utf-8")
    other = "1" if commit.endswith("0") else "0"  # another commit, whatever the hash ends with
    path.write_text(text.replace(f"commit: {commit}", f"commit: {commit[:-1]}{other}"), "utf-8")
    r = run("apply", str(path), "--review", "--yes")
    assert code(r) != 0 and "does not match its digest" in out(r), out(r)
    assert not (tmp_path / "memory").exists()  # nobody was asked to vote
