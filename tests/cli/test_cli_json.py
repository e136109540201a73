"""The commands that change a discussion print JSON with --json; list has a header row."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import code, out, run


def test_comment_advance_close_and_reopen_print_json(isolated: Path) -> None:
    run("new", "Feature X")
    r = run(
        "comment",
        "feature-x.md",
        "Ship it, @architec.",
        "--vote",
        "ready",
        "--author",
        "Rob",
        "--json",
    )
    assert code(r) == 0
    data = json.loads(out(r))
    assert data["file"] == "discussions/feature-x.md" and data["author"] == "Rob"
    assert data["vote"] == "READY" and data["motions"] == [] and data["notices"] == []
    assert data["unknown_mentions"] == [{"alias": "architec", "did_you_mean": "architect"}]
    assert json.loads(out(run("advance", "feature-x.md", "--json"))) == {
        "file": "discussions/feature-x.md",
        "phase": "detailed_review",
        "notices": [],
    }
    assert json.loads(out(run("close", "feature-x.md", "--status", "decided", "--json"))) == {
        "file": "discussions/feature-x.md",
        "status": "DECIDED",
        "notices": [],
    }
    assert json.loads(out(run("reopen", "feature-x.md", "--json")))["status"] == "OPEN"


def test_status_v_is_verbose_and_comment_vote_has_no_short_form(isolated: Path) -> None:
    run("new", "Feature X")
    run("comment", "feature-x.md", "TODO: write it", "--author", "Rob")
    assert "All comments:" in out(run("status", "feature-x.md", "-v"))
    r = run("comment", "feature-x.md", "-v", "READY")
    assert code(r) == 2 and "No such option '-v'" in out(r)


def test_list_prints_a_header_row(isolated: Path) -> None:
    run("new", "Feature X")
    lines = out(run("list")).splitlines()
    assert lines[0].split() == ["STATUS", "PHASE", "COMMENTS", "FILE", "TITLE"]
    assert lines[1].split()[:4] == ["OPEN", "initial_feedback", "0", "discussions/feature-x.md"]
    # the columns line up under their headings
    assert lines[1].index("discussions/") == lines[0].index("FILE")


def test_json_spreads_two_levels_and_keeps_deeper_values_on_one_line(isolated: Path) -> None:
    run("new", "Feature X")
    for n in range(3):
        run("comment", "feature-x.md", f"Point {n}, @architect.", "--author", "Rob")
    text = out(run("status", "feature-x.md", "--json"))
    data = json.loads(text)
    lines = text.splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert '  "phase": "initial_feedback",' in lines and '  "comments": [' in lines
    # One comment a line, written as json writes it without indent (", " and ": ").
    rows = [line.strip().rstrip(",") for line in lines if line.startswith('    {"author"')]
    assert [json.loads(r) for r in rows] == data["comments"] and len(rows) == 3
    assert all('"author": "Rob", "line": ' in r for r in rows)
    import gc

    assert gc.isenabled()  # status pauses the collector while it works, and resumes it


def test_every_json_names_the_file_the_same_way(isolated: Path, tmp_path: Path) -> None:
    """One rule: relative to the current folder when under it (as the messages say), else
    absolute."""
    shown = "discussions/feature-x.md"
    assert json.loads(out(run("new", "Feature X", "--json")))["file"] == shown
    assert json.loads(out(run("status", "feature-x.md", "--json")))["file"] == shown
    turned = run("turn", "feature-x.md", "@architect", "-p", "mock", "--json")
    assert json.loads(turned.stdout)["file"] == shown  # type: ignore[attr-defined]
    assert json.loads(out(run("comment", "feature-x.md", "Hi", "-a", "Rob", "--json")))["file"] == (
        shown
    )
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    other = outside / "away.md"
    other.write_bytes((isolated / shown).read_bytes())
    assert json.loads(out(run("status", str(other), "--json")))["file"] == str(other)
