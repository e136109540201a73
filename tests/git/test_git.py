"""Git collaboration with real git in temporary repositories: init, the merge driver through
`git merge` and `git rebase`, criss-cross merges, divergent phase moves, resolve, check --since.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from discussions.git.appends import (
    changed_discussion_files,
    check_appends,
    deleted_discussion_files,
)
from discussions.git.driver import driver_main, merge_versions
from discussions.git.drivercheck import driver_warning, registered_python
from discussions.git.units import split_blocks
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace
from discussions.syntax import clock
from discussions.syntax.parse import parse_document
from discussions.syntax.render import render_header

from ..documentation import page
from ..support.git import (
    FILE,
    advance,
    ai_turn,
    check_clean,
    comment,
    commit_all,
    git,
    markers_present,
    run_cli,
    start_discussion,
    two_branches,
)

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)


def expected_comments(text: str) -> list[str]:
    return sorted(
        line for line in text.splitlines() if line.startswith(("Ann's", "Bob's", "After"))
    )


# --------------------------------------------------------------------------- init


def test_init_sets_up_and_is_idempotent(repo: Path) -> None:
    first = run_cli("init")
    assert first.exit_code == 0
    assert "created  discussions.yaml" in first.output
    attributes = (repo / ".gitattributes").read_text()
    assert "discussions/*.md merge=discussions" in attributes
    assert "discussions/*.sum.md merge=discussions-summary linguist-generated=true" in attributes
    driver = git(repo, "config", "merge.discussions.driver").stdout.strip()
    assert registered_python(driver) == sys.executable
    assert driver.startswith("set -- ") and " %O %A %B %L %P; " in driver
    assert '"$y" -P -m discussions' in driver
    assert (repo / "discussions").is_dir()
    config = (repo / "discussions.yaml").read_text()
    assert "threshold_ready: 0.67" in config and "directory: ./discussions" in config

    before = {p: p.read_bytes() for p in (repo / ".gitattributes", repo / "discussions.yaml")}
    second = run_cli("init")
    assert second.exit_code == 0
    assert "Nothing to do" in second.output
    assert {p: p.read_bytes() for p in before} == before
    data = run_cli("init", "--json")
    assert '"changed": false' in data.output


def test_init_says_what_the_driver_runs_in_one_short_line(repo: Path) -> None:
    """The registered command is a shell script of about a thousand characters: `init` names
    what runs first, not the script."""
    result = run_cli("init")
    line = next(ln for ln in result.output.splitlines() if "merge.discussions.driver" in ln)
    assert len(line) < 300
    assert f"{sys.executable} -I -S " in line and "mergefile.py, with fallbacks" in line
    assert "set --" not in line


def test_init_replaces_a_union_merge(repo: Path) -> None:
    (repo / ".gitattributes").write_text("*.png binary\ndiscussions/*.md merge=union -diff\n")
    result = run_cli("init")
    assert (
        "discussions/*.md merge=union -diff -> discussions/*.md -diff merge=discussions"
        in result.output
    )
    text = (repo / ".gitattributes").read_text()
    assert "union" not in text and text.startswith("*.png binary\n")
    assert (
        git(repo, "check-attr", "merge", "--", "discussions/x.md")
        .stdout.strip()
        .endswith("merge: discussions")
    )
    assert (
        git(repo, "check-attr", "merge", "--", "discussions/x.sum.md")
        .stdout.strip()
        .endswith("merge: discussions-summary")
    )
    assert "Nothing to do" in run_cli("init").output


def test_init_outside_a_repository(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    result = run_cli("init")
    assert result.exit_code == 1
    assert "not inside a git repository" in result.output
    assert "--no-git" in result.output
    ok = run_cli("init", "--no-git")
    assert ok.exit_code == 0, ok.output
    assert (isolated / "discussions.yaml").is_file()
    assert not (isolated / ".gitattributes").exists()


def test_driver_warning(repo: Path) -> None:
    path = repo / "discussions" / "x.md"
    path.parent.mkdir()
    path.write_text("<!-- DISCUSSION -->\n")
    assert driver_warning(path) is None  # no .gitattributes: no git run at all
    (repo / ".gitattributes").write_text("discussions/*.md merge=discussions\n")
    warning = driver_warning(path)
    assert warning == "this clone has no merge driver for discussions: run `discussions init`"
    result = run_cli("check", str(path))
    assert "Warning: this clone has no merge driver" in result.output
    assert result.exit_code == 0
    run_cli("init")
    assert driver_warning(path) is None
    git(repo, "config", "merge.discussions.driver", "/nonexistent/python -m discussions merge-file")
    assert "no longer exists" in (driver_warning(path) or "")


# --------------------------------------------------------------------------- merge, rebase


def test_merge_two_branches_with_the_driver(repo: Path) -> None:
    path = start_discussion(repo)
    two_branches(repo, path, commits=2)
    ours_text = path.read_text()
    git(repo, "checkout", "-q", "a")
    theirs_text = git(repo, "show", f"b:{FILE}").stdout
    merge = git(repo, "merge", "-q", "--no-edit", "b", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    text = path.read_text()
    assert not markers_present(text)
    wanted = sorted(set(expected_comments(path.read_text())) | set(expected_comments(ours_text)))
    assert expected_comments(text) == wanted
    assert expected_comments(text) == sorted(
        set(expected_comments(theirs_text))
        | set(expected_comments(git(repo, "show", f"a:{FILE}").stdout))
    )
    doc = parse_document(text)
    assert [m.target for m in doc.engine_markers if m.kind == "phase-transition"] == [
        "detailed_review"
    ]
    assert sum(c.author == "AI-Architect" for c in doc.comments) == 2
    assert sum(c.author == "AI-Security" for c in doc.comments) == 2
    check_clean(path)


def test_two_branches_each_naming_what_a_decision_governs_merge(repo: Path) -> None:
    """Each branch restates the decision with a ``GOVERNS:`` line (issue 38): `git merge`
    with the driver keeps both, and the decision governs what each named."""
    path = start_discussion(repo)
    git(repo, "checkout", "-q", "-b", "a")
    comment(path, "Ann", "DECISION: use JWT\nGOVERNS: src/auth/**")
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    comment(path, "Bob", "DECISION: use JWT\nGOVERNS: config/auth.yaml, src/auth/**")
    commit_all(repo, "b")
    merge = git(repo, "merge", "-q", "--no-edit", "a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert not markers_present(path.read_text())
    [decision] = Discussion.load(path, Workspace.discover()).decisions
    assert sorted(decision.details["governs"]) == ["config/auth.yaml", "src/auth/**"]
    check_clean(path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_random_two_branch_cases_merge_and_rebase(repo: Path, seed: int) -> None:
    """Random appends on two branches (comments, votes, AI turns, a phase advance), merged
    with `git merge` and replayed with `git rebase`: no conflict, every comment exactly once."""
    import random

    rnd = random.Random(seed)
    path = start_discussion(repo)
    said: list[str] = []
    for branch in ("a", "b"):
        git(repo, "checkout", "-q", "main")
        git(repo, "checkout", "-q", "-b", branch)
        advanced = False
        for i in range(rnd.randint(1, 4)):
            kind = rnd.choice(["comment", "comment", "ai", "advance"])
            if kind == "ai":
                ai_turn(path, rnd.choice(["architect", "security", "pragmatist"]))
            elif kind == "advance" and not advanced:
                advance(path)
                advanced = True
            else:
                text = f"{branch.upper()}-{seed}-{i} says something."
                said.append(text)
                comment(path, rnd.choice(["Ann", "Bob", "Zoë"]), text, rnd.choice([None, "READY"]))
            commit_all(repo, f"{branch} {i}")
    git(repo, "checkout", "-q", "a")
    git(repo, "branch", "a-before")
    merge = git(repo, "merge", "-q", "--no-edit", "b", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    merged = path.read_text()
    git(repo, "checkout", "-q", "b")
    rebase = git(repo, "rebase", "a-before", check=False)
    assert rebase.returncode == 0, rebase.stdout + rebase.stderr
    rebased = path.read_text()
    for text in (merged, rebased):
        assert not markers_present(text)
        for line in said:
            assert text.count(line) == 1
        doc = parse_document(text)
        assert not doc.warnings
        sources = [m.source for m in doc.engine_markers if m.kind == "phase-transition"]
        assert len(sources) == len(set(sources))
    check_clean(path)


@pytest.mark.slow
def test_rebase_replays_without_stopping(repo: Path) -> None:
    path = start_discussion(repo)
    two_branches(repo, path, commits=3)
    git(repo, "checkout", "-q", "a")
    a_text = path.read_text()
    git(repo, "checkout", "-q", "b")
    b_text = path.read_text()
    rebase = git(repo, "rebase", "a", check=False)
    assert rebase.returncode == 0, rebase.stdout + rebase.stderr
    text = path.read_text()
    assert not markers_present(text)
    assert expected_comments(text) == sorted(
        set(expected_comments(a_text)) | set(expected_comments(b_text))
    )
    # b's phase advance was already made on a: written once, so that commit became empty and
    # git dropped it; every other commit replayed.
    log = git(repo, "log", "--format=%s", "main..HEAD").stdout.split()
    assert log.count("advance") == 1 and len(log) == 4 + 3 + 1
    assert text.count("<!-- PHASE-TRANSITION:") == 1
    check_clean(path)


def test_criss_cross_merges_give_identical_bytes(repo: Path) -> None:
    path = start_discussion(repo)
    two_branches(repo, path)
    git(repo, "checkout", "-q", "a")
    git(repo, "branch", "a0")
    git(repo, "merge", "-q", "--no-edit", "b")
    git(repo, "checkout", "-q", "b")
    git(repo, "merge", "-q", "--no-edit", "a0")
    assert path.read_bytes() == git(repo, "show", f"a:{FILE}").stdout.encode()
    # Both sides go on; merging the criss-cross (two merge bases) is clean too.
    comment(path, "Bob", "Bob's point after criss-cross.")
    commit_all(repo, "b more")
    git(repo, "checkout", "-q", "a")
    comment(path, "Ann", "Ann's point after criss-cross.")
    commit_all(repo, "a more")
    merge = git(repo, "merge", "-q", "--no-edit", "b", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    text = path.read_text()
    assert text.count("Ann's point after criss-cross.") == 1
    assert text.count("Bob's point after criss-cross.") == 1
    check_clean(path)


def test_divergent_phase_moves_conflict(repo: Path) -> None:
    path = start_discussion(repo)
    git(repo, "checkout", "-q", "-b", "a")
    advance(path)
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    advance(path, "consensus_vote")
    commit_all(repo, "b")
    merge = git(repo, "merge", "--no-edit", "a", check=False)
    assert merge.returncode != 0
    assert "CONFLICT" in merge.stdout
    assert "phase or status differently" in merge.stderr
    text = path.read_text()
    assert "\n<<<<<<< ours\n" in text and "\n=======\n" in text and "\n>>>>>>> theirs\n" in text
    # resolve refuses too, and leaves the file as it was.
    result = run_cli("resolve", str(path))
    assert result.exit_code == 1
    assert "cannot be merged safely" in result.output
    assert path.read_text() == text


def test_a_conflict_with_a_larger_marker_size_is_reported_by_check(repo: Path) -> None:
    """`.gitattributes` may set `conflict-marker-size`: git hands the driver that size (``%L``)
    and the conflict's lines are that long; `check` reports them as it reports seven."""
    path = start_discussion(repo)
    attributes = repo / ".gitattributes"
    attributes.write_text(
        attributes.read_text().replace(
            "merge=discussions\n", "merge=discussions conflict-marker-size=9\n", 1
        )
    )
    commit_all(repo, "marker size 9")
    git(repo, "checkout", "-q", "-b", "a")
    advance(path)
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    advance(path, "consensus_vote")
    commit_all(repo, "b")
    assert git(repo, "merge", "--no-edit", "a", check=False).returncode != 0
    text = path.read_text()
    assert "\n<<<<<<<<< ours\n" in text and "\n>>>>>>>>> theirs\n" in text
    result = run_cli("check", str(path))
    assert result.exit_code == 1
    assert result.output.count("unresolved merge-conflict line") == 3


