"""`discussions apply`: consent, refusal, the record, with fake write-mode CLIs
(tests/scripts/lead.py) in a real git repository."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.engine.apply.plan import revise
from discussions.model.discussion import Discussion

from ..conftest import write, write_signed
from ..support.apply import DISCUSSION, discussion, invoke, use_lead
from ..support.git import git_out as git

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)


@pytest.fixture
def project(apply_project: Path) -> Path:
    """The shared apply project (tests/support/apply.py)."""
    return apply_project


def user_files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts and p.name != "retry.md"
    } | {".git/index": (root / ".git" / "index").read_bytes()}


def applies(root: Path) -> list[dict[str, object]]:
    r = invoke("status", "discussions/retry.md", "--json")
    data = json.loads(r.output[r.output.index("{") :])
    return data["applies"]  # type: ignore[no-any-return]


@pytest.mark.slow
def test_apply_with_yes_commits_on_a_branch_and_records_it(project: Path) -> None:
    before = user_files(project)
    r = invoke("apply", "discussions/retry.md", "--yes")
    assert r.exit_code == 0, r.output
    assert "AI-Lead leads: logic" in r.output
    assert user_files(project) == before
    [record] = applies(project)
    assert record["result"] == "committed" and record["lead"] == "AI-Lead"
    assert record["provider"] == "fakewrite"
    assert record["consented_by"] == "Test User <test@example.com>"
    assert record["branch"] == "discussions/apply/retry-1"
    assert record["base"] == git(project, "rev-parse", "main").strip()
    commit = str(record["commit"])
    assert git(project, "rev-parse", "discussions/apply/retry-1").strip() == commit
    assert "return 3" in git(project, "show", f"{commit}:app.py")
    assert git(project, "log", "-1", "--format=%an", commit).strip() == "Test User"
    assert "Co-authored-by: AI-Lead <lead@discussions.invalid>" in git(
        project, "log", "-1", "--format=%B", commit
    )
    assert git(project, "branch", "--show-current").strip() == "main"


def test_without_a_terminal_nothing_runs_unless_yes(project: Path) -> None:
    before = (project / "discussions" / "retry.md").read_bytes()
    r = invoke("apply", "discussions/retry.md")
    assert r.exit_code == 1 and "--yes" in r.output
    assert (project / "discussions" / "retry.md").read_bytes() == before
    assert "discussions/apply" not in git(project, "branch", "--list")


def test_ci_never_implies_consent(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from discussions.cli import apply as command

    monkeypatch.setattr(command.sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setenv("CI", "true")
    r = invoke("apply", "discussions/retry.md")
    assert r.exit_code == 1 and "CI" in r.output
    assert "discussions/apply" not in git(project, "branch", "--list")


def test_consent_asked_on_a_terminal(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from discussions.cli import reviewing

    monkeypatch.setattr(reviewing, "_terminals", lambda: True)
    before = (project / "discussions" / "retry.md").read_bytes()
    refused = invoke("apply", "discussions/retry.md", input="n\n")
    assert refused.exit_code == 1 and "nothing was run" in refused.output
    assert (project / "discussions" / "retry.md").read_bytes() == before
    assert "discussions/apply" not in git(project, "branch", "--list")
    agreed = invoke("apply", "discussions/retry.md", input="y\n")
    assert agreed.exit_code == 0, agreed.output
    assert "[y/N]" in agreed.output
    assert applies(project)[0]["result"] == "committed"


@pytest.mark.slow
def test_an_undecided_discussion_is_refused_and_force_needs_a_reason(project: Path) -> None:
    discussion(project, "OPEN")
    r = invoke("apply", "discussions/retry.md", "--yes")
    assert r.exit_code == 1 and "not decided" in r.output
    r = invoke("apply", "discussions/retry.md", "--yes", "--force")
    assert r.exit_code == 2 and "--reason" in r.output
    assert "<!-- APPLY" not in (project / "discussions" / "retry.md").read_text()
    r = invoke("apply", "discussions/retry.md", "--yes", "--force", "--reason", "a spike")
    assert r.exit_code == 0, r.output
    assert applies(project)[0]["forced"] == "a spike"


@pytest.mark.slow
def test_open_questions_are_answered_or_acknowledged(project: Path) -> None:
    discussion(project, extra="Q: what about timeouts?\n")
    r = invoke("apply", "discussions/retry.md", "--yes")
    assert r.exit_code == 1 and "--acknowledge-questions" in r.output
    assert "discussions/apply" not in git(project, "branch", "--list")
    r = invoke("apply", "discussions/retry.md", "--yes", "--acknowledge-questions")
    assert r.exit_code == 0, r.output
    assert applies(project)[0]["acknowledged"] == 1


def test_dry_run_shows_the_hand_off_and_command_and_runs_nothing(project: Path) -> None:
    before = (project / "discussions" / "retry.md").read_bytes()
    r = invoke("apply", "discussions/retry.md", "--dry-run")
    assert r.exit_code == 0, r.output
    assert "implement three tries in retry()" in r.output
    assert "lead.py edit" in r.output and "AI-Lead leads" in r.output
    assert "Dry run" in r.output
    plan = json.loads(invoke("apply", "discussions/retry.md", "--dry-run", "--json").output)
    assert plan["branch"] == "discussions/apply/retry-1" and plan["provider"] == "fakewrite"
    assert (project / "discussions" / "retry.md").read_bytes() == before
    assert "discussions/apply" not in git(project, "branch", "--list")


def test_a_dry_run_needs_no_writer_and_says_why_it_cannot_run(project: Path, userdir: Path) -> None:
    write(
        userdir / "providers.yaml",
        f"""
        providers:
          - name: fakewrite
            command: {sys.executable} -c "print('reads only')"
          - name: readonly
            command: {sys.executable} -c "print('reads only')"
        """,
    )
    r = invoke("apply", "discussions/retry.md", "--dry-run")
    assert r.exit_code == 0, r.output
    assert "implement three tries in retry()" in r.output
    assert "It cannot run here: nobody in this discussion can lead" in r.output
    assert "Dry run" in r.output
    plan = json.loads(invoke("apply", "discussions/retry.md", "--dry-run", "--json").output)
    assert plan["lead"] is None and plan["provider"] is None and plan["command"] is None
    assert "nobody in this discussion can lead" in plan["problem"]
    r = invoke("apply", "discussions/retry.md", "--yes")
    assert r.exit_code == 1 and "nobody in this discussion can lead" in r.output  # a real run


def test_a_failing_lead_is_recorded_with_its_worktree(project: Path, userdir: Path) -> None:
    use_lead(userdir, "fail")
    r = invoke("apply", "discussions/retry.md", "--yes", "--json")
    assert r.exit_code == 1
    record = json.loads(r.output[r.output.index("{") :])["apply"]
    assert record["result"] == "failed" and record["commit"] is None
    assert Path(record["worktree"]).is_dir()
    [written] = applies(project)
    assert written["result"] == "failed" and "status 3" in str(written["reason"])


def test_a_lead_that_cannot_write_is_refused(project: Path) -> None:
    r = invoke("apply", "discussions/retry.md", "--yes", "--lead", "reader")
    assert r.exit_code == 1 and "AI-Reader cannot lead" in r.output
    assert "fakewrite" in r.output


@pytest.mark.slow
def test_revise_commits_again_on_the_same_branch(project: Path, userdir: Path) -> None:
    assert invoke("apply", "discussions/retry.md", "--yes").exit_code == 0
    use_lead(userdir, "prompt")
    d = Discussion.load(project / "discussions" / "retry.md")
    first = d.applies[0]
    second = revise(d, first.number, ["the tests are missing"])
    assert second.result == "committed", second.reason
    assert second.number == 2 and second.branch == first.branch and second.base == first.commit
    assert git(project, "rev-parse", f"{second.commit}^").strip() == first.commit
    assert "- the tests are missing" in git(project, "show", f"{second.commit}:prompt.txt")
    assert second.consented_by == first.consented_by
    d.reload()
    assert [a.number for a in d.applies] == [1, 2]


@pytest.mark.slow
def test_the_leads_output_streams_to_the_display(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = invoke("apply", "discussions/retry.md", "--yes")
    assert "AI-Lead is working on discussions/apply/retry-1" in plain.output
    assert "edited app.py, added notes/new.txt" in plain.output  # the lead's own line
    from discussions.cli import apply as command

    monkeypatch.setattr(command, "live_display", lambda as_json: True)
    live = invoke("apply", "discussions/retry.md", "--yes")
    assert live.exit_code == 0, live.output
    assert "discussions apply: 1/1 done" in live.output
    assert "AI-Lead" in live.output and "committed" in live.output


@pytest.mark.slow
def test_the_record_keeps_the_leads_summary_and_the_test_output(
    project: Path, userdir: Path
) -> None:
    from discussions.providers.trust import trust_evidence

    command = f"{sys.executable} -c \"print('3 passed')\""
    write(
        project / "discussions.yaml",
        f"""
        providers:
          fallback: []
          detect: false
        evidence:
          commands:
            test: {json.dumps(command)}
        """,
    )
    trust_evidence(project, {"test": command})
    assert invoke("apply", "discussions/retry.md", "--yes").exit_code == 0
    d = Discussion.load(project / "discussions" / "retry.md")
    [record] = d.applies
    assert record.tests == "passed" and record.test_command == command
    assert "AI-Lead said:\nedited app.py, added notes/new.txt, removed old.txt" in record.output
    assert "3 passed" in record.output and "[exit status 0]" in record.output


@pytest.mark.slow
def test_a_default_branch_taken_by_another_apply_gets_a_suffix(project: Path) -> None:
    """Two git branches of the project each apply the same discussion in one clone: both
    would be apply 1 on ``discussions/apply/retry-1``; the second takes ``retry-1-2``
    rather than failing after the person consented. A branch named with --branch that
    exists is refused before anything runs."""
    original = (project / "discussions" / "retry.md").read_bytes()
    assert invoke("apply", "discussions/retry.md", "--yes").exit_code == 0
    (project / "discussions" / "retry.md").write_bytes(original)  # the other git branch
    r = invoke("apply", "discussions/retry.md", "--yes")
    assert r.exit_code == 0, r.output
    [record] = applies(project)
    assert record["branch"] == "discussions/apply/retry-1-2"
    (project / "discussions" / "retry.md").write_bytes(original)
    before = user_files(project)
    r = invoke("apply", "discussions/retry.md", "--yes", "--branch", "discussions/apply/retry-1")
    assert r.exit_code != 0 and "exists already" in r.output
    assert "is working on" not in r.output and user_files(project) == before


def forge(root: Path, **changes: object) -> int:
    """Append an APPLY block copied from the first one with `changes`, as anyone who can edit
    the file (or merge a branch into it) could write it; returns its number."""
    from dataclasses import fields

    from discussions.syntax.apply import ApplyRecord, render_apply

    d = Discussion.load(root / "discussions" / "retry.md")
    first = d.applies[0]
    values = {f.name: getattr(first, f.name) for f in fields(ApplyRecord)}
    values.update(number=max(a.number for a in d.applies) + 1, **changes)
    d.add_block(render_apply(ApplyRecord(**values)))  # type: ignore[arg-type]
    d.save()
    return int(values["number"])  # type: ignore[call-overload]


def authors(root: Path) -> set[str]:
    return set(git(root, "log", "--all", "--format=%an <%ae>").split("\n")) - {""}


def test_a_revision_refuses_a_branch_an_apply_did_not_make(project: Path) -> None:
    from discussions.errors import ApplyError

    assert invoke("apply", "discussions/retry.md", "--yes").exit_code == 0
    git(project, "branch", "release", "main")
    tip = git(project, "rev-parse", "release")
    number = forge(project, branch="release", consented_by="Linus Torvalds <torvalds@example.org>")
    d = Discussion.load(project / "discussions" / "retry.md")
    with pytest.raises(ApplyError, match="not under discussions/apply/"):
        revise(d, number, ["make it so"])
    assert git(project, "rev-parse", "release") == tip
    assert "Linus Torvalds <torvalds@example.org>" not in authors(project)


def test_a_revision_refuses_a_branch_that_does_not_hold_the_commit(project: Path) -> None:
    from discussions.errors import ApplyError

    assert invoke("apply", "discussions/retry.md", "--yes").exit_code == 0
    branch = "discussions/apply/retry-1"
    tip = git(project, "rev-parse", branch)
    tree = git(project, "rev-parse", "main^{tree}").strip()
    elsewhere = git(project, "commit-tree", tree, "-p", "main", "-m", "elsewhere").strip()
    d = Discussion.load(project / "discussions" / "retry.md")
    for commit in (elsewhere, "main", "f" * 40):
        number = forge(project, commit=commit)
        d.reload()
        with pytest.raises(ApplyError, match="does not hold|records no commit"):
            revise(d, number, ["make it so"])
    assert git(project, "rev-parse", branch) == tip


def test_a_revision_refuses_an_edited_block(project: Path) -> None:
    from discussions.errors import ApplyError

    assert invoke("apply", "discussions/retry.md", "--yes").exit_code == 0
    path = project / "discussions" / "retry.md"
    text = path.read_text()
    assert "consented: Test User" in text
    path.write_text(text.replace("consented: Test User", "consented: Linus Torvalds", 1))
    d = Discussion.load(path)
    assert not d.applies[0].intact
    with pytest.raises(ApplyError, match="digest"):
        revise(d, 1, ["make it so"])


@pytest.mark.slow
def test_a_revision_is_authored_by_the_person_now(project: Path, userdir: Path) -> None:
    assert invoke("apply", "discussions/retry.md", "--yes").exit_code == 0
    number = forge(project, consented_by="Linus Torvalds <torvalds@example.org>")
    use_lead(userdir, "prompt")
    d = Discussion.load(project / "discussions" / "retry.md")
    again = revise(d, number, ["the tests are missing"])
    assert again.result == "committed", again.reason
    assert again.consented_by == "Test User <test@example.com>"
    assert "Linus Torvalds <torvalds@example.org>" not in authors(project)


def test_json_never_asks_blind(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --json the output is for a program: no question on it, and no consent without
    --yes (a terminal or not); nothing runs."""
    from discussions.cli import reviewing

    monkeypatch.setattr(reviewing, "_terminals", lambda: True)
    before = (project / "discussions" / "retry.md").read_bytes()
    r = CliRunner().invoke(cli, ["apply", "discussions/retry.md", "--json"], input="y\n")
    assert r.exit_code == 1 and "[y/N]" not in r.output
    assert "--yes" in r.output and "--json" in r.output
    assert (project / "discussions" / "retry.md").read_bytes() == before
    assert "discussions/apply" not in git(project, "branch", "--list")


