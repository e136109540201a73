"""Merges that cannot lose silently (issue 33, items 1-7), with real git in temporary
repositories: a driver whose Python is gone, `check` proving every parent's blocks are in a
merge, rebases over hand-typed comments, conflicts that keep appends outside the markers,
octopus and forge merges, ADR numbers across branches, numbers recorded twice."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from discussions.git.setup import driver_command
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace

from ..documentation import page
from ..support.git import (
    FILE,
    advance,
    comment,
    commit_all,
    git,
    markers_present,
    run_cli,
    start_discussion,
)

OLD_STYLE = "/nonexistent/python3 -P -m discussions merge-file --marker-size %L %O %A %B %P"


def fake_bin(folder: Path, programs: dict[str, str]) -> str:
    """A PATH of `folder` (holding `programs`: name -> sh script) before the system's
    folders, and none of the virtualenv's: what a clone sees after its Python is gone."""
    folder.mkdir(exist_ok=True)
    for name, body in programs.items():
        script = folder / name
        script.write_text("#!/bin/sh\n" + body)
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return os.pathsep.join([str(folder), "/usr/bin", "/bin"])


RUNS_DISCUSSIONS = f'exec {sys.executable} -P -m discussions "$@"\n'
A_PYTHON = f'exec {sys.executable} "$@"\n'
NO_DISCUSSIONS = 'echo "No module named discussions" >&2; exit 1\n'


def two_commenting_branches(repo: Path, path: Path) -> tuple[str, str]:
    git(repo, "checkout", "-q", "-b", "a")
    comment(path, "Ann", "Ann's point on a.")
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    comment(path, "Bob", "Bob's point on main.")
    commit_all(repo, "main")
    return "Ann's point on a.", "Bob's point on main."


# --------------------------------------------------------------------------- 1. stale driver


