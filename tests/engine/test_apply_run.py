"""Running a lead in a worktree of its own (`engine.apply.run`, `git.worktree`): fake write-mode
CLIs (tests/scripts/lead.py) in real git repositories."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from discussions.engine.apply import run as apply_run
from discussions.engine.apply.run import Job, LeadCommand, ProjectTests
from discussions.errors import ApplyError, ProviderNotFound
from discussions.git import worktree
from discussions.providers.trust import trust_evidence
from discussions.settings.evidence import EvidenceSettings

from ..conftest import script_command
from ..support.git import commit_files
from ..support.git import git_out as git
from ..support.waiting import alive, wait_dead

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)

PERSONA = "AI-Architect <architect@discussions.invalid>"


@pytest.fixture
def repo(repo: Path) -> Path:
    """The shared repository with one commit and a dirty working tree: a modified tracked
    file, a staged change and an untracked file."""
    files = {"app.py": "def retry():\n    return 1\n", "old.txt": "old\n", "staged.txt": "one\n"}
    commit_files(repo, files)
    (repo / "staged.txt").write_text("two\n")
    git(repo, "add", "staged.txt")
    (repo / "old.txt").write_text("the user's unsaved work\n")
    (repo / "scratch.txt").write_text("untracked\n")
    return repo


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file of the user's tree and the index, byte for byte (the worktrees aside)."""
    files = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }
    files[".git/index"] = (root / ".git" / "index").read_bytes()
    files[".git/HEAD"] = (root / ".git" / "HEAD").read_bytes()
    files["refs/heads/main"] = git(root, "rev-parse", "main").encode()
    return files


def job(root: Path, mode: str, *extra: str, target: bool = False, **options: object) -> Job:
    """A run of tests/scripts/lead.py MODE; with `target`, the lead knows where the user's
    repository is (LEAD_TARGET) and aims at it directly, as a clone alone does not stop."""
    lead = LeadCommand("fake-write", script_command("lead.py", mode, *extra))
    if target:
        lead.env = {"LEAD_TARGET": str(root)}
    return Job(
        root,
        "discussions/apply/retry-1",
        "Implement: retries go to 3.",
        lead,
        "Test User <test@example.com>",
        PERSONA,
        "Apply retry: three tries",
        **options,  # type: ignore[arg-type]
    )


def test_the_branch_holds_the_change_and_the_dirty_tree_stays_byte_identical(repo: Path) -> None:
    before = tree_bytes(repo)
    seen: list[str] = []
    out = apply_run.execute(job(repo, "edit", on_output=seen.append))
    assert out.result == "committed", out.reason
    assert tree_bytes(repo) == before
    assert git(repo, "branch", "--show-current").strip() == "main"
    branch = "discussions/apply/retry-1"
    assert git(repo, "show", f"{branch}:app.py") == "def retry():\n    return 3  # three tries\n"
    assert git(repo, "show", f"{branch}:notes/new.txt") == "new\n"
    assert "old.txt" not in git(repo, "ls-tree", "--name-only", branch)
    assert out.commit == git(repo, "rev-parse", branch).strip()
    assert out.base == git(repo, "rev-parse", "main").strip()
    assert git(repo, "rev-parse", f"{branch}^").strip() == out.base  # one commit on HEAD
    assert sorted(out.files) == [("app.py", 1, 1), ("notes/new.txt", 1, 0), ("old.txt", 0, 1)]
    assert "edited app.py" in "".join(seen) and "edited app.py" in out.lead_output
    assert out.worktree == "" and not worktree.place(repo, branch).exists()
    assert out.lead_seconds <= out.duration


def test_the_commit_is_the_consenting_persons_and_names_the_persona(repo: Path) -> None:
    out = apply_run.execute(job(repo, "edit", body="Implements the decisions of retry.md."))
    assert out.commit
    author = git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>", out.commit).strip()
    assert author == "Test User <test@example.com>|Test User <test@example.com>"
    message = git(repo, "log", "-1", "--format=%B", out.commit)
    assert message.startswith("Apply retry: three tries\n\nImplements the decisions of retry.md.")
    trailers = git(repo, "log", "-1", "--format=%(trailers:key=Co-authored-by)", out.commit)
    assert trailers.strip() == f"Co-authored-by: {PERSONA}"


