"""EVIDENCE blocks in git: two branches that each fulfilled a request both write evidence 1;
merged through the merge driver both are kept, `check` passes, a ``same`` block refers to the
nearest block above it with its number, and the engine numbers after the largest number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions.engine.evidence.fulfil import fulfil_pending
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace
from discussions.syntax import clock
from discussions.syntax.render import render_comment

from ..conftest import signed
from ..support.git import (
    commit_all,
    git,
    markers_present,
    run_cli,
    start_discussion,
)


@pytest.fixture(autouse=True)
def one_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every block written at one known time, so the merge's order (by time, then by a
    digest of the bytes) is the same however long the test takes: the order decides which
    block numbered 1 is the last, and so what a later ``same`` refers to."""
    monkeypatch.setattr(clock, "now_stamp", lambda: "2026-11-24T10:00:00Z")


def ask(path: Path, author: str, request: str) -> Discussion:
    d = Discussion.load(path, Workspace.discover())
    body = f"Let me look.\n\nEVIDENCE: {request}"
    at = "2026-11-24T10:00:00Z"
    ai = author.startswith("AI-")  # a participant's comment is the engine's, signed
    block = signed(author, body, at=at) if ai else render_comment(author, body, meta=f"at: {at}")
    d.add_block(block)
    d.save()
    fulfil_pending(d)
    return d


def merged(repo: Path) -> Path:
    """Branch b asks for src/b.py, main for src/a.py: each writes evidence 1; b merged."""
    (repo / "src").mkdir()
    (repo / "src" / "a.py").write_text("A = 1\n")
    (repo / "src" / "b.py").write_text("B = 2\n")
    path = start_discussion(repo)
    git(repo, "checkout", "-q", "-b", "b")
    ask(path, "Bea", "read src/b.py")
    commit_all(repo, "b read")
    git(repo, "checkout", "-q", "main")
    ask(path, "Ann", "read src/a.py")
    commit_all(repo, "a read")
    merge = git(repo, "merge", "-q", "--no-edit", "b", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert not markers_present(path.read_text("utf-8"))
    return path


def test_merged_duplicate_numbers_pass_check_and_show_in_status(repo: Path) -> None:
    path = merged(repo)
    d = Discussion.load(path, Workspace.discover())
    assert sorted((e.number, e.request) for e in d.evidence) == [
        (1, "read src/a.py"),
        (1, "read src/b.py"),
    ]
    result = run_cli("check", str(path))
    assert result.exit_code == 0 and "no problems" in result.output, result.output
    shown = json.loads(run_cli("status", "--json", str(path)).output)["evidence"]
    assert sorted((e["number"], e["request"], e["status"]) for e in shown) == [
        (1, "read src/a.py", "fulfilled"),
        (1, "read src/b.py", "fulfilled"),
    ]


def test_after_the_merge_same_refers_to_the_block_it_repeats(repo: Path) -> None:
    path = merged(repo)
    ask(path, "Cy", "read src/a.py")
    d = ask(path, "Cy", "read src/b.py")
    new = d.evidence[2:]
    assert [e.number for e in new] == [2, 3]  # after the largest number, not the last block's
    by_line = {e.line: e for e in d.evidence}
    for e in new:
        if e.status == "same":
            target = by_line[e.see_line]
            assert (target.number, target.request, target.ref) == (e.see, e.request, e.ref)
            # the nearest block above with that number
            above = [x for x in d.evidence if x.number == e.see and x.line < e.line]
            assert above[-1] is target
        else:
            assert e.status == "fulfilled" and e.content
    assert run_cli("check", str(path)).exit_code == 0


def test_a_new_block_is_numbered_after_the_largest_number(repo: Path) -> None:
    """main writes evidence 1 and 2, b writes 1; merged, b's 1 is the last block: the next
    block is 3."""
    (repo / "src").mkdir()
    for name in ("a", "b", "c", "d"):
        (repo / "src" / f"{name}.py").write_text(f"{name.upper()} = 1\n")
    path = start_discussion(repo)
    git(repo, "checkout", "-q", "-b", "b")
    ask(path, "Bea", "read src/b.py")
    commit_all(repo, "b read")
    git(repo, "checkout", "-q", "main")
    ask(path, "Ann", "read src/a.py")
    ask(path, "Ann", "read src/c.py")
    commit_all(repo, "a read")
    git(repo, "merge", "-q", "--no-edit", "b")
    before = [e.number for e in Discussion.load(path, Workspace.discover()).evidence]
    d = ask(path, "Cy", "read src/d.py")
    assert before == [1, 2, 1]
    assert [e.number for e in d.evidence] == [1, 2, 1, 3]
    assert run_cli("check", str(path)).exit_code == 0


def test_the_prompt_and_the_views_tell_two_blocks_numbered_1_apart(repo: Path) -> None:
    from discussions.engine.prompt.prompts import build_prompt
    from discussions.views.evidence import evidence_markdown

    path = merged(repo)
    d = ask(path, "AI-Architect", "read src/b.py")
    first, second, same = d.evidence
    assert (same.number, same.status, same.see, same.see_line) == (2, "same", 1, second.line)
    prompt, _ = build_prompt(d, d.workspace.participants.get("architect"))
    for e in (first, second):
        assert f'<evidence number="1" line="{e.line}" request="{e.request}"' in prompt
    assert f"read src/b.py, same as evidence 1 (line {second.line})" in prompt
    assert f"as evidence 1 (line {second.line})" in evidence_markdown(d)
    status = json.loads(run_cli("status", "--json", str(path)).output)["evidence"]
    assert status[2]["see_line"] == second.line