def test_both_branches_creating_the_same_file_conflict(repo: Path) -> None:
    assert run_cli("init").exit_code == 0
    commit_all(repo, "init")
    ws = Workspace.discover()
    git(repo, "checkout", "-q", "-b", "a")
    Discussion.create("Same name", workspace=ws, context="Ours.").save()
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    Discussion.create("Same name", workspace=ws, context="Theirs.").save()
    commit_all(repo, "main")
    merge = git(repo, "merge", "--no-edit", "a", check=False)
    assert merge.returncode != 0
    path = repo / "discussions" / "same-name.md"
    assert markers_present(path.read_text())
    result = run_cli("resolve", str(path))
    assert result.exit_code == 1
    assert "both sides created this file" in result.output


def test_crlf_files_merge(repo: Path) -> None:
    path = start_discussion(repo)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    commit_all(repo, "crlf")
    git(repo, "checkout", "-q", "-b", "a")
    comment(path, "Ann", "Ann's crlf point.")
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    comment(path, "Bob", "Bob's crlf point.")
    commit_all(repo, "main")
    assert git(repo, "merge", "-q", "--no-edit", "a", check=False).returncode == 0
    data = path.read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert data.count(b"crlf point.") == 2
    check_clean(path)


# --------------------------------------------------------------------------- resolve


