"""`git.worktree`: the worktree of an apply, its commit and numstat, and the snapshot of the
user's tree, in real repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from discussions.errors import ApplyError
from discussions.git import worktree

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return proc.stdout


@pytest.fixture
def repo(isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Test User\n\temail = test@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    git(isolated, "init", "-q", "-b", "main")
    (isolated / "a.txt").write_text("one\ntwo\n")
    (isolated / "logo.bin").write_bytes(b"\0\1\2")
    git(isolated, "add", "-A")
    git(isolated, "commit", "-q", "-m", "first")
    return isolated


def test_numstat_reads_odd_names_and_binary_files(repo: Path) -> None:
    wt = worktree.create(repo, "discussions/apply/odd-1")
    assert wt.path.parent == repo / ".git" / worktree.APPLY_DIR
    (wt.path / "a.txt").write_text("one\n")
    (wt.path / "logo.bin").write_bytes(b"\0\1\2\3")
    (wt.path / "name with spaces, tabs\tand ünïcode.txt").write_text("x\ny\n")
    commit = worktree.commit(wt, "Test User <test@example.com>", "AI-A <a@x.invalid>", "s")
    assert commit is not None
    assert sorted(worktree.numstat(wt, wt.base, commit)) == [
        ("a.txt", 0, 1),
        ("logo.bin", None, None),
        ("name with spaces, tabs\tand ünïcode.txt", 2, 0),
    ]
    worktree.remove(wt)
    assert not wt.path.exists() and worktree.branch_exists(repo, wt.branch)


def test_the_snapshot_sees_renames_odd_names_and_content(repo: Path) -> None:
    git(repo, "mv", "a.txt", "b c.txt")
    (repo / "ü new.txt").write_text("x")
    before = worktree.snapshot(repo)
    assert worktree.differences(before, worktree.snapshot(repo)) == []
    (repo / "ü new.txt").write_text("y")  # same status, other content
    (repo / "logo.bin").write_bytes(b"changed")
    changed = worktree.differences(before, worktree.snapshot(repo))
    assert changed == ["logo.bin changed", "ü new.txt changed"]
    git(repo, "add", "logo.bin")  # the index alone
    assert "logo.bin changed" in worktree.differences(before, worktree.snapshot(repo))


def test_the_snapshot_sees_a_moved_branch(repo: Path) -> None:
    before = worktree.snapshot(repo)
    git(repo, "commit", "-q", "--allow-empty", "-m", "more")
    assert worktree.differences(before, worktree.snapshot(repo)) == [
        "the checked-out commit or branch changed"
    ]


def test_branch_names_and_kept_worktrees(repo: Path) -> None:
    with pytest.raises(ApplyError, match="not a valid branch name"):
        worktree.create(repo, "bad..name")
    wt = worktree.create(repo, "discussions/apply/x-1")
    with pytest.raises(ApplyError, match="kept at"):
        worktree.create(repo, "discussions/apply/x-1")
    with pytest.raises(ApplyError, match="kept at"):
        worktree.attach(repo, "discussions/apply/x-1")
    worktree.remove(wt)
    with pytest.raises(ApplyError, match="exists already"):
        worktree.create(repo, "discussions/apply/x-1")
    with pytest.raises(ApplyError, match="no branch"):
        worktree.attach(repo, "discussions/apply/none")
    again = worktree.attach(repo, "discussions/apply/x-1")
    assert again.base == git(repo, "rev-parse", "main").strip()


def test_a_linked_worktree_of_the_user_puts_ours_in_the_common_git_folder(
    repo: Path, tmp_path: Path
) -> None:
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked), "-b", "side")
    wt = worktree.create(linked, "discussions/apply/y-1")
    assert wt.path.parent == (repo / ".git" / worktree.APPLY_DIR).resolve()
    assert wt.base == git(linked, "rev-parse", "HEAD").strip()
