"""The GitHub Action (action.yml, action/post_review.py): its file against the published
schema, `check --format github`, and its steps run as a runner would, against a local fake of
GitHub's REST API: one sticky comment, updated and never duplicated, nothing posted from a fork."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .fake_github import TOKEN, FakeGitHub, fake_github
from .schemas import load_yaml, problems

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "action" / "post_review.py"
MARKER = "<!-- discussions-review -->"
REPO = "acme/widgets"


def action() -> dict[str, Any]:
    return dict(load_yaml((ROOT / "action.yml").read_text(encoding="utf-8")))


# --------------------------------------------------------------------------- the action file


def test_action_file_follows_the_published_schema() -> None:
    assert problems("github-action", action()) == []


def test_the_schema_check_can_fail() -> None:
    broken = action()
    del broken["runs"]["using"]
    broken["inputs"]["review"]["required"] = "no"
    assert len(problems("github-action", broken)) >= 2


def test_steps_take_expressions_only_through_env() -> None:
    """A pull request's title or branch in a `run:` would be script injection; every value
    reaches the scripts as an environment variable, and every input used is declared."""
    steps = action()["runs"]["steps"]
    for step in steps:
        assert "${{" not in step["run"], step["name"]
    used = set(re.findall(r"inputs\.([\w-]+)", (ROOT / "action.yml").read_text()))
    assert used == set(action()["inputs"])


# --------------------------------------------------------------------------- the check's annotations


def discussions(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "discussions", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )


@pytest.fixture
def project(isolated: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A git repository on branch `feature` one commit past `main`, whose discussion file was
    created on main; PATH holds git and this Python only, so no AI CLI answers but the mock."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("git", "bash"):
        os.symlink(shutil.which(tool) or f"/usr/bin/{tool}", bin_dir / tool)
    os.symlink(sys.executable, bin_dir / "python")
    launcher = bin_dir / "discussions"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m discussions "$@"\n')
    launcher.chmod(0o755)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GIT_"))},
        "PATH": str(bin_dir),
        "PYTHONPATH": str(ROOT / "src"),
        "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Ann",
        "GIT_AUTHOR_EMAIL": "ann@example.com",
        "GIT_COMMITTER_NAME": "Ann",
        "GIT_COMMITTER_EMAIL": "ann@example.com",
    }
    (tmp_path / "gitconfig").write_text("")
    git(isolated, env, "init", "-q", "-b", "main")
    assert discussions("new", "Widgets, with 100% coverage", cwd=isolated, env=env).returncode == 0
    git(isolated, env, "add", "-A")
    git(isolated, env, "commit", "-qm", "a discussion")
    git(isolated, env, "checkout", "-qb", "feature")
    (isolated / "widget.py").write_text("def widget():\n    return 1\n")
    git(isolated, env, "add", "-A")
    git(isolated, env, "commit", "-qm", "a widget")
    return isolated, env


def git(cwd: Path, env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


def rewrite_title(path: Path) -> int:
    """Edit the discussion's title line (a rewrite, not an append); its line number."""
    lines = path.read_text().splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines) if line.startswith("# Widgets"))
    lines[n] = "# Widgets, with 100% coverage: done, everyone agreed\n"
    path.write_text("".join(lines))
    return n + 1


def test_check_prints_github_annotations(project: tuple[Path, dict[str, str]]) -> None:
    folder, env = project
    ok = discussions("check", "--since", "main", "--format", "github", cwd=folder, env=env)
    assert (ok.returncode, ok.stdout) == (0, "")
    line = rewrite_title(folder / "discussions" / "widgets-with-100-coverage.md")
    bad = discussions("check", "--since", "main", "--format", "github", cwd=folder, env=env)
    assert bad.returncode == 1
    assert bad.stdout.splitlines() == [
        f"::error file=discussions/widgets-with-100-coverage.md,line={line}::"
        "changed text that existed at main (not a pure append)"
    ]


def test_annotations_escape_what_would_end_a_property_or_the_message() -> None:
    from discussions.cli.check import github_annotation
    from discussions.ops.check import Problem

    p = Problem("a,b:c%.md", 3, "50% done\nsecond line", severity="hint", column=2)
    assert (
        github_annotation(p)
        == "::notice file=a%2Cb%3Ac%25.md,line=3,col=2::50%25 done%0Asecond line"
    )
    whole = Problem("x.md", 0, "no such discussion file")
    assert github_annotation(whole) == "::error file=x.md::no such discussion file"