def test_resolve_repairs_a_default_driver_conflict(repo: Path) -> None:
    path = start_discussion(repo)
    git(repo, "config", "--remove-section", "merge.discussions")  # a clone without the driver
    two_branches(repo, path)
    git(repo, "checkout", "-q", "a")
    a_text = path.read_text()
    merge = git(repo, "merge", "--no-edit", "b", check=False)
    assert merge.returncode != 0  # git's line merge conflicts
    assert markers_present(path.read_text())
    result = run_cli("resolve", str(path))
    assert result.exit_code == 0, result.output
    assert "git add" in result.output
    text = path.read_text()
    assert not markers_present(text)
    b_text = git(repo, "show", f"b:{FILE}").stdout
    assert expected_comments(text) == sorted(
        set(expected_comments(a_text)) | set(expected_comments(b_text))
    )
    check_clean(path)
    git(repo, "add", str(path))
    git(repo, "commit", "-q", "--no-edit")


def test_resolve_refuses_without_conflict(repo: Path) -> None:
    path = start_discussion(repo)
    result = run_cli("resolve", str(path))
    assert result.exit_code == 1
    assert "has no merge conflict to resolve" in result.output


def test_merge_file_command_contract(tmp_path: Path) -> None:
    base = render_header([("Title", "T")]) + "\n# T\n\n---\n\nName: Rob\n\nHi.\n\n---\n"
    assert base.startswith("<!-- DISCUSSION -->")
    ours = base + "\nName: Ann\n\nOne.\n\n---\n"
    theirs = base + "\nName: Bob\n\nTwo.\n\n---\n"
    files = []
    for name, text in (("O", base), ("A", ours), ("B", theirs)):
        p = tmp_path / name
        p.write_text(text)
        files.append(str(p))
    result = run_cli("merge-file", *files, "discussions/x.md")
    assert result.exit_code == 0
    assert (
        Path(files[1]).read_text()
        == base + "\nName: Ann\n\nOne.\n\n---\n\nName: Bob\n\nTwo.\n\n---\n"
    )
    # An edit of existing text on both sides at the same place: git merge-file conflicts.
    Path(files[1]).write_text(ours.replace("Hi.", "Hello."))
    Path(files[2]).write_text(theirs.replace("Hi.", "Hey."))
    result = run_cli("merge-file", "--marker-size", "9", *files, "discussions/x.md")
    assert result.exit_code == 1
    assert "<<<<<<<<< ours" in Path(files[1]).read_text()
    # Non-overlapping edits plus appends: line merge is clean.
    Path(files[1]).write_text(ours.replace("# T", "# Title"))
    Path(files[2]).write_text(base.replace("Hi.", "Hey."))
    result = run_cli("merge-file", *files)
    assert result.exit_code == 0, result.output
    assert Path(files[1]).read_text() == ours.replace("# T", "# Title").replace("Hi.", "Hey.")


