"""Drift (issue 38, item 1): the decisions whose governed code changed since they were
recorded or implemented, with real git in a temporary repository whose later commits depart
from them (`support.drift.drifted_repository`): `discussions drift` (text and JSON),
`check --since` (a warning, an error under ``drift.strict``), and a merge of two branches
that both add a ``GOVERNS:`` line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions.derive.governs import matches
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace

from ..support.drift import AUTH, RETRY, decide, decision_line, drifted_repository
from ..support.git import (
    comment,
    commit_all,
    commit_files,
    git,
    git_line,
    markers_present,
    run_cli,
)


def test_drift_lists_each_change_to_governed_code_with_its_commit(repo: Path) -> None:
    d = drifted_repository(repo)
    r = run_cli("drift")
    assert r.exit_code == 1  # a change departs from a decision
    lines = r.stdout.splitlines()
    auth = lines.index(f"{AUTH}:{d.auth_line}: DECISION: tokens are signed with ES256")
    assert lines[auth + 1] == "  governs: src/auth/**, config/auth.yaml"
    assert lines[auth + 2] == (
        f"  3 commit(s) since it was recorded in {d.recorded[:7]}, 1 departing:"
    )
    assert lines[auth + 3].startswith(f"    {d.touches[:7]} move the signing helper (Test User, ")
    assert lines[auth + 3].endswith(") (touches it): src/auth/sign.py")
    assert lines[auth + 4].startswith(f"    {d.references[:7]} rotate keys (")
    assert lines[auth + 4].endswith(") (names it): config/auth.yaml")
    assert lines[auth + 5].startswith(f"  ! {d.departs[:7]} loosen the token check (")
    assert lines[auth + 5].endswith("): src/auth/jwt.py")
    assert d.unrelated[:7] not in r.stdout  # README.md is governed by nothing
    retry = lines.index(f"{RETRY}:{d.retry_line}: DECISION: retries back off exponentially")
    assert lines[retry + 1] == "  governs: src/net/retry.py (applied)"
    assert lines[retry + 2] == (
        f"  1 commit(s) since it was implemented in {d.applied[:7]}, 1 departing:"
    )
    assert lines[retry + 3].startswith(f"  ! {d.after_apply[:7]} retry at once (")
    assert "2 decision(s) govern code in 2 discussion(s); 2 drifted, 2 by a commit" in r.stderr


def test_drift_json_gives_the_commits_their_authors_dates_and_paths(repo: Path) -> None:
    d = drifted_repository(repo)
    r = run_cli("drift", "--json")
    assert r.exit_code == 1
    report = json.loads(r.stdout)
    assert (report["governing"], report["drifted"], report["departed"]) == (2, 2, 2)
    auth, retry = report["decisions"]
    assert auth["file"] == AUTH and auth["line"] == d.auth_line
    assert auth["governs"] == ["src/auth/**", "config/auth.yaml"]
    assert (auth["recorded"], auth["since"], auth["counted_from"]) == (
        d.recorded,
        d.recorded,
        "recorded",
    )
    assert [c["commit"] for c in auth["commits"]] == [d.touches, d.references, d.departs]
    assert [c["departs"] for c in auth["commits"]] == [False, False, True]
    assert [c["paths"] for c in auth["commits"]] == [
        ["src/auth/sign.py"],
        ["config/auth.yaml"],
        ["src/auth/jwt.py"],
    ]
    first = auth["commits"][0]
    assert (first["author"], first["email"]) == ("Test User", "test@example.com")
    assert first["date"] == git_line(repo, "log", "-1", "--format=%aI", d.touches)
    assert first["touches_discussion"] and not first["references_discussion"]
    assert auth["commits"][1]["references_discussion"]
    # the applied decision governs what its apply's commit changed, from that commit on
    assert retry["governs"] == [] and retry["implemented_paths"] == ["src/net/retry.py"]
    assert (retry["since"], retry["counted_from"]) == (d.applied, "implemented")
    assert [c["commit"] for c in retry["commits"]] == [d.after_apply]


def test_drift_of_one_discussion_and_none_without_changes(repo: Path) -> None:
    d = drifted_repository(repo)
    r = run_cli("drift", AUTH, "--json")
    [auth] = json.loads(r.stdout)["decisions"]
    assert auth["line"] == d.auth_line
    git(repo, "reset", "-q", "--hard", d.recorded)  # back to when it was decided
    r = run_cli("drift")
    assert r.exit_code == 0 and r.stdout == ""
    assert "1 decision(s) govern code in 1 discussion(s); 0 drifted" in r.stderr


def test_a_decision_not_committed_yet_has_not_drifted(repo: Path) -> None:
    commit_files(repo, {"src/a.py": "1\n"}, "the app")
    decide("Fresh", "DECISION: keep a.py small\nGOVERNS: src/a.py")
    r = run_cli("drift", "--json")
    [fresh] = json.loads(r.stdout)["decisions"]
    assert (fresh["recorded"], fresh["commits"], r.exit_code) == ("", [], 0)


def test_check_since_warns_at_the_decisions_line(repo: Path) -> None:
    d = drifted_repository(repo)
    r = run_cli("check", "--since", d.recorded)
    assert r.exit_code == 0, r.output  # a warning does not fail the check
    assert r.stdout.splitlines() == [
        f"{AUTH}:{d.auth_line}: warning: {d.departs[:7]} loosen the token check (Test User, "
        f"{_day(repo, d.departs)}) changed src/auth/jwt.py, which this decision governs, and "
        "neither touches nor references auth-tokens.md (name it in the commit message if the "
        "change is meant)",
        f"{RETRY}:{d.retry_line}: warning: {d.after_apply[:7]} retry at once (Test User, "
        f"{_day(repo, d.after_apply)}) changed src/net/retry.py, which this decision governs, "
        "and neither touches nor references retry-policy.md (name it in the commit message if "
        "the change is meant)",
    ]
    assert "2 warning(s)" in r.stderr
    ranged = json.loads(run_cli("drift", "--since", d.departs, "--json").stdout)
    assert [c["commit"] for x in ranged["decisions"] for c in x["commits"]] == [
        d.touches,
        d.references,
        d.after_apply,
    ]
    later = run_cli("check", "--since", d.departs, "--json")
    [only] = json.loads(later.stdout)
    assert (only["file"], only["line"], only["severity"]) == (RETRY, d.retry_line, "warning")


def test_check_since_fails_under_drift_strict(repo: Path) -> None:
    d = drifted_repository(repo)
    with (repo / "discussions.yaml").open("a") as f:
        f.write("drift:\n  strict: true\n")
    r = run_cli("check", "--since", d.touches)
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        f"{RETRY}:{d.retry_line}: {d.after_apply[:7]} retry at once (Test User, "
        f"{_day(repo, d.after_apply)}) changed src/net/retry.py, which this decision governs, "
        "and neither touches nor references retry-policy.md (name it in the commit message if "
        "the change is meant)",
    ]
    named = run_cli("check", "--since", d.departs, "--format", "github")
    assert f"::error file={AUTH}" not in named.stdout  # the later commits name or touch it
    assert f"::error file={RETRY},line={d.retry_line}::" in named.stdout


def test_check_since_an_unknown_revision_is_the_append_checks_error(repo: Path) -> None:
    drifted_repository(repo)
    r = run_cli("check", "--since", "no-such-rev")
    assert r.exit_code == 1
    assert "drift" not in r.output


def _day(repo: Path, commit: str) -> str:
    return git_line(repo, "log", "-1", "--format=%aI", commit)[:10]


def test_two_branches_both_adding_a_governs_line_merge_and_both_drift(repo: Path) -> None:
    """Each branch adds a decision with its own ``GOVERNS:`` line; `git merge` through the
    driver keeps both, and a later change to either's code is drift of that decision."""
    assert run_cli("init").exit_code == 0
    commit_files(repo, {"src/a/x.py": "1\n", "src/b/y.py": "1\n"}, "the app")
    path = decide("Two", "Let us decide.")
    commit_all(repo, "start")
    git(repo, "checkout", "-q", "-b", "a")
    comment(path, "Ann", "DECISION: a stays pure\nGOVERNS: src/a/**")
    commit_all(repo, "a decides")
    git(repo, "checkout", "-q", "main")
    comment(path, "Bob", "DECISION: b logs nothing\nGOVERNS: src/b/*.py")
    commit_all(repo, "b decides")
    merge = git(repo, "merge", "-q", "--no-edit", "a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert not markers_present(path.read_text())
    decisions = Discussion.load(path, Workspace.discover()).decisions
    assert sorted(tuple(i.details["governs"]) for i in decisions) == [
        ("src/a/**",),
        ("src/b/*.py",),
    ]
    commit_files(repo, {"src/a/x.py": "2\n", "src/b/y.py": "2\n"}, "touch both")
    both = json.loads(run_cli("drift", "--json").stdout)["decisions"]
    assert sorted(d["governs"][0] for d in both if d["departures"] == 1) == [
        "src/a/**",
        "src/b/*.py",
    ]
    assert {d["line"] for d in both} == {decision_line_of(path, t) for t in ("a stays", "b logs")}


def decision_line_of(path: Path, start: str) -> int:
    return next(
        i.line
        for i in Discussion.load(path, Workspace.discover()).decisions
        if i.text.startswith(start)
    )


@pytest.mark.parametrize(
    ("pattern", "path", "governed"),
    [
        ("src/auth/**", "src/auth/jwt.py", True),
        ("src/auth/**", "src/auth/deep/x.py", True),
        ("src/auth/**", "src/authz/x.py", False),
        ("src/auth", "src/auth/x.py", True),  # a folder governs what is under it
        ("./src/auth/", "src/auth/x.py", True),
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/sub/a.py", False),  # one * stays in one folder
        ("**/auth.yaml", "config/auth.yaml", True),
        ("**/auth.yaml", "auth.yaml", True),
        ("src/**/test_*.py", "src/test_a.py", True),
        ("src/**/test_*.py", "src/x/y/test_a.py", True),
        ("config/auth.yaml", "config/auth.yaml.bak", False),
        ("src/a?.py", "src/ab.py", True),
        ("src/[ab].py", "src/b.py", True),
        ("src/[ab].py", "src/c.py", False),
        ("src/[!ab].py", "src/c.py", True),
        ("src/v[0-9].py", "src/v7.py", True),
    ],
)
def test_a_governed_glob_matches_as_git_matches_it(
    repo: Path, pattern: str, path: str, governed: bool
) -> None:
    assert matches(pattern, path) is governed
    commit_files(repo, {path: "x\n"}, "one file")
    listed = git_line(repo, "ls-files", "--", f":(top,glob){pattern.strip('./')}")
    assert (listed == path) is governed  # the same answer as git's own pathspec


def test_drift_counts_from_the_commit_that_recorded_the_decision(repo: Path) -> None:
    """A change committed before the decision's line was is no drift, whenever the decision
    was written."""
    commit_files(repo, {"src/a.py": "1\n"}, "the app")
    path = decide("Later", "DECISION: a.py returns 1\nGOVERNS: src/a.py")
    (repo / "src/a.py").write_text("2\n")
    git(repo, "add", "src/a.py")
    git(repo, "commit", "-q", "-m", "before the decision is committed")
    git(repo, "add", str(path))
    git(repo, "commit", "-q", "-m", "record it")
    commit_files(repo, {"src/a.py": "3\n"}, "after")
    [d] = json.loads(run_cli("drift", "--json").stdout)["decisions"]
    assert d["line"] == decision_line(path)
    assert d["recorded"] == git_line(repo, "rev-parse", "HEAD~1")
    assert [c["subject"] for c in d["commits"]] == ["after"]
