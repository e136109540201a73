"""The one check (`checking.check_files`) that `discussions check`, hooks and servers share."""

from __future__ import annotations

import subprocess
from pathlib import Path

from discussions.ops.check import check_files
from discussions.settings.workspace import Workspace

from ..conftest import code, run


def _git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True)


def test_a_clean_file_has_no_problems(isolated: Path) -> None:
    assert code(run("new", "Clean")) == 0
    report = check_files(Workspace.discover(), ["clean.md"])
    assert report.problems == [] and report.checked == 1
    assert report.found == [isolated / "discussions" / "clean.md"]


def test_problems_carry_file_line_and_message(isolated: Path) -> None:
    assert code(run("new", "Typed")) == 0
    path = isolated / "discussions" / "typed.md"
    with path.open("a", encoding="utf-8") as f:
        f.write("\nName: Rob\n\nhi\n\nName: Ines\n\nVOTE: REJECT\n")
    (isolated / "discussions" / "README.md").write_text("# Notes\n", encoding="utf-8")
    report = check_files(Workspace.discover(), ["typed.md", "README.md", "nope.md"])
    by_file = {p.file: p for p in report.problems}
    assert "no `---` line before it" in by_file["typed.md"].message
    assert by_file["typed.md"].line > 0
    assert "not a discussion" in by_file["README.md"].message
    assert "no such discussion file" in by_file["nope.md"].message
    assert report.checked == 3


def test_since_a_revision_reports_rewrites_and_deletions(isolated: Path) -> None:
    _git("init", "-q")
    _git("config", "user.email", "t@example.com")
    _git("config", "user.name", "T")
    assert code(run("new", "Kept")) == 0
    assert code(run("new", "Gone")) == 0
    assert code(run("comment", "kept.md", "first words", "--author", "Rob")) == 0
    _git("add", "-A")
    _git("commit", "-qm", "base")
    kept = isolated / "discussions" / "kept.md"
    kept.write_text(kept.read_text(encoding="utf-8").replace("first", "other"), encoding="utf-8")
    _git("rm", "-q", "discussions/gone.md")
    report = check_files(Workspace.discover(), [], "HEAD")
    files = {p.file for p in report.problems}
    assert files == {"discussions/kept.md", "discussions/gone.md"}, report.problems


def test_text_held_in_memory_is_checked_as_the_saved_file_with_severities_and_columns(
    isolated: Path,
) -> None:
    from discussions.ops.check import check_text

    assert code(run("new", "Typed", "--participants", "security")) == 0
    path = isolated / "discussions" / "typed.md"
    saved = path.read_text(encoding="utf-8")
    buffer = saved + (
        "\nName: Rob\n\nhi @Securty, what now?\n\nVOTE: MAYBE\n\n"
        "<<<<<<< HEAD\n\nName: Ines\n\nfine\n"
    )
    ws = Workspace.discover()
    in_memory = check_text(ws, path, buffer, name="typed.md")
    assert path.read_text(encoding="utf-8") == saved  # nothing written
    path.write_text(buffer, encoding="utf-8")
    assert in_memory == check_files(ws, ["typed.md"]).problems
    by_code = {p.code: p for p in in_memory}
    lines = buffer.split("\n")
    typo = by_code["mention-typo"]
    assert (typo.severity, typo.fix) == ("warning", "@security")
    assert lines[typo.line - 1][typo.column - 1 : typo.end_column - 1] == "@Securty"
    assert by_code["missing-separator"].severity == "error"
    assert by_code["merge-conflict"].severity == "error"
    vote = next(p for p in in_memory if "invalid vote" in p.message)
    assert vote.severity == "warning"
    assert lines[vote.line - 1][vote.column - 1 : vote.end_column - 1] == "MAYBE"
    assert vote.to_dict()["column"] == vote.column
