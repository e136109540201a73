"""Fulfilling evidence requests, and every way a request might escape the project."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from discussions.engine.evidence.fulfil import fulfil_pending
from discussions.providers.trust import trust_evidence

from ..support.evidence import ask, one
from ..support.git import git_out as git


def test_read_a_range_with_its_blob(project: Path) -> None:
    e, d = one(project, "read src/app.py:5-8")
    assert e.status == "fulfilled", e.reason
    assert "TOKEN_APP_7" in e.content and "line 9" not in e.content
    blob = git(project, "hash-object", "src/app.py").strip()
    assert e.ref == f"blob {blob}"
    assert "lines 5-8 of 30" in e.reason
    assert not d.warnings


@pytest.mark.parametrize(
    ("request_text", "reason"),
    [
        ("read /etc/passwd", "relative to the project"),
        ("read ../outside.txt", "`..`"),
        ("read src/../../outside.txt", "`..`"),
        ("read .git/config", ".git"),
        ("read build/out.txt", "ignored"),
        ("read .env", "secret"),
        ("read config/id_rsa", "secret"),
        ("read logo.png", "binary"),
        ("read ~/.ssh/config", "relative"),
        ("list .git", ".git"),
        ("list ../", "`..`"),
        ("grep x in ../*", "`..`"),
        ("frobnicate src", "unknown request"),
    ],
)
def test_escapes_are_refused(project: Path, request_text: str, reason: str) -> None:
    (project.parent / "outside.txt").write_text("TOKEN_OUTSIDE\n")
    e, d = one(project, request_text)
    assert e.status == "refused" and reason in e.reason, e.reason
    text = d.path.read_text()
    for token in ("TOKEN_OUTSIDE", "TOKEN_SECRET_ENV", "TOKEN_IGNORED", "TOKEN_BINARY", "[core]"):
        assert token not in text
    assert "refused" in text and not d.warnings


def test_symlink_out_and_to_a_secret(project: Path) -> None:
    (project.parent / "outside.txt").write_text("TOKEN_OUTSIDE\n")
    os.symlink(project.parent / "outside.txt", project / "src" / "out.py")
    os.symlink(project / ".env", project / "src" / "cfg.py")
    git(project, "add", "src/out.py", "src/cfg.py")
    for rel, why in (("src/out.py", "outside the project"), ("src/cfg.py", "secret")):
        e, d = one(project, f"read {rel}")
        assert e.status == "refused" and why in e.reason, e.reason
    text = d.path.read_text()
    assert "TOKEN_OUTSIDE" not in text and "TOKEN_SECRET_ENV" not in text


def test_grep_never_shows_what_a_link_leads_to(project: Path) -> None:
    (project.parent / "outside.txt").write_text("TOKEN_OUTSIDE\n")
    os.symlink(project.parent / "outside.txt", project / "src" / "untracked_link.txt")
    os.symlink(project / ".env", project / "src" / "env_link.txt")
    e, d = one(project, "grep TOKEN_")
    assert e.status == "fulfilled" and "TOKEN_APP_7" in e.content
    assert "TOKEN_OUTSIDE" not in d.path.read_text()
    assert "TOKEN_SECRET_ENV" not in d.path.read_text()


def test_huge_file_refused_and_long_file_cut(project: Path) -> None:
    (project / "big.txt").write_text("x" * (5 << 20))
    e, _ = one(project, "read big.txt")
    assert e.status == "refused" and "byte limit" in e.reason
    (project / "long.txt").write_text("".join(f"row {n}\n" for n in range(20000)))
    e, _ = one(project, "read long.txt")
    assert e.status == "fulfilled" and "cut at" in e.reason and len(e.content) <= 20000


@pytest.mark.slow
@pytest.mark.timeout(60)  # as a regular expression, (a+)+$ on that line backtracks for ages
def test_grep_is_a_fixed_string_and_fast(project: Path) -> None:
    (project / "src" / "slow.txt").write_text("a" * 50000 + "!\n")
    e, _ = one(project, "grep (a+)+$ in src/*")
    assert e.status == "fulfilled" and e.content == "(no matching lines)"
    e, _ = one(project, "grep TOKEN_")
    assert "src/app.py:7:TOKEN_APP_7" in e.content
    assert "TOKEN_SECRET_ENV" not in e.content and "TOKEN_IGNORED" not in e.content
    e, _ = one(project, "grep Let me look")  # the discussions folder is not searched
    assert e.content.splitlines() == [
        "refused .env: `.env` looks like a secret (.env*); secrets are never read",
        "(no matching lines)",
    ]
    (project / "many.txt").write_text("hit\n" * 1000)
    e, _ = one(project, "grep hit")
    assert "first 200 matching lines" in e.reason
    assert len([x for x in e.content.splitlines() if not x.startswith("refused ")]) == 200


def test_list(project: Path) -> None:
    e, _ = one(project, "list")
    names = e.content.splitlines()
    assert "src/" in names and "README.md" in names
    assert ".env" not in names and "build/" not in names and ".git/" not in names
    e, _ = one(project, "list src")
    assert e.content.splitlines() == ["app.py", "util.py"]


@pytest.mark.slow
def test_git_log_show_diff_blame(project: Path) -> None:
    e, _ = one(project, "git log --oneline -n 5")
    assert e.status == "fulfilled" and "TOKEN_COMMIT_MSG" in e.content
    assert e.ref.startswith("commit ")
    e, _ = one(project, "git show HEAD:src/app.py")
    assert "TOKEN_APP_7" in e.content
    e, _ = one(project, "git show --stat HEAD")
    assert "src/app.py" in e.content
    (project / "src" / "util.py").write_text("def helper():\n    return 'TOKEN_DIFF'\n")
    e, _ = one(project, "git diff")
    assert "TOKEN_DIFF" in e.content
    e, _ = one(project, "git blame -L 7,7 -- src/app.py")
    assert "TOKEN_APP_7" in e.content


@pytest.mark.parametrize(
    ("request_text", "reason"),
    [
        ("git diff --output=/tmp/evidence-x", "not allowed"),
        ("git -c core.pager=touch log", "only `git"),
        ("git log --exec=touch", "not allowed"),
        ("git diff --ext-diff", "not allowed"),
        ("git log --textconv", "not allowed"),
        ("git diff --no-index /etc/passwd x", "not allowed"),
        ("git log --format=%G?", "not allowed"),
        ("git show HEAD:.env", "secret"),
        ("git log -- ../x", "`..`"),
        ("git log -- :(top)x", "magic"),
        ("git log --show-signature", "not allowed"),
        ("git push origin", "only `git"),
    ],
)
def test_git_escapes_are_refused(project: Path, request_text: str, reason: str) -> None:
    e, _ = one(project, request_text)
    assert e.status == "refused" and reason in e.reason, e.reason
    assert not Path("/tmp/evidence-x").exists()


@pytest.mark.slow
def test_git_never_shows_a_secret_by_its_blob_id(project: Path) -> None:
    git(project, "add", "-f", ".env")
    git(project, "commit", "-qm", "oops, a secret")
    blob = git(project, "rev-parse", "HEAD:.env").strip()
    for request in (
        f"git show {blob}",
        f"git diff {blob} HEAD:src/app.py",
        "git show HEAD",
        "git log -p",
        "git show HEAD^{tree}",
        "grep x in :(top).env",
    ):
        e, d = one(project, request)
        assert "TOKEN_SECRET_ENV" not in d.path.read_text(), request
    git(project, "-c", "user.name=T", "-c", "user.email=t@e", "tag", "-a", "sec", blob, "-m", "x")
    for request in (f"git show {blob[:10]}", "git show sec", "git log sec"):
        e, d = one(project, request)
        assert e.status == "refused" and "by its id" in e.reason, (request, e.reason)
    assert "TOKEN_SECRET_ENV" not in d.path.read_text()


@pytest.mark.slow
def test_git_runs_nothing_the_repository_chose(project: Path, tmp_path: Path) -> None:
    mark = tmp_path / "ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\necho $0 >> {mark}\ncat\n")
    hook.chmod(0o755)
    git(project, "config", "core.fsmonitor", str(hook))
    git(project, "config", "core.pager", str(hook))
    git(project, "config", "filter.evil.clean", str(hook))
    git(project, "config", "filter.evil.smudge", str(hook))
    git(project, "config", "diff.evil.textconv", str(hook))
    git(project, "config", "diff.evil.command", str(hook))
    git(project, "config", "diff.external", str(hook))
    (project / ".gitattributes").write_text("*.py filter=evil diff=evil\n")
    (project / "src" / "util.py").write_text("changed TOKEN_CHANGED\n")
    for request in (
        "git diff",
        "git log -p -n 1",
        "git show HEAD",
        "grep TOKEN",
        "list src",
        "git blame -- src/app.py",
        "read src/util.py",
    ):
        e, _ = one(project, request)
        assert e.status == "fulfilled", (request, e.reason)
    assert not mark.exists(), mark.read_text()


@pytest.mark.slow
def test_run_needs_the_allow_list_and_trust(project: Path) -> None:
    (project / "discussions.yaml").write_text(
        "evidence:\n  commands:\n    hello: \"python -c 'print(123454321)'\"\n"
        "    slow: \"python -c 'import time; time.sleep(30)'\"\n  timeout: 1\n"
    )
    e, _ = one(project, "run rm")
    assert e.status == "refused" and "not in evidence.commands" in e.reason
    e, _ = one(project, "run hello")
    assert e.status == "refused" and "discussions trust" in e.reason
    trust_evidence(
        project,
        {
            "hello": "python -c 'print(123454321)'",
            "slow": "python -c 'import time; time.sleep(30)'",
        },
    )
    e, d = one(project, "run hello")
    assert e.status == "fulfilled" and "123454321" in e.content and "[exit status 0]" in e.content
    e, _ = one(project, "run slow")
    assert "[timed out]" in e.content
    (project / "discussions.yaml").write_text(
        "evidence:\n  commands:\n    hello: \"python -c 'print(666)'\"\n"
    )
    e, _ = one(project, "run hello")
    assert e.status == "refused" and "not trusted" in e.reason


def test_same_request_same_blob_once_and_limit(project: Path) -> None:
    first, _ = one(project, "read README.md")
    second, d = one(project, "read README.md", author="AI-Security")
    assert second.status == "same" and second.see == first.number
    d = ask(
        project,
        "AI-Pragmatist",
        "read src/app.py:1-2",
        "read src/app.py:3-4",
        "read src/app.py:5-6",
        "read src/app.py:7-8",
    )
    done = fulfil_pending(d)
    assert [b.status for b in done.blocks] == ["fulfilled"] * 3 + ["refused"]
    assert "limit of 3" in done.blocks[-1].reason
    assert fulfil_pending(d).blocks == []  # nothing pending any more
    (project / "README.md").write_text("# Demo changed\n")
    again, _ = one(project, "read README.md")
    assert again.status == "fulfilled"


def test_a_repeated_request_points_at_the_earlier_block_over_the_limit_too(
    project: Path,
) -> None:
    first, _ = one(project, "read README.md")
    d = ask(
        project,
        "AI-Pragmatist",
        "read src/app.py:1-2",
        "read src/app.py:3-4",
        "read src/app.py:5-6",
        "read README.md",
        "read src/app.py:1-2",
        "read src/app.py:7-8",
    )
    done = fulfil_pending(d)
    statuses = [(b.request, b.status, b.see) for b in done.blocks]
    assert statuses[:3] == [(f"read src/app.py:{a}-{a + 1}", "fulfilled", 0) for a in (1, 3, 5)]
    assert statuses[3] == ("read README.md", "same", first.number)  # asked before: not refused
    assert statuses[4] == ("read src/app.py:1-2", "same", done.blocks[0].number)
    assert statuses[5][1] == "refused" and "limit of 3" in done.blocks[5].reason  # a new one


def test_outside_git_the_project_folder(isolated: Path) -> None:
    (isolated / "notes.txt").write_text("TOKEN_NOTES\n")
    (isolated / ".env").write_text("TOKEN_SECRET\n")
    e, _ = one(isolated, "read notes.txt")
    assert e.status == "fulfilled" and "TOKEN_NOTES" in e.content
    e, _ = one(isolated, "grep TOKEN_")
    assert "TOKEN_NOTES" in e.content and "TOKEN_SECRET" not in e.content
    e, _ = one(isolated, "git log")
    assert e.status == "refused"
    (isolated.parent / "outside.txt").write_text("TOKEN_OUTSIDE\n")
    os.symlink(isolated.parent / "outside.txt", isolated / "link.txt")
    e, d = one(isolated, "grep TOKEN_")
    assert e.status == "same"  # the link adds nothing: the same output as before
    assert "TOKEN_OUTSIDE" not in d.path.read_text()
    e, _ = one(isolated, "read link.txt")
    assert e.status == "refused" and "outside the project" in e.reason
    os.mkfifo(isolated / "pipe")  # reading it would wait forever
    e, _ = one(isolated, "read pipe")
    assert e.status == "refused" and "not a regular file" in e.reason
    e, _ = one(isolated, "grep TOKEN_NOTES")
    assert "TOKEN_NOTES" in e.content
