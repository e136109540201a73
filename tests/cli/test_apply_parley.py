"""`discussions apply --parley`: after the lead (tests/scripts/lead.py, which changes app.py,
adds notes/new.txt and deletes old.txt) has finished, a person at a real pseudo-terminal
accepts or rejects each file; only the accepted ones are committed, the APPLY block records
both lists, `status` and `check` read them back. Real git throughout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions.syntax.apply import ApplyRecord, contradictions, parse_apply, render_apply
from discussions.syntax.document import ENGINE_LINE
from discussions.syntax.evidence import fenced_content

from ..support.apply import invoke, record
from ..support.dialogue import converse
from ..support.git import git_out as git

BRANCH = "discussions/apply/retry-1"


@pytest.fixture
def project(apply_project: Path) -> Path:
    return apply_project


def _applies(root: Path) -> list[dict[str, object]]:
    r = invoke("status", "discussions/retry.md", "--json")
    return json.loads(r.output[r.output.index("{") :])["applies"]  # type: ignore[no-any-return]


def test_only_the_files_accepted_are_committed_and_both_lists_recorded(project: Path) -> None:
    talk = converse(
        ["apply", "discussions/retry.md", "--parley", "--yes"],
        [
            ("Accept app.py?", "y\r"),
            ("Accept notes/new.txt?", "n\r"),
            ("Accept old.txt?", "n\r"),
        ],
        cwd=project,
    )
    assert talk.code == 0 and not talk.unanswered, talk.output
    assert "[1/3] app.py" in talk.output and "+    return 3" in talk.output  # the diff shown
    changed = git(project, "diff", "--name-status", "main", BRANCH).split("\n")
    assert [line.split("\t") for line in changed if line] == [["M", "app.py"]]
    [applied] = _applies(project)
    assert applied["result"] == "committed" and applied["parley"] is True
    assert applied["accepted"] == ["app.py"]
    assert applied["rejected"] == ["notes/new.txt", "old.txt"]
    text = (project / "discussions" / "retry.md").read_text()
    assert "| accepted: app.py | rejected: notes/new.txt, old.txt |" in text
    assert "parley: 1 accepted, 2 rejected (notes/new.txt, old.txt)" in text
    shown = invoke("status", "discussions/retry.md")
    assert "parley: 1 accepted, 2 rejected" in shown.output
    assert invoke("check", "discussions/retry.md").exit_code == 0


def test_rejecting_every_file_commits_nothing(project: Path) -> None:
    answers = [(f"Accept {p}?", "n\r") for p in ("app.py", "notes/new.txt", "old.txt")]
    talk = converse(["apply", "discussions/retry.md", "--parley", "--yes"], answers, cwd=project)
    assert talk.code == 0 and not talk.unanswered, talk.output
    [applied] = _applies(project)
    assert applied["result"] == "unchanged" and applied["accepted"] == []
    assert len(applied["rejected"]) == 3  # type: ignore[arg-type]
    assert BRANCH not in git(project, "branch", "--list")


def test_parley_is_refused_without_a_terminal(project: Path) -> None:
    before = (project / "discussions" / "retry.md").read_bytes()
    r = invoke("apply", "discussions/retry.md", "--parley", "--yes")
    assert r.exit_code == 1 and "--parley asks you about each changed file" in r.output
    assert "Nothing was run" in r.output
    assert (project / "discussions" / "retry.md").read_bytes() == before
    assert "discussions/apply" not in git(project, "branch", "--list")


def _read_back(block: str) -> ApplyRecord:
    lines = block.split("\n")
    m = ENGINE_LINE.match(lines[0])
    assert m is not None and m.group(1) == "APPLY", lines[0]
    return parse_apply(m.group(2), fenced_content(lines, 1))


def test_the_lists_read_back_as_written_and_contradictions_are_named() -> None:
    odd = "a, b|c-->\nd.py"
    rec = record(parley=True, files=((odd, 1, 0),), accepted=(odd,), rejected=("x%y.txt", "z"))
    back = _read_back(render_apply(rec))
    assert (back.parley, back.accepted, back.rejected) == (True, (odd,), ("x%y.txt", "z"))
    assert contradictions(back) == []
    assert contradictions(record(parley=True, accepted=("other.py",))) == [
        "says a person accepted other files than those it committed"
    ]
    plain = render_apply(record())
    assert "accepted:" not in plain and not _read_back(plain).parley


def test_the_diff_is_coloured_on_a_terminal_not_shown_as_escapes(project: Path) -> None:
    answers = [(f"Accept {p}?", "n\r") for p in ("app.py", "notes/new.txt", "old.txt")]
    talk = converse(
        ["apply", "discussions/retry.md", "--parley", "--yes"],
        answers,
        cwd=project,
        env={"NO_COLOR": ""},
    )
    assert talk.code == 0 and not talk.unanswered, talk.output
    assert "\\x1b" not in talk.output  # our own colours, not escaped as the lead's text is
    assert "\x1b[32m+    return 3" in talk.output and "[1/3] app.py" in talk.output