def test_the_driver_as_git_runs_it_imports_little(tmp_path: Path) -> None:
    """git starts ``python -P -m discussions merge-file`` once per merged file: a merge where
    both sides appended imports neither click nor the modules that cost more to import than
    the merge takes (dataclasses with inspect, typing, pathlib, hashlib with OpenSSL)."""
    base = render_header([("Title", "T")]) + "\n# T\n\n---\n\nName: Rob\n\nHi.\n\n---\n"
    paths = []
    for name, extra in (
        ("O", ""),
        ("A", "\nName: Ann\n\nOne.\n\n---\n"),
        ("B", "\nName: Bo\n\nTwo.\n\n---\n"),
    ):
        (tmp_path / name).write_text(base + extra)
        paths.append(str(tmp_path / name))
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['discussions', 'merge-file', '--marker-size', '7', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('discussions', run_name='__main__')\n"
        "except SystemExit as exc:\n    status = exc.code\n"
        "heavy = ('click', 'dataclasses', 'inspect', 'typing', 'pathlib', 'hashlib')\n"
        "print(status, sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-P", "-c", probe, *paths, "d.md"], capture_output=True, text=True
    )
    assert done.stdout.split(None, 1) == ["0", "[]\n"], done.stdout + done.stderr
    merged = (tmp_path / "A").read_text()
    assert "Name: Ann" in merged and "Name: Bo" in merged


def test_driver_main_without_the_command_line(tmp_path: Path) -> None:
    """The fast path `python -m discussions merge-file` can take before importing click."""
    base = render_header([("Title", "T")]) + "\n# T\n\n---\n\nName: Rob\n\nHi.\n\n---\n"
    paths = []
    for name, text in (("O", base), ("A", base + "\nName: Ann\n\nOne.\n\n---\n"), ("B", base)):
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    assert driver_main(["--marker-size", "7", *paths, "x.md"]) == 0
    assert driver_main(["--marker-size=9", *paths]) == 0
    assert "Name: Ann" in (tmp_path / "A").read_text()
    assert driver_main(["--help"]) == -1  # not the driver's shape: click explains
    assert driver_main([*paths[:2]]) == -1
    assert driver_main([paths[0], str(tmp_path / "missing"), paths[2]]) == 2


def test_other_markdown_files_merge_line_by_line(tmp_path: Path) -> None:
    base = b"# Index\n\n- one\n"
    result, data = merge_versions(base, base + b"- two\n", base + b"- three\n", cwd=tmp_path)
    assert result.status == "conflict"  # as git would: not a discussion, no block merge
    assert b"<<<<<<< ours\n- two\n=======\n- three\n>>>>>>> theirs\n" in data


def test_edits_and_appends_on_both_sides_merge(tmp_path: Path) -> None:
    """A typo fixed in the context on one side while both sides appended comments: the edit
    merges line by line, the comments block by block, no conflict."""
    base = (
        render_header([("Title", "T")])
        + "\n# T\n\nTeh context.\n\n---\n\nName: Rob\n\nHi.\n\n---\n"
    )
    ours = base.replace("Teh", "The") + "\nName: Ann\n\nOne.\n\n---\n"
    theirs = base + "\nName: Bob\n\nTwo.\n\n---\n"
    result, data = merge_versions(base.encode(), ours.encode(), theirs.encode(), cwd=tmp_path)
    assert result.clean, result.reason
    assert data.decode() == ours + "\nName: Bob\n\nTwo.\n\n---\n"
    assert (result.added_ours, result.added_theirs) == (1, 1)
    # The same edit-and-append with the edit overlapping on both sides: a real conflict.
    theirs2 = base.replace("Teh", "Thee") + "\nName: Bob\n\nTwo.\n\n---\n"
    result, data = merge_versions(base.encode(), ours.encode(), theirs2.encode(), cwd=tmp_path)
    assert result.status == "conflict"
    assert b"<<<<<<< ours" in data


# --------------------------------------------------------------------------- check --since


def test_check_since_catches_a_rewritten_line(repo: Path) -> None:
    path = start_discussion(repo)
    comment(path, "Ann", "An appended comment is fine.")
    assert run_cli("check", "--since", "HEAD", str(path)).exit_code == 0
    assert run_cli("check", "--since", "HEAD").exit_code == 0
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines) if "We want accounts" in line)
    lines[n] = lines[n].replace("We want accounts", "We never wanted accounts")
    path.write_text("".join(lines))
    result = run_cli("check", "--since", "HEAD")
    assert result.exit_code == 1
    rel = os.path.relpath(path, repo)
    assert f"{rel}:{n + 1}: changed text that existed at HEAD (not a pure append)" in result.output
    result = run_cli("check", "--since", "HEAD", "--json", str(path))
    assert f'"line": {n + 1}' in result.output