# --------------------------------------------------------------------------- the action's steps


def event(pr_number: int = 7, head_repo: str | None = REPO, base_sha: str = "") -> dict[str, Any]:
    head = {"repo": {"full_name": head_repo}} if head_repo else {"repo": None}
    return {
        "pull_request": {
            "number": pr_number,
            "head": head,
            "base": {"sha": base_sha, "repo": {"full_name": REPO}},
        },
        "repository": {"full_name": REPO, "default_branch": "main"},
    }


def run_steps(
    folder: Path, env: dict[str, str], fake: FakeGitHub, payload: dict[str, Any], tmp: Path
) -> list[subprocess.CompletedProcess[str]]:
    """action.yml's steps after the install (the launcher on PATH stands for it), run by bash
    as the runner runs them: each step's `env:` with its expressions' values for this event,
    review true, and the runner's files ($GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY...)."""
    tmp.mkdir(exist_ok=True)
    (tmp / "event.json").write_text(json.dumps(payload))
    runner = {
        "RUNNER_TEMP": str(tmp),
        "GITHUB_EVENT_PATH": str(tmp / "event.json"),
        "GITHUB_OUTPUT": str(tmp / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary.md"),
        "GITHUB_API_URL": fake.url,
        "GITHUB_REPOSITORY": REPO,
    }
    values = {
        "github.action_path": str(ROOT),
        "inputs.base || github.event.pull_request.base.sha || format('origin/{0}', github.event.repository.default_branch)": payload[
            "pull_request"
        ]["base"]["sha"],
        "inputs.participants": "@architect @security",
        "inputs.github-token": TOKEN,
        "inputs.comment-author": "github-actions[bot]",
        "steps.review.outputs.file": str(tmp / "discussions-review.json"),
    }
    done = []
    for step in action()["runs"]["steps"][1:]:
        step_env = {k: _evaluate(str(v), values) for k, v in (step.get("env") or {}).items()}
        done.append(
            subprocess.run(
                [str(folder.parent / "bin" / "bash"), "-e", "-c", step["run"]],
                cwd=folder,
                env={**env, **runner, **step_env},
                capture_output=True,
                text=True,
            )
        )
    return done


def _evaluate(value: str, values: dict[str, str]) -> str:
    return re.sub(r"\$\{\{ (.+?) \}\}", lambda m: values[m[1]], value)


@pytest.mark.slow
def test_the_steps_annotate_review_and_post_one_comment(
    project: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    folder, env = project
    base = git(folder, env, "rev-parse", "main").strip()
    with fake_github() as fake:
        check, review, post = run_steps(folder, env, fake, event(base_sha=base), tmp_path / "run1")
        assert check.returncode == 0, check.stderr
        assert review.returncode == 0, review.stderr
        assert post.returncode == 0, post.stdout + post.stderr
        [body] = fake.bodies(REPO, 7)
        assert body.startswith(MARKER + "\n### Council review")
        assert "| AI-Architect |" in body and "| AI-Security |" in body
        assert "mock answered" in body
        assert body in (tmp_path / "run1" / "summary.md").read_text()
        # A second run (a new push): the same comment is edited, no second one appears.
        git(folder, env, "commit", "-q", "--allow-empty", "-m", "again")
        *_, post2 = run_steps(folder, env, fake, event(base_sha=base), tmp_path / "run2")
        assert post2.returncode == 0, post2.stdout + post2.stderr
        assert len(fake.bodies(REPO, 7)) == 1
        assert [m for m, _ in fake.requests].count("POST") == 1
        assert [m for m, _ in fake.requests].count("PATCH") == 1


@pytest.mark.slow
def test_the_check_step_fails_with_annotations(
    project: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    folder, env = project
    base = git(folder, env, "rev-parse", "main").strip()
    line = rewrite_title(folder / "discussions" / "widgets-with-100-coverage.md")
    with fake_github() as fake:
        check, *_ = run_steps(folder, env, fake, event(base_sha=base), tmp_path / "run")
    assert check.returncode == 1
    assert f"::error file=discussions/widgets-with-100-coverage.md,line={line}::" in check.stdout


# --------------------------------------------------------------------------- the script, alone

REVIEW = {
    "file": "/w/discussions/review.md",
    "title": "Code Review: feature <b>bold</b>",
    "votes": {"AI-Architect": "READY", "AI-Security": "CHANGES"},
    "consensus": {
        "reached": False,
        "outcome": "CHANGES",
        "reason": "1 of 3 READY | below threshold",
        "waiting_for": ["AI-Perfectionist"],
    },
    "comments": [
        {"author": "AI-Architect", "meta": {"provider": "claude-sonnet"}},
        {"author": "AI-Security", "meta": {"provider": "codex"}},
    ],
    "concerns": [{"text": "ask @octocat <!-- discussions-review -->", "author": "AI-Security"}],
    "questions": [],
}


def post_review(
    tmp: Path, fake: FakeGitHub, payload: dict[str, Any] | None, **env: str
) -> subprocess.CompletedProcess[str]:
    tmp.mkdir(exist_ok=True)
    (tmp / "review.json").write_text(json.dumps(REVIEW))
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    base_env.update(
        GITHUB_API_URL=fake.url, GITHUB_TOKEN=TOKEN, GITHUB_STEP_SUMMARY=str(tmp / "summary.md")
    )
    if payload is not None:
        (tmp / "event.json").write_text(json.dumps(payload))
        base_env["GITHUB_EVENT_PATH"] = str(tmp / "event.json")
    base_env.update(env)
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp / "review.json")],
        env=base_env,
        capture_output=True,
        text=True,
    )


