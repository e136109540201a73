"""`discussions check` without a file checks every discussion in the discussions folder."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import code, out, run


def test_check_without_a_file_checks_every_discussion(isolated: Path) -> None:
    assert code(run("new", "Clean one")) == 0
    assert code(run("new", "Typo one", "--participants", "security")) == 0
    with (isolated / "discussions" / "typo-one.md").open("a", encoding="utf-8") as f:
        f.write("\nName: Rob\n\nVOTE: MAYBE\n")
    (isolated / "discussions" / "notes.md").write_text("# Not a discussion\n")
    r = run("check", "--json")
    assert code(r) == 1
    problems = json.loads(out(r))
    assert {p["file"] for p in problems} == {"discussions/typo-one.md"}
    assert code(run("check", "discussions/clean-one.md")) == 0


def test_check_without_a_file_and_no_discussions_says_so(isolated: Path) -> None:
    r = run("check")
    assert code(r) == 0
    assert "No discussions" in out(r)