def test_check_since_new_file_and_errors(repo: Path) -> None:
    start_discussion(repo)
    d = Discussion.create("Created later", workspace=Workspace.discover())
    d.save()
    (repo / "notes.md").write_text("# not a discussion\n")
    result = run_cli("check", "--since", "HEAD")
    assert result.exit_code == 0, result.output
    assert "1 file(s) checked" in result.output
    bad = run_cli("check", "--since", "no-such-rev")
    assert bad.exit_code == 1
    assert "unknown revision 'no-such-rev'" in bad.output
    every = run_cli("check")  # no file and no --since: every discussion of the folder
    assert every.exit_code == 0 and "2 file(s) checked" in every.output


def test_pre_commit_hooks_file_is_valid() -> None:
    import yaml

    root = Path(__file__).resolve().parent.parent.parent
    hooks = yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())
    ids = {h["id"]: h for h in hooks}
    assert ids["discussions-check"]["entry"] == "discussions check"
    for hook in hooks:
        assert {"id", "name", "entry", "language", "files"} <= set(hook)


def test_a_repository_cannot_run_its_own_code_through_the_driver(
    repo: Path, tmp_path: Path
) -> None:
    """git runs the driver from the work tree; `python -m` would import the repository's own
    `discussions/__init__.py` first. The driver runs with -P."""
    assert run_cli("init").exit_code == 0
    assert run_cli("new", "Merge me").exit_code == 0
    commit_all(repo, "base")
    pwned = tmp_path / "PWNED"
    (repo / "discussions" / "__init__.py").write_text(
        f"import pathlib; pathlib.Path({str(pwned)!r}).touch()\n"
    )
    (repo / "discussions" / "__main__.py").write_text("")
    commit_all(repo, "evil")
    git(repo, "checkout", "-q", "-b", "side")
    assert run_cli("comment", "merge-me.md", "side", "--author", "Sid").exit_code == 0
    commit_all(repo, "side")
    git(repo, "checkout", "-q", "main")
    assert run_cli("comment", "merge-me.md", "main", "--author", "Mia").exit_code == 0
    commit_all(repo, "main")
    git(repo, "merge", "-q", "side", "-m", "merge")
    assert not pwned.exists()
    text = (repo / "discussions" / "merge-me.md").read_text()
    assert "Name: Sid" in text and "Name: Mia" in text


# --------------------------------------------------------------------------- engine blocks, edits


def engine_kinds(text: str) -> list[str]:
    return [m.kind for m in parse_document(text).engine_markers]


@pytest.mark.slow
def test_run_on_one_branch_advance_on_the_other_keeps_every_engine_block(repo: Path) -> None:
    """Branch a advances; branch b runs two rounds (ROUND 1, the AIs, its own transition,
    ROUND 2, ..., RUN-STOP): merged either way, every block either side wrote is there."""
    assert run_cli("init").exit_code == 0
    assert run_cli("new", "F").exit_code == 0
    path = repo / "discussions" / "f.md"
    commit_all(repo, "start")
    git(repo, "checkout", "-q", "-b", "a")
    assert run_cli("advance", str(path)).exit_code == 0
    commit_all(repo, "a advance")
    a_text = path.read_text()
    git(repo, "checkout", "-q", "-b", "b", "main")
    assert run_cli("run", str(path), "--rounds", "2", "--provider", "mock").exit_code == 0
    commit_all(repo, "b run")
    b_text = path.read_text()
    assert engine_kinds(b_text).count("round") == 2
    assert "phase-transition" in engine_kinds(b_text)
    results = set()
    for into, other in (("a", "b"), ("b", "a")):
        git(repo, "checkout", "-q", "-b", f"m-{into}", into)
        git(repo, "merge", "-q", other, "-m", f"merge {other}")
        merged = path.read_text()
        blocks = set(split_blocks(merged)[0])
        for side in (a_text, b_text):
            assert set(split_blocks(side)[0]) <= blocks
        assert len(Discussion.load(path, Workspace.discover()).rounds) == 2
        check_clean(path)
        results.add(merged)
    assert len(results) == 1


def test_typo_in_the_last_comment_merges_and_rebases(repo: Path) -> None:
    """One side fixes a typo in the base's last comment, then comments; the other only
    comments: `git merge` and `git rebase` both succeed, with the fix and both comments."""
    path = start_discussion(repo)
    comment(path, "Rob", "Teh cache should expire.", vote="READY")
    commit_all(repo, "base comment")
    git(repo, "checkout", "-q", "-b", "a")
    path.write_text(path.read_text().replace("Teh cache", "The cache"))
    commit_all(repo, "typo")
    comment(path, "Ann", "Agreed, an hour.")
    commit_all(repo, "a comment")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    comment(path, "Bob", "Two hours.", vote="CHANGES")
    commit_all(repo, "b comment")
    git(repo, "checkout", "-q", "-b", "b-merge")
    git(repo, "merge", "-q", "a", "-m", "merge a")
    merged = path.read_text()
    git(repo, "checkout", "-q", "b")
    git(repo, "rebase", "-q", "a")
    rebased = path.read_text()
    for text in (merged, rebased):
        assert "The cache should expire." in text and "Teh" not in text
        assert text.count("Agreed, an hour.") == 1 and text.count("Two hours.") == 1
    assert merged == rebased
    check_clean(path)