@pytest.mark.slow
def test_the_sticky_comment_is_found_across_pages_and_updated(tmp_path: Path) -> None:
    with fake_github() as fake:
        for i in range(130):
            fake.add(REPO, 7, f"comment {i}", "someone")
        fake.add(REPO, 7, MARKER + "\nan impostor's copy", "someone")
        mine = fake.add(REPO, 7, MARKER + "\nold verdict", "github-actions[bot]")
        result = post_review(tmp_path, fake, event())
        assert result.returncode == 0, result.stdout + result.stderr
        assert fake.find(mine["id"])["body"].startswith(
            MARKER + "\n### Council review: no consensus yet"
        )
        assert fake.bodies(REPO, 7)[130] == MARKER + "\nan impostor's copy"
        assert len(fake.bodies(REPO, 7)) == 132
        assert ("GET", f"/repos/{REPO}/issues/7/comments?per_page=100&page=2") in fake.requests


@pytest.mark.slow
def test_participants_text_cannot_forge_the_marker_or_mention(tmp_path: Path) -> None:
    with fake_github() as fake:
        assert post_review(tmp_path, fake, event()).returncode == 0
        [body] = fake.bodies(REPO, 7)
    assert body.count(MARKER) == 1
    assert "@octocat" not in body and "&lt;b>bold" in body
    assert "| AI-Perfectionist | not voted | |" in body
    assert "| AI-Security | CHANGES | codex |" in body


@pytest.mark.slow
@pytest.mark.parametrize("head_repo", ["someone/widgets", None])
def test_nothing_is_posted_from_a_fork(tmp_path: Path, head_repo: str | None) -> None:
    with fake_github() as fake:
        result = post_review(tmp_path, fake, event(head_repo=head_repo))
        assert result.returncode == 0
        assert fake.requests == []
    assert "fork" in result.stdout
    assert MARKER in (tmp_path / "summary.md").read_text()


@pytest.mark.slow
def test_nothing_is_posted_without_a_pull_request_or_a_token(tmp_path: Path) -> None:
    with fake_github() as fake:
        assert post_review(tmp_path / "a", fake, {"ref": "refs/heads/main"}).returncode == 0
        assert post_review(tmp_path / "b", fake, None).returncode == 0
        assert post_review(tmp_path / "c", fake, event(), GITHUB_TOKEN="").returncode == 0
        assert fake.requests == []


@pytest.mark.slow
def test_a_refused_post_is_an_error_without_a_traceback(tmp_path: Path) -> None:
    with fake_github() as fake:
        fake.refuse.add("POST")
        result = post_review(tmp_path, fake, event())
    assert result.returncode == 1
    assert result.stdout.startswith("::error::could not post the review comment: POST ")
    assert "HTTP 403 Resource not accessible by integration" in result.stdout
    assert "pull-requests: write" in result.stdout
    assert "Traceback" not in result.stderr
