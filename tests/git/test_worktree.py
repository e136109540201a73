"""`git.worktree`: the worktree of an apply, its commit and numstat, and the snapshot of the
user's tree, in real repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from discussions.errors import ApplyError
from discussions.git import watch, worktree

from ..support.git import commit_files
from ..support.git import git_out as git

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)


@pytest.fixture
def repo(repo: Path) -> Path:
    """The shared repository with a first commit: a text file and a binary one."""
    (repo / "logo.bin").write_bytes(b"\0\1\2")
    return commit_files(repo, {"a.txt": "one\ntwo\n"})


@pytest.mark.slow
def test_numstat_reads_odd_names_and_binary_files(repo: Path) -> None:
    wt = worktree.create(repo, "discussions/apply/odd-1")
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
    before = watch.snapshot(repo)
    assert watch.differences(before, watch.snapshot(repo)) == []
    (repo / "ü new.txt").write_text("y")  # same status, other content
    (repo / "logo.bin").write_bytes(b"changed")
    changed = watch.differences(before, watch.snapshot(repo))
    assert changed == ["logo.bin changed", "ü new.txt changed"]
    git(repo, "add", "logo.bin")  # the index alone
    assert "logo.bin changed" in watch.differences(before, watch.snapshot(repo))


def test_the_snapshot_sees_a_moved_branch(repo: Path) -> None:
    before = watch.snapshot(repo)
    git(repo, "commit", "-q", "--allow-empty", "-m", "more")
    assert watch.differences(before, watch.snapshot(repo)) == [
        "the checked-out commit or branch changed",
        "the reference refs/heads/main moved",
    ]


@pytest.mark.slow
def test_branch_names_and_kept_worktrees(repo: Path) -> None:
    with pytest.raises(ApplyError, match="not a valid branch name"):
        worktree.create(repo, "bad..name")
    wt = worktree.create(repo, "discussions/apply/x-1")
    with pytest.raises(ApplyError, match=f"kept at {wt.path}"):
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


@pytest.mark.slow
def test_worktrees_live_in_the_users_cache_folder_one_folder_per_repository(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside the repository (no ``.git`` in their path, which coding agents protect), under
    ``$XDG_CACHE_HOME`` or ``~/.cache``; a linked worktree of the user's shares its
    repository's folder; another repository of the same name gets its own."""
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    wt = worktree.create(repo, "discussions/apply/y-1")
    home = Path.home() / ".cache" / "discussions" / "apply"
    assert wt.path.parent.parent == home and ".git" not in wt.path.parts
    assert wt.path.parent.name.startswith("project-")
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked), "-b", "side")
    assert worktree.repo_id(linked) == worktree.repo_id(repo)
    other = tmp_path / "elsewhere" / "project"
    other.mkdir(parents=True)
    git(other, "init", "-q")
    assert worktree.repo_id(other) != worktree.repo_id(repo)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert worktree.place(repo, "b").parent.parent == tmp_path / "xdg" / "discussions" / "apply"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # ignored, as the spec says
    assert worktree.place(repo, "b").parent.parent == home
    from_linked = worktree.create(linked, "discussions/apply/y-2")
    assert from_linked.base == git(linked, "rev-parse", "HEAD").strip()


@pytest.mark.slow
def test_branches_that_make_the_same_slug_get_folders_of_their_own(repo: Path) -> None:
    assert worktree.place(repo, "a/b") != worktree.place(repo, "a-b")
    first = worktree.create(repo, "a/b")
    second = worktree.create(repo, "a-b")
    assert first.path != second.path and first.path.is_dir() and second.path.is_dir()
    assert worktree.place(repo, "a/b").name.startswith("a-b-")


def test_written_since_finds_ignored_files_written_or_removed(repo: Path) -> None:
    """By change time, which a process cannot set back (``os.utime`` sets the modification
    time only): a written file, and a folder that lost an entry."""
    import os

    (repo / ".gitignore").write_text("cache/\n")
    (repo / "cache" / "deep").mkdir(parents=True)
    (repo / "cache" / "deep" / "kept.bin").write_text("x")
    (repo / "cache" / "gone.bin").write_text("x")
    wt = worktree.create(repo, "discussions/apply/w-1")
    since = watch.clock(wt)
    assert watch.written_since(repo, since, (wt.path,)) == []
    (repo / "cache" / "deep" / "kept.bin").write_text("y")
    os.utime(repo / "cache" / "deep" / "kept.bin", (0, 0))
    (repo / "cache" / "gone.bin").unlink()
    assert watch.written_since(repo, since, (wt.path,)) == ["cache/", "cache/deep/kept.bin"]