def test_rebase_over_a_hand_typed_comment_left_open(repo: Path) -> None:
    """Branch a: a turn, then advance. Branch b: a comment typed by hand without its closing
    `---`, then a turn (which closes it). Merge and rebase both work, with the same bytes."""
    path = start_discussion(repo)
    git(repo, "checkout", "-q", "-b", "a")
    ai_turn(path, "architect")
    commit_all(repo, "a turn")
    advance(path)
    commit_all(repo, "a advance")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    with path.open("a") as f:
        f.write("\n---\n\nName: Rob\n\nTyped by hand.\n")
    commit_all(repo, "b hand")
    ai_turn(path, "pragmatist")
    commit_all(repo, "b turn")
    git(repo, "checkout", "-q", "-b", "b-merge")
    git(repo, "merge", "-q", "a", "-m", "merge a")
    merged = path.read_text()
    git(repo, "checkout", "-q", "b")
    git(repo, "rebase", "-q", "a")
    assert path.read_text() == merged
    assert merged.count("Typed by hand.") == 1
    assert merged.count("Name: AI-Pragmatist") == 1 and merged.count("Name: AI-Architect") == 1
    check_clean(path)


# --------------------------------------------------------------------------- many branches


def branches_commenting(repo: Path, path: Path, names: list[str]) -> None:
    """One branch per name from main: a comment, some with an AI turn or an advance."""
    for n, name in enumerate(names):
        git(repo, "checkout", "-q", "-b", name, "main")
        comment(path, name.capitalize(), f"Point from {name}.", vote=["READY", None][n % 2])
        if n % 2:
            ai_turn(path, "security")
        if n == 2:
            advance(path)
            comment(path, name.capitalize(), f"After the move, {name}.")
        commit_all(repo, name)


@pytest.mark.slow
@pytest.mark.parametrize("count", [3, 4])
def test_branches_merged_in_every_order_give_identical_bytes(repo: Path, count: int) -> None:
    import itertools

    path = start_discussion(repo)
    names = ["zed", "ann", "mia", "bob"][:count]
    branches_commenting(repo, path, names)
    results: dict[bytes, list[str]] = {}
    for k, order in enumerate(itertools.permutations(names)):
        git(repo, "checkout", "-q", "-b", f"order{k}", "main")
        for name in order:
            git(repo, "merge", "-q", "--no-ff", name, "-m", f"merge {name}")
        results.setdefault(path.read_bytes(), []).append(" ".join(order))
    assert len(results) == 1, list(results.values())
    text = next(iter(results)).decode()
    for name in names:
        assert text.count(f"Point from {name}.") == 1
    check_clean(path)


@pytest.mark.slow
def test_octopus_merge_keeps_the_repository_safe(repo: Path) -> None:
    """git's octopus strategy never runs merge drivers: it refuses a merge in which both
    sides appended, leaving the branch as it was; one branch at a time works (docs/git.md)."""
    path = start_discussion(repo)
    branches_commenting(repo, path, ["zed", "ann", "bob"])
    git(repo, "checkout", "-q", "main")
    before = path.read_bytes()
    head = git(repo, "rev-parse", "HEAD").stdout
    octopus = git(repo, "merge", "zed", "ann", "bob", "-m", "octopus", check=False)
    if octopus.returncode == 0:  # a git that runs drivers in an octopus merge
        text = path.read_text()
    else:
        assert "octopus" in octopus.stdout + octopus.stderr
        assert git(repo, "rev-parse", "HEAD").stdout == head
        assert path.read_bytes() == before
        assert git(repo, "status", "--porcelain").stdout == ""
        for name in ("zed", "ann", "bob"):
            git(repo, "merge", "-q", name, "-m", f"merge {name}")
        text = path.read_text()
    for name in ("zed", "ann", "bob"):
        assert text.count(f"Point from {name}.") == 1
    assert "octopus" in page("git.md")


# --------------------------------------------------------------------------- check --since


@pytest.mark.slow
def test_check_since_accepts_what_a_merge_of_appends_produces(repo: Path) -> None:
    """A pull request that only appended merges main, where someone commented meanwhile; the
    merge orders the two comments by author, so the PR's comment comes before main's."""
    path = start_discussion(repo)
    git(repo, "checkout", "-q", "-b", "pr")
    comment(path, "Ann", "From the pull request.")
    commit_all(repo, "pr comment")
    git(repo, "checkout", "-q", "main")
    comment(path, "Zed", "Meanwhile on main.")
    ai_turn(path, "architect")
    commit_all(repo, "main comment")
    git(repo, "checkout", "-q", "pr")
    git(repo, "merge", "-q", "main", "-m", "merge main")
    text = path.read_text()
    assert text.index("From the pull request.") < text.index("Meanwhile on main.")
    result = run_cli("check", "--since", "main")
    assert result.exit_code == 0, result.output
    assert run_cli("check", "--since", "main", str(path)).exit_code == 0
    report = check_appends("main", repo)
    assert report.files == [path] and report.violations == []