def test_asking_needs_a_terminal_on_input_and_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """`apply F > log` on a terminal: the question would go into the file."""
    from discussions.cli import reviewing

    monkeypatch.delenv("CI", raising=False)

    class Stream:
        def __init__(self, tty: bool) -> None:
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    for stdin, stdout, can in ((True, True, True), (True, False, False), (False, True, False)):
        monkeypatch.setattr(reviewing.sys, "stdin", Stream(stdin))
        monkeypatch.setattr(reviewing.sys, "stdout", Stream(stdout))
        assert (reviewing.no_one_to_ask(False) == "") is can
        assert reviewing.no_one_to_ask(True) != ""
    monkeypatch.setenv("CI", "true")
    assert "CI" in reviewing.no_one_to_ask(False)


def test_dry_run_outside_git_shows_the_hand_off(
    isolated: Path, userdir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "none"))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(isolated.parent))
    use_lead(userdir, "edit")
    write(
        isolated / "participants" / "lead.yaml",
        """
        name: AI-Lead
        alias: lead
        role: Implementer
        personality: Writes the code.
        capabilities: [logic]
        provider_hint: fakewrite
        """,
    )
    write(isolated / "discussions.yaml", "providers:\n  fallback: []\n  detect: false\n")
    write_signed(
        isolated / "discussions" / "retry.md",
        DISCUSSION.format(status="DECIDED", extra="").replace("lead, reader", "lead"),
    )
    r = invoke("apply", "discussions/retry.md", "--dry-run")
    assert r.exit_code == 0, r.output
    assert "implement three tries in retry()" in r.output and "not in a git repository" in r.output
    assert invoke("apply", "discussions/retry.md", "--yes").exit_code == 1


def test_an_apply_during_a_merge_is_refused_before_anyone_is_asked(project: Path) -> None:
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "the discussion")
    git(project, "checkout", "-q", "-b", "other")
    git(project, "commit", "-q", "-m", "theirs", "--allow-empty")
    git(project, "checkout", "-q", "main")
    git(project, "merge", "-q", "--no-ff", "--no-commit", "other")
    r = invoke("apply", "discussions/retry.md", "--yes")
    assert r.exit_code != 0 and "a merge is in progress" in r.output
    assert "is working on" not in r.output and applies(project) == []
    r = invoke("apply", "discussions/retry.md", "--dry-run")
    assert r.exit_code == 0 and "a merge is in progress" in r.output, r.output