@pytest.mark.parametrize(
    "programs",
    [
        {"discussions": RUNS_DISCUSSIONS, "python3": NO_DISCUSSIONS},
        {"python3": A_PYTHON},
    ],
    ids=["discussions-on-path", "python3"],
)
def test_a_driver_whose_python_is_gone_still_merges(
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    programs: dict[str, str],
) -> None:
    """`init` registers a command that survives its Python going away (venv recreated, Python
    upgraded): it falls back to `discussions` on PATH, then to python3."""
    path = start_discussion(repo)
    git(repo, "config", "merge.discussions.driver", driver_command("/nonexistent/python3"))
    ours, theirs = two_commenting_branches(repo, path)
    monkeypatch.setenv("PATH", fake_bin(tmp_path / "bin", programs))
    merge = git(repo, "merge", "--no-edit", "a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    text = path.read_text()
    assert text.count(ours) == 1 and text.count(theirs) == 1
    assert not markers_present(text)
    assert not list(repo.glob(".merge_file_*")), "the wrapper's copies are removed"


def test_no_driver_that_runs_leaves_a_conflict_with_markers(
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No candidate can run: the merge stops with git's own conflict markers (never ours left
    as it was, which a commit would take as the merge), and `resolve` then merges it."""
    path = start_discussion(repo)
    git(repo, "config", "merge.discussions.driver", driver_command("/nonexistent/python3"))
    ours, theirs = two_commenting_branches(repo, path)
    monkeypatch.setenv("PATH", fake_bin(tmp_path / "bin", {"python3": NO_DISCUSSIONS}))
    merge = git(repo, "merge", "--no-edit", "a", check=False)
    assert merge.returncode != 0
    assert "no merge driver could run" in merge.stderr
    text = path.read_text()
    assert markers_present(text) and ours in text and theirs in text
    monkeypatch.undo()  # resolve runs git too
    result = run_cli("resolve", str(path))
    assert result.exit_code == 0, result.output
    text = path.read_text()
    assert not markers_present(text) and text.count(ours) == 1 and text.count(theirs) == 1


def test_driver_warning_names_a_missing_registered_python(repo: Path) -> None:
    path = start_discussion(repo)
    assert "Warning" not in run_cli("check", str(path)).output
    old = f"{sys.executable} -P -m discussions merge-file --marker-size %L %O %A %B %P"
    git(repo, "config", "merge.discussions.driver", old)  # what init registered before
    assert "has no fallback should its Python go away" in run_cli("check", str(path)).output
    git(repo, "config", "merge.discussions.driver", driver_command("/nonexistent/python3"))
    result = run_cli("check", str(path))
    assert "/nonexistent/python3 no longer exists" in result.output
    assert "run `discussions init`" in result.output


def lost_merge(repo: Path) -> tuple[Path, str]:
    """The issue's reproduction: a driver registered before the fallback, its Python gone;
    git reports a conflict and leaves ours without markers; `git add -A` takes it."""
    path = start_discussion(repo)
    git(repo, "config", "merge.discussions.driver", OLD_STYLE)
    ours, theirs = two_commenting_branches(repo, path)
    merge = git(repo, "merge", "--no-edit", "a", check=False)
    assert merge.returncode != 0
    text = path.read_text()
    assert ours not in text and not markers_present(text)  # the trap
    git(repo, "add", "-A")
    return path, ours


@pytest.mark.slow
def test_check_during_a_merge_fails_on_a_lost_block(repo: Path) -> None:
    """The pre-commit hook (`check --since HEAD`) while MERGE_HEAD exists: every block of
    every parent must be in the result."""
    lost_merge(repo)
    result = run_cli("check", "--since", "HEAD")
    assert result.exit_code == 1, result.output
    branch_a = git(repo, "rev-parse", "--short", "a").stdout.strip()
    assert f"lost by the merge: a block of {branch_a} (Name: Ann" in result.output
    assert "Ann's point on a." in result.output


@pytest.mark.slow
def test_check_since_fails_on_a_merge_commit_that_lost_a_block(repo: Path) -> None:
    lost_merge(repo)
    git(repo, "commit", "-q", "--no-verify", "--no-edit")
    for since in ("HEAD~1", "main~1"):
        result = run_cli("check", "--since", since)
        assert result.exit_code == 1, result.output
        assert "lost by the merge" in result.output and "Ann's point on a." in result.output
    # A range without the merge commit says nothing about it.
    assert run_cli("check", "--since", "HEAD").exit_code == 0


@pytest.mark.slow
def test_check_since_accepts_merges_the_driver_made(repo: Path) -> None:
    path = start_discussion(repo)
    two_commenting_branches(repo, path)
    git(repo, "merge", "-q", "--no-edit", "a")
    result = run_cli("check", "--since", "main~1")
    assert result.exit_code == 0, result.output


# --------------------------------------------------------------------------- 2. rebase, hand-typed


def type_by_hand(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(text)


@pytest.mark.slow
def test_pull_rebase_over_hand_typed_comments_without_separators(
    repo: Path, tmp_path: Path
) -> None:
    """My branch ends with comments typed by hand, the first closing the one before it with a
    `---` right below its last line, the last left open; meanwhile a comment typed by hand
    reached main. `git pull --rebase` replays without stopping, every comment once."""
    path = start_discussion(repo)
    type_by_hand(path, "\nName: Base\n\nLeft open on main.\n")
    commit_all(repo, "open comment")
    clone = tmp_path / "clone"
    git(repo, "clone", "-q", str(repo), str(clone))
    for key in ("user.name", "user.email"):
        git(clone, "config", key, git(repo, "config", key).stdout.strip())
    for key in ("merge.discussions.driver", "merge.discussions.name"):
        git(clone, "config", key, git(repo, "config", key).stdout.strip())
    mine = clone / FILE
    type_by_hand(mine, "---\nName: Ann\n\nFirst, typed below it.\n")
    commit_all(clone, "first")
    type_by_hand(mine, "\n---\n\nName: Ann\n\nSecond, left open.\n")
    commit_all(clone, "second")
    type_by_hand(path, "\n---\n\nName: Zed\n\nMeanwhile on main.\n")
    commit_all(repo, "main")
    pull = git(clone, "pull", "--rebase", "-q", check=False)
    assert pull.returncode == 0, pull.stdout + pull.stderr
    text = mine.read_text()
    assert not markers_present(text)
    for said in ("Left open on main.", "First, typed below it.", "Second, left open."):
        assert text.count(said) == 1
    assert text.count("Meanwhile on main.") == 1


def test_merge_file_three_files_with_hand_typed_comments(repo: Path, tmp_path: Path) -> None:
    """The same replay as the three-file command: the base is my first commit, ours main
    with it merged, theirs my second commit."""
    start = "<!-- DISCUSSION -->\n<!-- Title: T -->\n\n# T\n\n---\n\nName: Rob\n\nHi.\n\n---\n"
    start += "\nName: Base\n\nLeft open.\n"
    base = start + "---\nName: Ann\n\nFirst.\n"
    ours = start + "\n---\n\nName: Ann\n\nFirst.\n\n---\n\nName: Zed\n\nOn main.\n"
    theirs = base + "\n---\n\nName: Ann\n\nSecond.\n"
    files = []
    for name, text in (("base.md", base), ("o.md", ours), ("theirs.md", theirs)):
        (tmp_path / name).write_text(text)
        files.append(str(tmp_path / name))
    result = run_cli("merge-file", *files, "x.md")
    assert result.exit_code == 0, result.output
    merged = (tmp_path / "o.md").read_text()
    for said in ("Left open.", "First.", "Second.", "On main."):
        assert merged.count(said) == 1


# --------------------------------------------------------------------------- 3. real conflicts


def diverging_phases(repo: Path) -> Path:
    """Branch a: a comment, a move to detailed_review, a comment; main: a comment, a move to
    consensus_vote, a comment. Merged with the driver: a real conflict."""
    path = start_discussion(repo)
    git(repo, "checkout", "-q", "-b", "a")
    comment(path, "Ann", "Ann before the move.")
    advance(path, "detailed_review")
    comment(path, "Ann", "Ann after the move.")
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    comment(path, "Bob", "Bob before the move.")
    advance(path, "consensus_vote")
    comment(path, "Bob", "Bob after the move.")
    commit_all(repo, "main")
    merge = git(repo, "merge", "--no-edit", "a", check=False)
    assert merge.returncode != 0 and "phase or status differently" in merge.stderr
    return path


def conflict_region(text: str) -> str:
    return text[text.index("<<<<<<<") : text.index(">>>>>>>")]


@pytest.mark.slow
def test_diverging_phases_keep_what_merges_outside_the_markers(repo: Path) -> None:
    path = diverging_phases(repo)
    text = path.read_text()
    region = conflict_region(text)
    assert "before the move." not in region  # both merge on their own: outside
    assert text.count("Ann before the move.") == 1 and text.count("Bob before the move.") == 1
    assert "Ann after the move." in region and "Bob after the move." in region


@pytest.mark.slow
def test_check_status_and_resolve_lead_to_a_resolution(repo: Path) -> None:
    path = diverging_phases(repo)
    rel = str(path.relative_to(repo))
    checked = run_cli("check", rel)
    assert checked.exit_code == 1 and "--ours-phase" in checked.output
    status = run_cli("status", rel)
    assert "Phase: conflicted (unresolved merge, line" in status.output
    assert "Status: conflicted" in status.output
    assert "detailed_review" not in status.output.split("Status:")[0]
    refused = run_cli("resolve", rel)
    assert refused.exit_code == 1
    assert f"discussions resolve --ours-phase {rel}" in refused.output
    done = run_cli("resolve", "--theirs-phase", rel)
    assert done.exit_code == 0, done.output
    text = path.read_text()
    assert not markers_present(text)
    for said in ("Ann before", "Bob before", "Ann after", "Bob after"):
        assert text.count(f"{said} the move.") == 1
    d = Discussion.load(path, Workspace.discover())
    assert d.phase == "detailed_review"  # theirs: branch a's
    assert run_cli("check", rel).exit_code == 0
    git(repo, "add", rel)
    assert run_cli("check", "--since", "HEAD").exit_code == 0  # every block of both parents
    git(repo, "commit", "-q", "--no-edit")
    assert run_cli("check", "--since", "HEAD~1").exit_code == 0


@pytest.mark.slow
def test_two_edits_of_one_line_keep_the_appends_outside_the_markers(repo: Path) -> None:
    path = start_discussion(repo)
    git(repo, "checkout", "-q", "-b", "a")
    path.write_text(path.read_text().replace("We want accounts.", "We want user accounts."))
    comment(path, "Ann", "Appended on a.")
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    path.write_text(path.read_text().replace("We want accounts.", "We want team accounts."))
    comment(path, "Bob", "Appended on main.")
    commit_all(repo, "main")
    merge = git(repo, "merge", "--no-edit", "a", check=False)
    assert merge.returncode != 0
    text = path.read_text()
    region = conflict_region(text)
    assert "user accounts" in region and "team accounts" in region
    assert "Appended" not in region
    assert text.count("Appended on a.") == 1 and text.count("Appended on main.") == 1
    refused = run_cli("resolve", str(path))
    assert (
        refused.exit_code == 1 and "Edit the lines between the conflict markers" in refused.output
    )


# --------------------------------------------------------------------------- 4. octopus


def octopus_whose_last_branch_conflicts(repo: Path) -> Path:
    """`git merge ann bob`: ann's comment merges on its own (main did not change the file),
    bob's clashes with it; git's octopus strategy runs no merge driver and, the clash being in
    the last branch, leaves the merge in progress with a line-merge conflict."""
    path = start_discussion(repo)
    for name in ("ann", "bob"):
        git(repo, "checkout", "-q", "-b", name, "main")
        comment(path, name.capitalize(), f"Point from {name}.")
        commit_all(repo, name)
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main moved on\n")
    commit_all(repo, "elsewhere")
    octopus = git(repo, "merge", "ann", "bob", "-m", "octopus", check=False)
    assert octopus.returncode != 0
    assert len((repo / ".git" / "MERGE_HEAD").read_text().split()) == 2  # in progress
    assert markers_present(path.read_text())
    return path


@pytest.mark.slow
def test_an_octopus_whose_last_branch_conflicts_is_resolved_as_the_readme_says(
    repo: Path,
) -> None:
    path = octopus_whose_last_branch_conflicts(repo)
    result = run_cli("resolve", str(path))
    assert result.exit_code == 0, result.output
    git(repo, "add", str(path))
    assert run_cli("check", "--since", "HEAD").exit_code == 0
    git(repo, "commit", "-q", "--no-edit")
    assert len(git(repo, "rev-parse", "HEAD^@").stdout.split()) == 3
    text = path.read_text()
    assert text.count("Point from ann.") == 1 and text.count("Point from bob.") == 1
    assert run_cli("check", "--since", "HEAD~1").exit_code == 0
    assert "octopus merge in progress" in page("git.md")


@pytest.mark.slow
def test_an_octopus_resolved_by_taking_ours_is_caught(repo: Path) -> None:
    path = octopus_whose_last_branch_conflicts(repo)
    git(repo, "checkout", "--ours", "--", str(path))
    git(repo, "add", str(path))
    result = run_cli("check", "--since", "HEAD")
    assert result.exit_code == 1 and "Point from bob." in result.output
    git(repo, "commit", "-q", "--no-verify", "--no-edit")
    result = run_cli("check", "--since", "HEAD~1")
    assert result.exit_code == 1 and "Point from bob." in result.output
    assert "Point from ann." not in result.output


# --------------------------------------------------------------------------- 5. forge merges


def forge_merge(repo: Path, into: str, branch: str) -> bool:
    """A merge as a forge's button makes it: on the server, where no merge driver is
    configured (`git merge-tree`, as forges use). True when it merged (`into` moved)."""
    saved = git(repo, "config", "--get", "merge.discussions.driver").stdout.strip()
    git(repo, "config", "--remove-section", "merge.discussions")
    try:
        tree = git(repo, "merge-tree", "--write-tree", into, branch, check=False)
    finally:
        git(repo, "config", "merge.discussions.driver", saved)
    if tree.returncode != 0:
        return False
    commit = git(
        repo, "commit-tree", tree.stdout.split()[0], "-p", into, "-p", branch, "-m", "button"
    ).stdout.strip()
    git(repo, "update-ref", f"refs/heads/{into}", commit)
    return True


@pytest.mark.slow
def test_a_forge_merge_button_after_the_documented_step(repo: Path) -> None:
    """Without the driver the button cannot merge a pull request whose discussion also got a
    comment on main; bringing main into the branch with the driver (docs/git.md's step) makes
    the button's merge trivial, and `check --since` over it passes."""
    path = start_discussion(repo)
    git(repo, "checkout", "-q", "-b", "pr")
    comment(path, "Ann", "From the pull request.")
    commit_all(repo, "pr")
    git(repo, "checkout", "-q", "main")
    comment(path, "Zed", "Meanwhile on main.")
    commit_all(repo, "main")
    before = git(repo, "rev-parse", "main").stdout.strip()
    git(repo, "checkout", "-q", "--detach")
    assert not forge_merge(repo, "main", "pr")  # the button reports a conflict
    git(repo, "checkout", "-q", "pr")
    git(repo, "merge", "-q", "--no-edit", "main")  # the documented step, with the driver
    assert run_cli("check", "--since", "main").exit_code == 0
    git(repo, "checkout", "-q", "--detach")
    assert forge_merge(repo, "main", "pr")
    git(repo, "checkout", "-q", "main")
    text = path.read_text()
    assert text.count("From the pull request.") == 1 and text.count("Meanwhile on main.") == 1
    assert run_cli("check", "--since", before).exit_code == 0
    readme = page("git.md")
    assert "git merge origin/main" in readme and "merge button" in readme


# --------------------------------------------------------------------------- 6. ADR numbers


def decided_discussion(title: str) -> Path:
    result = run_cli("new", title, "--context", f"Context of {title}.")
    assert result.exit_code == 0, result.output
    path = next(
        p for p in Path("discussions").glob("*.md") if title.lower() in p.read_text().lower()
    )
    for args in (("-a", "Rob", f"DECISION: {title} it is"),):
        assert run_cli("comment", str(path), *args).exit_code == 0
    assert run_cli("close", str(path), "--status", "DECIDED").exit_code == 0
    return path


@pytest.mark.slow
def test_adr_numbers_written_on_two_branches(repo: Path) -> None:
    """Two branches each run `discussions adr`; git merges the two 0001 files cleanly;
    `check` fails naming the command that renumbers one, which fixes it for good."""
    assert run_cli("init").exit_code == 0
    commit_all(repo, "init")
    for branch, title in (("a", "Use JWT"), ("b", "Use Postgres")):
        git(repo, "checkout", "-q", "-b", branch, "main")
        path = decided_discussion(title)
        assert run_cli("adr", str(path)).exit_code == 0
        commit_all(repo, f"adr {title}")
    git(repo, "checkout", "-q", "a")
    merge = git(repo, "merge", "--no-edit", "b", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    records = sorted(p.name for p in (repo / "docs" / "adr").iterdir())
    assert records == ["0001-use-jwt.md", "0001-use-postgres.md"]
    result = run_cli("check", "--since", "main")
    assert result.exit_code == 1
    fix = "discussions adr --renumber docs/adr/0001-use-postgres.md"
    assert "ADR number 1 is also docs/adr/0001-use-jwt.md's" in result.output
    assert fix in result.output
    done = run_cli(*fix.split()[1:])
    assert done.exit_code == 0, done.output
    assert (repo / "docs/adr/0002-use-postgres.md").read_text().startswith("# 2. Use Postgres")
    assert run_cli("check", "--since", "main").exit_code == 0
    commit_all(repo, "renumbered")
    path = decided_discussion("Use Redis")
    assert "0003-use-redis.md" in run_cli("adr", str(path)).output


# --------------------------------------------------------------------------- 7. applies, headings


@pytest.mark.slow
def test_two_branches_that_each_applied_pass_check_with_a_note(repo: Path) -> None:
    """Both branches applied the decision as apply 1 (the same branch name: it is made from
    the discussion and the number, and each clone saw no apply yet). The merge keeps both
    blocks; an append-only file cannot renumber them, so `check` passes, and says which
    blocks share the number (the words of docs/file-format.md)."""
    from discussions.syntax.apply import render_apply

    from ..support.apply import record

    path = start_discussion(repo)
    for branch, commit in (("a", "a1" * 20), ("main", "b2" * 20)):
        git(repo, "checkout", "-q", *(["-b", branch] if branch != "main" else [branch]))
        d = Discussion.load(path, Workspace.discover())
        d.add_block(render_apply(record(number=1, commit=commit)))
        d.save()
        commit_all(repo, f"applied on {branch}")
    merge = git(repo, "merge", "-q", "--no-edit", "a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert path.read_text().count("<!-- APPLY: 1 |") == 2
    result = run_cli("check", str(path))
    assert result.exit_code == 0, result.output
    assert "Note: " in result.output and "apply 1 is recorded 2 times (lines" in result.output
    assert run_cli("check", "--since", "main~1").exit_code == 0
    readme = " ".join(page("file-format.md").split())
    assert "notes (without failing) an apply number recorded twice" in readme


def test_the_fallbacks_never_run_a_program_from_the_work_tree(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git runs the driver from the work tree's root: with '.' on PATH, a repository's own
    `python3` or `grep` is not what the fallbacks run."""
    path = start_discussion(repo)
    pwned = tmp_path / "PWNED"
    for name in ("python3", "grep"):  # (./discussions is the discussions folder)
        script = repo / name
        script.write_text(f"#!/bin/sh\ntouch {pwned}\nexit 1\n")
        script.chmod(0o755)
    commit_all(repo, "planted")
    git(repo, "config", "merge.discussions.driver", driver_command("/nonexistent/python3"))
    two_commenting_branches(repo, path)
    monkeypatch.setenv("PATH", ".:" + fake_bin(tmp_path / "bin", {"python3": A_PYTHON}))
    merge = git(repo, "merge", "--no-edit", "a", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert not pwned.exists()


# --------------------------------------------------------------------------- review: no file left


@pytest.mark.slow
@pytest.mark.parametrize("result", ["emptied", "plain text", "deleted"])
def test_a_merge_that_drops_a_whole_discussion_is_caught(repo: Path, result: str) -> None:
    """The merge's file itself gone (deleted, emptied, or no longer a discussion): every
    block of every parent is still owed, also for a discussion created after REV (so the
    deleted-file check, which looks at REV, does not see it)."""
    git(repo, "commit", "-q", "--allow-empty", "-m", "before the discussion")
    git(repo, "tag", "before")
    path = start_discussion(repo)
    two_commenting_branches(repo, path)
    git(repo, "merge", "-q", "--no-commit", "a")
    if result == "deleted":
        git(repo, "rm", "-q", "-f", str(path))
    else:
        path.write_text("" if result == "emptied" else "Some notes, no longer a discussion.\n")
    during = run_cli("check", "--since", "HEAD")
    assert during.exit_code == 1, during.output
    git(repo, "commit", "-q", "-a", "--no-verify", "--no-edit")
    after = run_cli("check", "--since", "before")
    assert after.exit_code == 1, after.output
    assert "lost by the merge" in after.output and "Ann's point on a." in after.output


def test_check_since_fails_on_a_discussion_overwritten_with_plain_text(repo: Path) -> None:
    """A discussion replaced by text that is no discussion (the hook's `check --since HEAD`)
    removed what it held, as a deleted file did."""
    path = start_discussion(repo)
    for text in ("", "Just some notes.\n"):
        path.write_text(text)
        result = run_cli("check", "--since", "HEAD")
        assert result.exit_code == 1, result.output
        assert "removed" in result.output


@pytest.mark.slow
def test_a_repository_s_huge_conflict_marker_size_does_not_stall_the_driver(repo: Path) -> None:
    """``conflict-marker-size`` comes from the repository's ``.gitattributes``: the driver
    command builds its marker in a number of steps that grows with the size's digits, not
    with the size (a loop adding one ``<`` at a time ran for hours at two million)."""
    path = start_discussion(repo)
    attributes = repo / ".gitattributes"
    attributes.write_text(attributes.read_text() + "*.md conflict-marker-size=2000000\n")
    commit_all(repo, "markers")
    ours, theirs = two_commenting_branches(repo, path)
    merge = subprocess.Popen(
        ["git", "merge", "--no-edit", "a"], cwd=repo, start_new_session=True, text=True
    )
    try:
        assert merge.wait(timeout=300) == 0
    finally:
        if merge.poll() is None:
            os.killpg(merge.pid, signal.SIGKILL)
            merge.wait()
    text = path.read_text()
    assert text.count(ours) == 1 and text.count(theirs) == 1