@pytest.mark.slow
def test_comments_of_two_branches_merge_in_the_order_they_were_written(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written on two branches at known times (the clock set per comment), the comments are
    merged in time order, not by author, with the same bytes whichever branch merges which,
    and `check --since` accepts the merge against either branch."""
    path = start_discussion(repo)

    def written(stamp: str, author: str, text: str) -> None:
        monkeypatch.setattr(clock, "now_stamp", lambda: stamp)
        comment(path, author, text)

    git(repo, "checkout", "-q", "-b", "a")
    written("2026-11-23T10:00:00Z", "Zed", "Zed wrote first.")
    written("2026-11-23T10:02:00Z", "Zed", "Zed wrote third.")
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "-b", "b", "main")
    written("2026-11-23T10:01:00Z", "Ann", "Ann wrote second.")
    commit_all(repo, "b")
    results = set()
    for ours, theirs in (("a", "b"), ("b", "a")):
        git(repo, "checkout", "-q", "-b", f"merge-{ours}", ours)
        git(repo, "merge", "-q", "--no-edit", theirs)
        text = path.read_text(encoding="utf-8")
        said = [text.index(s) for s in ("wrote first", "wrote second", "wrote third")]
        assert said == sorted(said), text
        results.add(text)
        for since in (ours, theirs):
            result = run_cli("check", "--since", since, str(path))
            assert result.exit_code == 0, result.output
    assert len(results) == 1


def test_check_since_fails_on_rewrites_and_deletions(repo: Path) -> None:
    path = start_discussion(repo)
    comment(path, "Zed", "Second comment.")
    commit_all(repo, "more")
    original = path.read_text()
    rel = os.path.relpath(path, repo)
    # A comment rewritten, with a new comment ordered before it as a merge would.
    at = original.index("Name: Zed")
    edited = original[:at] + "Name: Ann\n\nNew.\n\n---\n\n" + original[at:]
    path.write_text(edited.replace("Second comment.", "Second comment, rewritten."))
    result = run_cli("check", "--since", "HEAD")
    line = edited.splitlines().index("Second comment.") + 1
    assert f"{rel}:{line}: changed text that existed at HEAD" in result.output
    assert result.exit_code == 1
    # A comment removed.
    path.write_text(original[: original.index("Name: Zed")])
    result = run_cli("check", "--since", "HEAD")
    assert result.exit_code == 1 and "was removed" in result.output
    # Text slipped into an existing comment as a block of its own.
    at = original.index("---\n\nName: Zed")
    path.write_text(original[:at] + "---\n\nI add this under Rob's name.\n\n" + original[at:])
    result = run_cli("check", "--since", "HEAD")
    assert result.exit_code == 1 and "inserted into a comment" in result.output
    # The file deleted with git rm.
    git(repo, "rm", "-q", "-f", rel)
    result = run_cli("check", "--since", "HEAD")
    assert result.exit_code == 1, result.output
    assert f"{rel}:0: deleted since HEAD" in result.output
    assert "1 problem(s) in 1 of 1 file(s)" in result.output
    report = check_appends("HEAD", repo)
    assert [v.path for v in report.violations] == [path]
    commit_all(repo, "removed")
    result = run_cli("check", "--since", "HEAD~1")
    assert result.exit_code == 1 and "deleted since HEAD~1" in result.output


HEADERLESS = "# Notes\n\nWhat we said.\n\n---\n\nName: Rob\n\nFirst point.\n\n---\n"


def test_check_since_checks_discussions_without_the_header(repo: Path) -> None:
    """A discussion is what `storage.discussion_problem` says (the header or a comment
    boundary, no NUL), not only a file with the header: a headerless one rewritten or deleted
    since the revision is caught, a derived file and a binary one are not checked."""
    folder = repo / "discussions"
    folder.mkdir()
    path = folder / "notes.md"
    path.write_text(HEADERLESS)
    late = folder / "late.md"  # the first boundary far beyond the first 256 bytes
    late.write_text("# Late\n\n" + "Context line.\n" * 100 + "\n---\n\nName: Ann\n\nHi.\n\n---\n")
    post = folder / "notes.post.md"  # an export that quotes a comment: derived, not checked
    post.write_text(HEADERLESS)
    binary = folder / "blob.md"  # the header, but a NUL byte: a binary file
    binary.write_bytes(render_header([("Title", "B")]).encode() + b"\x00\n")
    commit_all(repo, "headerless")
    path.write_text(HEADERLESS.replace("First point.", "First point, rewritten."))
    late.write_text(late.read_text().replace("Hi.", "Hello."))
    post.write_text(HEADERLESS.replace("First point.", "Summed up again."))
    binary.write_bytes(binary.read_bytes() + b"more\n")
    assert changed_discussion_files("HEAD", repo) == [late, path]
    report = check_appends("HEAD", repo)
    assert sorted(v.path.name for v in report.violations) == ["late.md", "notes.md"]
    result = run_cli("check", "--since", "HEAD")
    assert result.exit_code == 1
    assert "notes.md:9: changed text that existed at HEAD" in result.output
    git(repo, "checkout", "-q", "--", ".")
    git(repo, "rm", "-q", "discussions/notes.md")
    assert deleted_discussion_files("HEAD", repo) == [path]
    report = check_appends("HEAD", repo)
    assert [(v.path, v.line) for v in report.violations] == [(path, 0)]


def test_headerless_discussions_merge_block_by_block(tmp_path: Path) -> None:
    """Both sides appended to a discussion without the header: the block merge, as for any
    discussion, not a line merge that conflicts."""
    base = HEADERLESS.encode()
    ours = base + b"\nName: Ann\n\nOne.\n\n---\n"
    theirs = base + b"\nName: Bob\n\nTwo.\n\n---\n"
    result, data = merge_versions(base, ours, theirs, cwd=tmp_path)
    assert result.clean, result.reason
    assert data == ours + b"\nName: Bob\n\nTwo.\n\n---\n"


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_random_three_branch_cases_with_hand_edits(repo: Path, seed: int) -> None:
    """Three branches of random work (comments, AI turns, a run round, an advance, a typo
    fixed by hand in the base's last comment, a comment typed by hand without its closing
    `---`): merged in two orders, the same bytes; rebased one onto another, no stop; every
    comment once, no warning, and `check --since main` accepts each result unless it holds
    the typo fix."""
    import random

    rnd = random.Random(seed)
    path = start_discussion(repo)
    said: list[str] = []
    names = ["a", "b", "c"]
    for branch in names:
        git(repo, "checkout", "-q", "-b", branch, "main")
        advanced = False
        for i in range(rnd.randint(1, 4)):
            kind = rnd.choice(["comment", "ai", "run", "advance", "typo", "hand"])
            text = f"{branch.upper()}-{seed}-{i} says something."
            # The mock answers alike in alike states: one persona per branch, and rounds on
            # one branch, so no two branches write the same comment independently.
            if kind == "ai":
                ai_turn(path, {"a": "architect", "b": "security", "c": "pragmatist"}[branch])
            elif kind == "run" and branch == "a":
                assert (
                    run_cli("run", str(path), "--rounds", "1", "--provider", "mock").exit_code == 0
                )
            elif kind == "advance" and not advanced:
                advance(path)
                advanced = True
            elif kind == "typo":
                path.write_text(path.read_text().replace("want accounts", "want user accounts"))
            elif kind == "hand":
                closed = path.read_text().rstrip("\n").endswith("\n---")
                with path.open("a") as f:
                    f.write(("" if closed else "\n---\n") + f"\nName: Hand\n\n{text}\n")
                said.append(text)
            else:
                said.append(text)
                comment(path, rnd.choice(["Ann", "Bob", "Zoë"]), text, rnd.choice([None, "READY"]))
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "--allow-empty", "-m", f"{branch} {i}")
    results = set()
    for order in (["b", "c"], ["c", "b"]):
        git(repo, "checkout", "-q", "-b", f"into-a-{''.join(order)}", "a")
        for other in order:
            merge = git(repo, "merge", "-q", "--no-edit", other, check=False)
            assert merge.returncode == 0, merge.stdout + merge.stderr
        results.add(path.read_text())
        # A typo fixed by hand is a rewrite; everything else was appended.
        typo = "want user accounts" in path.read_text()
        assert run_cli("check", "--since", "main").exit_code == (1 if typo else 0)
    assert len(results) == 1
    git(repo, "checkout", "-q", "b")
    assert git(repo, "rebase", "-q", "a", check=False).returncode == 0
    git(repo, "checkout", "-q", "c")
    rebase = git(repo, "rebase", "-q", "b", check=False)
    assert rebase.returncode == 0, rebase.stdout + rebase.stderr
    for text in (*results, path.read_text()):
        assert not markers_present(text)
        for line in said:
            assert text.count(line) == 1
        assert not parse_document(text).warnings
    check_clean(path)


def test_append_only_hook_on_the_first_commit_and_on_git_rm(repo: Path) -> None:
    """The hook runs `check --since HEAD` on every commit: before the first one there is
    nothing to compare with; after it, a staged `git rm` of a discussion fails."""
    assert run_cli("init").exit_code == 0
    assert run_cli("new", "First").exit_code == 0
    result = run_cli("check", "--since", "HEAD")
    assert result.exit_code == 0, result.output
    commit_all(repo, "first")
    git(repo, "rm", "-q", "discussions/first.md")
    result = run_cli("check", "--since", "HEAD")
    assert result.exit_code == 1 and "deleted since HEAD" in result.output


@pytest.mark.slow
def test_check_since_accepts_a_hand_typed_comment_a_merge_placed_first(repo: Path) -> None:
    """A comment typed in the documented form (its own `---` before `Name:`, after the
    engine's) has no time, so the merge places it before the other side's timed answer: the
    doubled separator it brings is part of that comment, not text slipped into another."""
    path = start_discussion(repo)
    ai_turn(path, "architect")
    commit_all(repo, "base")
    git(repo, "checkout", "-q", "-b", "b")
    with path.open("a", encoding="utf-8") as f:
        f.write("\n---\n\nName: Rob\n\nhi\n\n---\n")
    commit_all(repo, "hand-typed")
    git(repo, "checkout", "-q", "main")
    ai_turn(path, "security")
    commit_all(repo, "answer")
    git(repo, "checkout", "-q", "b")
    git(repo, "merge", "-q", "main", "-m", "merge main")
    text = path.read_text()
    assert text.index("Name: Rob") < text.index("Name: AI-Security")
    result = run_cli("check", "--since", "main")
    assert result.exit_code == 0, result.output
    assert run_cli("check", "--since", "b~1").exit_code == 0
