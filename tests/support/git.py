"""Real git in temporary repositories: the identity every test commits with, the repository
in the project folder, and the steps the git tests share (two branches that diverge)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from discussions.cli import cli
from discussions.engine.runner import Runner
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace

FILE = "discussions/two-branches.md"
"""The discussion `start_discussion` creates, relative to the repository."""

IDENTITY = "Test User <test@example.com>"


def use_git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The test's own global git configuration (an identity, no signing) at
    tmp_path/gitconfig: the user's configuration cannot leak in, and a test empties that file
    to take the identity away. Its path."""
    config = tmp_path / "gitconfig"
    config.write_text(
        "[user]\n\tname = Test User\n\temail = test@example.com\n[commit]\n\tgpgsign = false\n"
    )
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)
    return config


def init_repository(root: Path) -> Path:
    """`git init` on branch main in `root` (made if missing)."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    return root


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run git in `cwd`; with `check`, a failure fails the test with git's output."""
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def git_out(cwd: Path, *args: str) -> str:
    """What git printed (failing the test if it fails)."""
    return git(cwd, *args).stdout


def git_line(cwd: Path, *args: str) -> str:
    """What git printed, stripped (a hash, a count, a name)."""
    return git(cwd, *args).stdout.strip()


def run_cli(*args: str, input: str | None = None) -> Result:
    """The CLI in process, its exceptions raised (not turned into an exit code)."""
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def commit_all(cwd: Path, message: str) -> None:
    git(cwd, "add", "-A")
    git(cwd, "commit", "-q", "-m", message)


def commit_files(root: Path, files: dict[str, str], message: str = "first") -> Path:
    """Write `files` (relative path -> text) and commit everything: a repository's history."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    commit_all(root, message)
    return root


def start_discussion(repo: Path) -> Path:
    """`discussions init`, then FILE with Rob's opening comment, committed."""
    assert run_cli("init").exit_code == 0
    ws = Workspace.discover()
    d = Discussion.create("Two branches", template="feature", workspace=ws)
    d.save()
    d = Discussion.load(d.path, ws)
    d.add_comment("Rob", "We want accounts. @architect?", vote=None)
    d.save()
    commit_all(repo, "start")
    return d.path


def comment(path: Path, author: str, text: str, vote: str | None = None) -> None:
    d = Discussion.load(path, Workspace.discover())
    d.add_comment(author, text, vote=vote)
    d.save()


def ai_turn(path: Path, *aliases: str) -> None:
    ws = Workspace.discover()
    Runner(ws).run_turn(Discussion.load(path, ws), list(aliases), provider="mock")


def advance(path: Path, to: str | None = None) -> None:
    d = Discussion.load(path, Workspace.discover())
    d.advance(to)
    d.save()


def check_clean(path: Path) -> None:
    result = run_cli("check", str(path))
    assert result.exit_code == 0, result.output


def markers_present(text: str) -> bool:
    return any(line.startswith(("<<<<<<<", ">>>>>>>")) for line in text.splitlines())


def two_branches(repo: Path, path: Path, *, commits: int = 1) -> None:
    """Branch `a` and `b` from main, each appending comments, an AI turn and a phase advance."""
    git(repo, "checkout", "-q", "-b", "a")
    for i in range(commits):
        comment(path, "Ann", f"Ann's point a{i}.", vote="CHANGES")
        ai_turn(path, "architect")
        commit_all(repo, f"a{i}")
    advance(path)
    comment(path, "Ann", "After the move, on a.")
    commit_all(repo, "a advance")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    for i in range(commits):
        comment(path, "Bob", f"Bob's point b{i}.", vote="READY")
        ai_turn(path, "security")
        commit_all(repo, f"b{i}")
    advance(path)
    commit_all(repo, "b advance")


def submodule_with_secret(repo: Path, tmp_path: Path) -> None:
    """Add a submodule ``lib`` to `repo` whose ``.env`` holds ``TOKEN_IN_SUBMODULE``, with
    ``diff.submodule=diff`` set, so git would inline every file inside it under its one path."""
    sub = tmp_path / "sub"
    sub.mkdir()
    git_out(sub, "init", "-q", "-b", "main")
    (sub / ".env").write_text("TOKEN_IN_SUBMODULE\n")
    git_out(sub, "add", "-A")
    git_out(sub, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "s")
    git_out(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "lib")
    git_out(repo, "commit", "-q", "-m", "submodule")
    git_out(repo, "config", "diff.submodule", "diff")