def test_nothing_changed_is_recorded_as_unchanged_without_a_commit_or_branch(repo: Path) -> None:
    before = tree_bytes(repo)
    out = apply_run.execute(job(repo, "nothing"))
    assert (out.result, out.commit, out.files) == ("unchanged", None, [])
    assert not worktree.branch_exists(repo, "discussions/apply/retry-1")
    assert not worktree.place(repo, "discussions/apply/retry-1").exists()
    assert tree_bytes(repo) == before


def test_a_failing_lead_keeps_its_worktree_and_commits_nothing(repo: Path) -> None:
    before = tree_bytes(repo)
    out = apply_run.execute(job(repo, "fail"))
    assert out.result == "failed"
    assert "status 3" in out.reason and "cannot finish" in out.reason
    assert out.commit is None
    kept = Path(out.worktree)
    assert kept == worktree.place(repo, "discussions/apply/retry-1")
    assert "return 3" in (kept / "app.py").read_text()  # there to inspect
    assert git(repo, "rev-parse", "discussions/apply/retry-1").strip() == out.base
    assert tree_bytes(repo) == before


@pytest.mark.slow
def test_a_hanging_lead_times_out_and_leaves_no_process(repo: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "daemon.pid"
    before = tree_bytes(repo)
    out = apply_run.execute(job(repo, "hang", str(pidfile), timeout=1.0))
    assert out.result == "timeout" and "1s" in out.reason
    daemon = int(pidfile.read_text())
    assert wait_dead(daemon), "the lead's escaped child outlived the apply"
    assert Path(out.worktree).is_dir() and out.commit is None
    assert "thinking..." in out.lead_output
    assert tree_bytes(repo) == before


def test_a_lead_writing_outside_its_worktree_is_refused(repo: Path) -> None:
    out = apply_run.execute(job(repo, "outside", target=True))
    assert out.result == "refused-outside"
    assert "app.py changed" in out.reason
    assert out.commit is None
    assert git(repo, "rev-parse", "discussions/apply/retry-1").strip() == out.base
    assert Path(out.worktree).is_dir()


def test_commits_the_lead_made_itself_fold_into_one_commit_of_the_person(repo: Path) -> None:
    out = apply_run.execute(job(repo, "commit"))
    assert out.result == "committed", out.reason
    assert git(repo, "rev-parse", f"{out.commit}^").strip() == out.base
    assert git(repo, "log", "-1", "--format=%an", out.commit).strip() == "Test User"


def test_the_prompt_reaches_the_lead_on_stdin_or_as_an_argument(repo: Path) -> None:
    out = apply_run.execute(job(repo, "prompt"))
    assert git(repo, "show", f"{out.commit}:prompt.txt") == "Implement: retries go to 3."
    second = job(repo, "argument")
    second.branch, second.lead.prompt_via = "discussions/apply/retry-2", "argument"
    out = apply_run.execute(second)
    assert git(repo, "show", f"{out.commit}:prompt.txt") == "Implement: retries go to 3."


@pytest.mark.slow
def test_the_trusted_test_command_runs_in_the_worktree(repo: Path, tmp_path: Path) -> None:
    check = tmp_path / "check.py"
    check.write_text(
        "import pathlib, sys\n"
        "print('cwd', pathlib.Path.cwd())\n"
        "sys.exit(0 if 'return 3' in pathlib.Path('app.py').read_text() else 1)\n"
    )
    command = f"{sys.executable} {check}"
    passed = apply_run.execute(job(repo, "edit", tests=ProjectTests(command, True, 30)))
    assert (passed.tests, passed.test_command) == ("passed", command)
    assert f"cwd {worktree.place(repo, passed.branch)}" in passed.test_output
    assert "[exit status 0]" in passed.test_output
    failing = job(repo, "nothing", tests=ProjectTests(command, True, 30))
    failing.branch = "discussions/apply/retry-2"
    assert apply_run.execute(failing).tests == "not run"  # nothing changed: nothing to test


@pytest.mark.slow
def test_a_failing_or_untrusted_test_command_is_recorded(repo: Path, tmp_path: Path) -> None:
    command = f"{sys.executable} -c 'import sys; print(\"2 failed\"); sys.exit(1)'"
    settings = EvidenceSettings(commands={"test": command})
    untrusted = apply_run.project_tests(repo, settings, 30)
    assert untrusted is not None and not untrusted.trusted
    out = apply_run.execute(job(repo, "edit", tests=untrusted))
    assert out.tests == "not run" and "discussions trust" in out.test_output
    trust_evidence(repo, settings.commands)
    trusted = apply_run.project_tests(repo, settings, 30)
    assert trusted is not None and trusted.trusted
    second = job(repo, "edit", tests=trusted)
    second.branch = "discussions/apply/retry-2"
    out = apply_run.execute(second)
    assert out.result == "committed" and out.tests == "failed"
    assert "2 failed" in out.test_output and "[exit status 1]" in out.test_output
    assert apply_run.project_tests(repo, EvidenceSettings(), 30) is None


@pytest.mark.slow
def test_a_revision_commits_again_on_the_same_branch(repo: Path) -> None:
    first = apply_run.execute(job(repo, "edit"))
    again = job(repo, "prompt", revise=True)
    again.prompt = "Blockers: add a test."
    second = apply_run.execute(again)
    assert second.result == "committed", second.reason
    assert second.base == first.commit and second.branch == first.branch
    assert git(repo, "rev-parse", f"{second.commit}^").strip() == first.commit
    assert git(repo, "show", f"{first.branch}:prompt.txt") == "Blockers: add a test."
    assert worktree.branch_exists(repo, first.branch)
    unchanged = job(repo, "nothing", revise=True)
    assert apply_run.execute(unchanged).result == "unchanged"
    assert worktree.branch_exists(repo, first.branch)  # a revision never drops the branch


def test_nothing_starts_without_the_command_an_identity_or_a_commit(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = job(repo, "edit")
    missing.lead.command = "no-such-write-cli --edit"
    with pytest.raises(ProviderNotFound, match="no-such-write-cli"):
        apply_run.execute(missing)
    assert not worktree.branch_exists(repo, missing.branch)
    apply_run.execute(job(repo, "edit"))
    with pytest.raises(ApplyError, match="exists already"):
        apply_run.execute(job(repo, "edit"))
    (tmp_path / "gitconfig").write_text("")
    with pytest.raises(ApplyError, match="git config user.name"):
        worktree.identity(repo)
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    with pytest.raises(ApplyError, match="no commit yet"):
        worktree.create(empty, "x")


def test_the_repositorys_hooks_and_filters_do_not_run(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (repo / ".gitattributes").write_text("*.py filter=evil\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "attributes", "--", ".gitattributes")
    hooks = repo / ".git" / "hooks"
    for hook in ("post-checkout", "pre-commit", "commit-msg", "post-commit"):
        (hooks / hook).write_text(f"#!/bin/sh\necho {hook} >> {marker}\n")
        (hooks / hook).chmod(0o755)
    git(repo, "config", "filter.evil.clean", f"sh -c 'echo clean >> {marker}; cat'")
    git(repo, "config", "filter.evil.smudge", f"sh -c 'echo smudge >> {marker}; cat'")
    out = apply_run.execute(job(repo, "edit"))
    assert out.result == "committed", out.reason
    assert not marker.exists(), marker.read_text()


def test_a_lead_writing_into_the_git_folder_is_refused(repo: Path) -> None:
    out = apply_run.execute(job(repo, "hook", target=True))
    assert out.result == "refused-outside"
    assert ".git/hooks/post-checkout changed" in out.reason
    assert out.commit is None


def test_the_lead_never_sees_the_git_variables_of_a_hook(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from a git hook, `discussions` has GIT_DIR and GIT_INDEX_FILE pointing at the
    user's repository: a lead's own `git commit` must not land there."""
    main = git(repo, "rev-parse", "main").strip()
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(repo))
    monkeypatch.setenv("GIT_INDEX_FILE", str(repo / ".git" / "index"))
    out = apply_run.execute(job(repo, "commit"))
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_WORK_TREE")
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert out.result == "committed", out.reason
    assert git(repo, "rev-parse", "main").strip() == main
    assert git(repo, "rev-parse", f"{out.commit}^").strip() == main


@pytest.mark.slow
def test_a_relative_script_runs_as_trusted_from_the_project_not_the_worktrees_copy(
    repo: Path,
) -> None:
    """Trust hashed ``tools/lead.py`` in the project folder; the lead runs in its worktree,
    where that copy is missing (untracked) or could differ, so the word is made absolute."""
    import shutil

    from ..conftest import SCRIPTS

    (repo / "tools").mkdir()
    shutil.copy(SCRIPTS / "lead.py", repo / "tools" / "lead.py")
    words = f"{sys.executable} tools/lead.py edit"
    anchored = job(repo, "edit")
    anchored.lead = LeadCommand("fake-write", words, base=str(repo))
    assert apply_run.execute(anchored).result == "committed"
    loose = job(repo, "edit")
    loose.branch = "discussions/apply/retry-2"
    loose.lead = LeadCommand("fake-write", words)
    assert apply_run.execute(loose).result == "failed"


def test_a_bare_executable_name_is_still_looked_up_on_path(tmp_path: Path) -> None:
    (tmp_path / "python3").write_text("not this one\n")
    (tmp_path / "x.py").write_text("")
    argv = apply_run._anchored(["python3", "x.py", "--in=x.py", "-q"], str(tmp_path))
    assert argv == ["python3", str(tmp_path / "x.py"), f"--in={tmp_path / 'x.py'}", "-q"]


# --------------------------------------------------------------------------- a lead that cheats


@pytest.fixture
def guarded(repo: Path, tmp_path: Path) -> Path:
    """`repo` with an ignored .venv/, a second branch `release` and a linked worktree of the
    user's (`side`), which cheating leads aim at."""
    (repo / ".gitignore").write_text(".venv/\n")
    (repo / ".venv").mkdir()
    (repo / ".venv" / "site.pth").write_text("\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "ignore", "--", ".gitignore")
    git(repo, "branch", "release")
    git(repo, "worktree", "add", "-q", str(tmp_path / "side"), "-b", "side")
    return repo


def user_refs(root: Path) -> str:
    """Every reference but the apply's branch."""
    out = git(root, "for-each-ref", "--format=%(refname) %(objectname)")
    return "\n".join(ln for ln in out.splitlines() if "discussions/apply/" not in ln)


@pytest.mark.parametrize(
    ("mode", "named"),
    [
        ("checkout", "the checked-out commit or branch changed"),
        ("head", "the checked-out commit or branch changed"),
        ("refs", "the reference refs/heads/evilbranch appeared"),
        ("move", "the reference refs/heads/release moved"),
        ("ignored", ".venv/evil.pth was written"),
        ("alternates", ".git/objects/info/alternates changed"),
        ("worktrees", "/HEAD changed"),
        ("packed", ".git/packed-refs changed"),
    ],
)
def test_a_cheating_lead_is_refused_and_nothing_reaches_the_users_branches(
    guarded: Path, mode: str, named: str
) -> None:
    refs, index = user_refs(guarded), (guarded / ".git" / "index").read_bytes()
    out = apply_run.execute(job(guarded, mode, target=True))
    assert out.result == "refused-outside", out.reason
    assert named in out.reason and ".venv/ was written" not in out.reason
    assert out.commit is None and Path(out.worktree).is_dir()
    assert "Apply retry" not in git(guarded, "log", "--all", "--format=%s")
    assert git(guarded, "rev-parse", "discussions/apply/retry-1").strip() == out.base
    assert (guarded / ".git" / "index").read_bytes() == index
    left = {
        "checkout": ("refs/heads/the-leads",),
        "refs": ("refs/heads/evilbranch", "refs/tags/evil-tag"),
        "move": ("refs/heads/release",),
        "packed": ("refs/heads/packed-evil",),
    }  # what the lead did itself: found and named, never undone
    changed = [ln for ln in user_refs(guarded).splitlines() if ln not in refs.splitlines()]
    assert all(any(n in ln for n in left.get(mode, ())) for ln in changed), changed
    assert git(guarded, "rev-parse", "main").strip() == out.base  # the user's branch


def test_the_commit_reads_nothing_of_the_clones_git_folder(repo: Path, tmp_path: Path) -> None:
    """The engine commits the clone's files with a git folder of its own: a clone whose HEAD
    names the user's branch, whose config sets an fsmonitor and a hook path, still commits its
    files onto the apply's branch, by name, and runs nothing."""
    marker = tmp_path / "ran"
    wt = worktree.create(repo, "discussions/apply/direct-1")
    (wt.path / "app.py").write_text("changed\n")
    (wt.path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (wt.path / "evil.sh").write_text(f"#!/bin/sh\necho ran >> {marker}\n")
    (wt.path / "evil.sh").chmod(0o755)
    with (wt.path / ".git" / "config").open("a") as f:
        f.write(f"[core]\n\tfsmonitor = {wt.path / 'evil.sh'}\n\thooksPath = {wt.path}\n")
    main = git(repo, "rev-parse", "main").strip()
    made = worktree.commit(wt, "Test User <test@example.com>", PERSONA, "s")
    assert made == git(repo, "rev-parse", "discussions/apply/direct-1").strip()
    assert git(repo, "show", f"{made}:app.py") == "changed\n"
    assert git(repo, "rev-parse", "main").strip() == main and not marker.exists()


def test_a_clone_whose_git_folder_points_at_the_users_commits_only_its_files(repo: Path) -> None:
    """The lead replaced its clone's .git with a pointer to the user's git folder: the engine
    never reads it, and the user's repository is left alone."""
    before = tree_bytes(repo)
    out = apply_run.execute(job(repo, "gitfile", target=True))
    assert out.result == "committed", out.reason
    assert git(repo, "show", f"{out.commit}:app.py").endswith("three tries\n")
    assert tree_bytes(repo) == before


def test_the_clone_shares_nothing_with_the_users_repository(repo: Path) -> None:
    """Its own objects (no alternates, no hard links), config, hooks and references; no
    remote naming the user's repository."""
    wt = worktree.create(repo, "discussions/apply/own-1")
    dotgit = wt.path / ".git"
    assert dotgit.is_dir() and not (dotgit / "objects" / "info" / "alternates").exists()
    assert git(wt.path, "remote").strip() == "" and not (dotgit / "hooks").exists()
    assert git(wt.path, "for-each-ref", "--format=%(refname)").split() == [
        "refs/heads/discussions/apply/own-1"
    ]
    users = {p.stat().st_ino for p in (repo / ".git" / "objects").rglob("*") if p.is_file()}
    assert all(p.stat().st_ino not in users for p in (dotgit / "objects").rglob("*"))
    assert git(wt.path, "rev-parse", "HEAD").strip() == wt.base
    assert str(repo) not in (dotgit / "config").read_text()


def test_our_own_output_file_in_the_repository_is_not_a_change(repo: Path) -> None:
    """``discussions apply F 2> err.txt`` inside the repository: err.txt grows while the
    lead runs, and is ours."""
    import os

    err = repo / "err.txt"
    saved = os.dup(2)
    try:
        with err.open("wb") as f:
            os.dup2(f.fileno(), 2)
            out = apply_run.execute(job(repo, "edit", on_output=lambda t: os.write(2, t.encode())))
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    assert b"edited app.py" in err.read_bytes()
    assert out.result == "committed", out.reason


def test_a_change_made_during_the_run_is_worded_as_yours_or_the_leads(repo: Path) -> None:
    out = apply_run.execute(job(repo, "outside", target=True))
    assert out.reason.startswith(
        "the working tree changed while the lead ran (by the lead or by you): "
    )


def test_the_test_command_runs_the_projects_copy_of_its_script(repo: Path) -> None:
    """A relative ``scripts/check.sh`` is the trusted project copy, not the one the lead may
    have rewritten in its worktree."""
    (repo / "scripts").mkdir()
    (repo / "scripts" / "check.sh").write_text("#!/bin/sh\necho project copy\n")
    (repo / "scripts" / "check.sh").chmod(0o755)
    git(repo, "add", "scripts/check.sh")
    git(repo, "commit", "-q", "-m", "check", "--", "scripts/check.sh")
    tests = ProjectTests("./scripts/check.sh", True, 30, base=str(repo))
    out = apply_run.execute(job(repo, "testscript", tests=tests))
    assert out.result == "committed", out.reason
    assert "project copy" in out.test_output and "lead copy" not in out.test_output
    assert "lead copy" in git(repo, "show", f"{out.commit}:scripts/check.sh")


def test_the_lead_command_is_not_looked_up_in_the_current_folder(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "fake-write-cli").write_text("#!/bin/sh\nexit 0\n")
    (repo / "fake-write-cli").chmod(0o755)
    monkeypatch.setenv("PATH", "." + ":" + __import__("os").environ["PATH"])
    with pytest.raises(ProviderNotFound, match="fake-write-cli"):
        apply_run.lead_argv(LeadCommand("fake-write", "fake-write-cli --edit"), "p")


def test_an_apply_during_a_merge_is_refused(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "other")
    git(repo, "commit", "-q", "-m", "theirs", "--allow-empty")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "--no-commit", "other")
    with pytest.raises(ApplyError, match="a merge is in progress"):
        worktree.create(repo, "discussions/apply/mid-1")
    assert not worktree.branch_exists(repo, "discussions/apply/mid-1")


def test_the_consent_notice_says_the_test_runs_code_the_lead_wrote() -> None:
    assert "runs code the lead wrote" in ProjectTests("make test", True).notice()
    assert "not trusted" in ProjectTests("make test", False).notice()


@pytest.mark.slow
@pytest.mark.skipif(__import__("shutil").which("bwrap") is None, reason="bubblewrap not installed")
def test_a_sandboxed_lead_that_hangs_times_out_and_leaves_no_process(repo: Path) -> None:
    """In bubblewrap the lead has a process namespace of its own: what it left running dies
    with it when the timeout kills it."""
    from discussions.engine.apply.sandbox import choose

    naps = f"{time.time_ns() % 1000}.{__import__('os').getpid()}"  # this test's own sleeps
    lead = LeadCommand(
        "fake-write", f"sh -c 'sleep 6{naps} & setsid sleep 6{naps} & sleep 6{naps}'"
    )
    out = apply_run.execute(
        Job(
            repo,
            "discussions/apply/nap-1",
            "p",
            lead,
            "Test User <test@example.com>",
            PERSONA,
            "s",
            timeout=1,
            sandbox=choose("required"),
        )
    )
    assert out.result == "timeout" and out.sandbox == "bubblewrap"
    left = [
        p
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and alive(int(p.name)) and f"sleep\0006{naps}".encode() in _cmdline(p)
    ]
    assert left == []


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""


needs_bwrap = pytest.mark.skipif(
    __import__("shutil").which("bwrap") is None, reason="bubblewrap not installed"
)


def boxed(repo: Path, mode: str, *extra: str, command: str = "", **options: object) -> Job:
    """`job` run in bubblewrap (`sandbox.choose("required")`)."""
    from discussions.engine.apply.sandbox import choose

    out = job(repo, mode, *extra, sandbox=choose("required"), **options)
    if command:
        out.lead.command = command
    return out


@needs_bwrap
def test_the_test_command_runs_the_leads_code_in_the_sandbox_too(repo: Path) -> None:
    """The trusted test command runs what the lead wrote (a conftest.py, here a hook.sh the
    project's script sources): outside the sandbox it wrote the home the lead could not."""
    home = Path(__import__("os").environ["HOME"])
    tests = ProjectTests("sh -c '. ./hook.sh'", True, 30, base=str(repo))
    out = apply_run.execute(boxed(repo, "hookfile", tests=tests))
    assert out.result == "committed", out.reason
    assert not (home / "owned").exists()
    assert out.tests == "failed" and "Read-only file system" in out.test_output


@needs_bwrap
def test_a_sandboxed_lead_cannot_change_what_its_cli_runs_next_time(
    repo: Path, tmp_path: Path
) -> None:
    """The CLI's state folder is writable (sessions, logs): a lead appended a hook to
    ~/.claude/settings.json and added an agent, which the user's next `claude` ran. The
    settings there are read-only; what it adds where nothing was is removed and refused."""
    home = Path(__import__("os").environ["HOME"])
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text("{}\n")
    (tmp_path / "dotfiles").mkdir()
    (tmp_path / "dotfiles" / "CLAUDE.md").write_text("mine\n")
    (home / ".claude" / "CLAUDE.md").symlink_to(tmp_path / "dotfiles" / "CLAUDE.md")
    claude = tmp_path / "bin" / "claude"  # the state folders go by the executable's name
    claude.parent.mkdir()
    claude.write_text(f"#!/bin/sh\nexec {script_command('lead.py', 'settings')}\n")
    claude.chmod(0o755)
    out = apply_run.execute(boxed(repo, "settings", command=str(claude)))
    assert (home / ".claude" / "settings.json").read_text() == "{}\n"
    assert "settings.json: OSError" in out.lead_output, out.lead_output
    assert not (home / ".claude" / "agents").exists()
    assert out.result == "refused-outside" and out.commit is None
    assert str(home / ".claude" / "agents") in out.reason, out.reason
    assert f"{home / '.claude' / 'CLAUDE.md'} was changed (put back)" in out.reason
    assert (home / ".claude" / "CLAUDE.md").read_text() == "mine\n"
    assert (
        not worktree.branch_exists(repo, out.branch)
        or git(repo, "rev-parse", out.branch).strip() == out.base
    )


@needs_bwrap
def test_a_sandboxed_lead_cannot_reach_the_sessions_runtime_sockets(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A unix socket in $XDG_RUNTIME_DIR (the session bus, systemd's user manager) is a
    process outside the sandbox that acts for whoever connects (`systemd-run --user`)."""
    import socket
    import threading

    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    heard: list[bytes] = []
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(runtime / "bus"))
        server.listen(1)
        server.settimeout(60)

        def serve() -> None:
            try:
                conn, _ = server.accept()
                heard.append(conn.recv(100))
                conn.close()
            except OSError:
                pass

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        out = apply_run.execute(boxed(repo, "socket"))
        if thread.is_alive():
            with socket.socket(socket.AF_UNIX) as end:  # end the wait
                end.connect(str(runtime / "bus"))
        thread.join()
    assert out.result == "committed", out.reason
    assert "refused" in out.lead_output, out.lead_output
    assert heard in ([], [b""])


@needs_bwrap
def test_a_sandboxed_lead_that_exits_leaves_no_daemon(repo: Path) -> None:
    """A daemon the lead started in a session of its own (its pid file in the clone) dies
    with the sandbox's process namespace when the lead exits; the apply does not wait."""
    mark = f"daemon-{time.time_ns()}.pid"  # this test's own daemon, by its command line
    out = apply_run.execute(boxed(repo, "daemon", mark, timeout=60))
    assert out.result == "committed", out.reason
    assert "left a daemon" in out.lead_output
    left = [
        p
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and alive(int(p.name)) and mark.encode() in _cmdline(p)
    ]
    assert left == []


def test_what_the_lead_plants_in_its_clone_makes_the_engines_git_run_or_follow_nothing(
    repo: Path, tmp_path: Path
) -> None:
    """A nested repository with an fsmonitor, hooks and a filter in its config, a .git file
    pointing at the user's git folder, .gitattributes naming the filter, .gitmodules with an
    ext:: URL, links into the home and the user's config, and the clone's own config aimed at
    the user's tree: the engine's add, commit and fetch ran none of it, and committed the
    links as links and the repositories as gitlinks."""
    ran = tmp_path / "ran"
    program = tmp_path / "program.sh"
    program.write_text(f'#!/bin/sh\necho "$0 $*" >> {ran}\n')
    program.chmod(0o755)
    planted = job(repo, "gitplant", target=True)
    planted.lead.env["LEAD_MARKER"] = str(program)
    out = apply_run.execute(planted)
    assert out.result == "committed", out.reason
    tree = git(repo, "ls-tree", "-r", str(out.commit))
    assert "120000 blob" in tree.split("\thome\n")[0].rsplit("\n", 1)[-1]
    assert "160000 commit" in tree.split("\tnested\n")[0].rsplit("\n", 1)[-1]
    assert "160000 commit" in tree.split("\tpointer\n")[0].rsplit("\n", 1)[-1]
    git(repo, "status")
    assert not ran.exists()


@pytest.mark.parametrize("box", ["off", "required"])
def test_the_lead_and_the_tests_are_told_they_are_in_the_clone(
    repo: Path, monkeypatch: pytest.MonkeyPatch, box: str
) -> None:
    """``PWD`` and ``OLDPWD`` were inherited from the person's shell: the user's repository.
    A tool that trusts ``PWD`` over the real folder (``os.environ["PWD"]``, ``cd "$OLDPWD"``)
    acted on the user's tree."""
    from discussions.engine.apply.sandbox import choose

    if box == "required" and __import__("shutil").which("bwrap") is None:
        pytest.skip("bubblewrap not installed")
    monkeypatch.setenv("PWD", str(repo))
    monkeypatch.setenv("OLDPWD", str(repo))
    where = "import os; print(os.environ.get('PWD'), os.environ.get('OLDPWD'))"
    tests = ProjectTests(f'{sys.executable} -c "{where}"', True, 30)
    run = job(repo, "edit", tests=tests, sandbox=choose(box))
    run.lead = LeadCommand("fake-write", f"{sys.executable} -c \"{where}; open('x', 'w')\"")
    out = apply_run.execute(run)
    clone = str(worktree.place(repo, run.branch))
    assert out.result == "committed", out.reason
    assert out.lead_output.strip() == f"{clone} None"
    assert f"{clone} None" in out.test_output


@needs_bwrap
def test_a_folder_or_link_left_beside_the_clones_place_is_refused(repo: Path) -> None:
    """A ``.tmp`` link to the home left where the clone's temp folder goes (by an earlier lead
    run without a sandbox) was reused, and bound writable: the home was the lead's temp dir."""
    home = Path(__import__("os").environ["HOME"])
    branch = "discussions/apply/retry-1"
    clone = worktree.place(repo, branch)
    clone.parent.mkdir(parents=True)
    clone.with_name(clone.name + ".tmp").symlink_to(home)
    with pytest.raises(ApplyError, match="remove it"):
        apply_run.execute(boxed(repo, "tmp"))
    assert not (home / "lead-was-here").exists()
    assert not worktree.branch_exists(repo, branch)


def test_a_clone_the_lead_removed_or_replaced_by_a_link_commits_nothing(repo: Path) -> None:
    """Without a sandbox the lead can replace its clone by a link to the user's tree: the
    engine's add then committed the user's untracked files (scratch.txt) onto the branch."""
    code = (
        "import os, shutil; here = os.getcwd(); os.chdir('/'); shutil.rmtree(here); "
        f"os.symlink({str(repo)!r}, here)"
    )
    run = job(repo, "edit")
    run.lead = LeadCommand("fake-write", f'{sys.executable} -c "{code}"')
    out = apply_run.execute(run)
    assert out.result == "failed" and out.commit is None
    assert "was removed or replaced" in out.reason, out.reason
    assert git(repo, "rev-parse", run.branch).strip() == out.base


@needs_bwrap
def test_a_sandboxed_lead_cannot_change_the_program_its_cli_unpacked_in_its_state_folder(
    repo: Path, tmp_path: Path
) -> None:
    """Copilot CLI runs the copy of itself it unpacked in ~/.cache/copilot/pkg, a folder the
    sandbox keeps writable: a lead that rewrote it ran as the person on their next `copilot`."""
    home = Path(__import__("os").environ["HOME"])
    code = home / ".cache" / "copilot" / "pkg" / "linux-x64" / "1.0.102" / "index.js"
    code.parent.mkdir(parents=True)
    code.write_text("run()\n")
    copilot = tmp_path / "bin" / "copilot"  # the state folders go by the executable's name
    copilot.parent.mkdir()
    rewrite = f"open({str(code)!r}, 'a').write('owned()')"
    copilot.write_text(f'#!/bin/sh\nexec {sys.executable} -c "{rewrite}"\n')
    copilot.chmod(0o755)
    out = apply_run.execute(boxed(repo, "edit", command=str(copilot)))
    assert code.read_text() == "run()\n"
    assert out.result == "failed" and "Read-only file system" in out.reason, out.reason
