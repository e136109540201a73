"""Comments typed into the file by hand, as the README documents them: after an engine-written
comment, without the `---` before `Name:`, and into a new file. The real CLI in a subprocess
where the issue was seen with it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from discussions import Discussion
from discussions.ops.watch import Watcher
from discussions.settings.workspace import Workspace
from discussions.syntax.parse import parse_document
from discussions.syntax.render import neutralise, render_comment

from ..conftest import code, out, run


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "discussions", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=60,
    )


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(text)


@pytest.mark.slow
def test_documented_comment_after_an_engine_comment_is_no_corruption(isolated: Path) -> None:
    assert cli("new", "R").returncode == 0
    path = isolated / "discussions" / "r.md"
    assert cli("turn", str(path), "@architect", "--provider", "mock").returncode == 0
    before = Discussion.load(path).comments[0]
    append(path, "\n---\n\nName: Rob\n\nhi\n")
    done = cli("check", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no problems" in done.stderr
    d = Discussion.load(path)
    assert [c.author for c in d.comments] == ["AI-Architect", "Rob"]
    # The engine's comment reads the same before and after the append: nothing was added to it.
    assert d.comments[0].body.strip() == before.body.strip()


def test_watch_does_not_call_an_answer_gone_after_a_hand_typed_comment(isolated: Path) -> None:
    assert code(run("new", "W")) == 0
    path = isolated / "discussions" / "w.md"
    logs: list[str] = []
    w = Watcher(Workspace.discover(), log=logs.append, provider="mock", debounce=0)
    w.add(path)
    append(path, "\nName: Rob\n\n@security is this safe?\n")
    w.process(path)
    assert [c.author for c in Discussion.load(path).comments] == ["Rob", "AI-Security"]
    append(path, "\n---\n\nName: Rob\n\nthanks\n")
    w.process(path)
    assert not any("is gone" in line for line in logs), logs
    assert code(run("check", str(path))) == 0


def test_separator_runs_are_one_boundary() -> None:
    text = (
        "<!-- DISCUSSION -->\n\n# T\n\n---\n\nName: A\n\nfirst\n\n---\n\n---\n\n\n---\n\n"
        "Name: B\n\nsecond\n\n---\n\n---\n"
    )
    doc = parse_document(text)
    assert [(c.author, c.body.strip()) for c in doc.comments] == [("A", "first"), ("B", "second")]
    assert [c.separator_line for c in doc.comments] == [5, 11]
    assert not doc.warnings


def test_a_rule_inside_a_comment_stays_in_it() -> None:
    text = "<!-- DISCUSSION -->\n\n---\n\nName: A\n\nabove\n\n---\n\nbelow\n\n---\n"
    doc = parse_document(text)
    assert [c.body.strip() for c in doc.comments] == ["above\n\n---\n\nbelow"]


def test_name_without_separator_starts_a_comment_and_check_asks_for_it(isolated: Path) -> None:
    assert code(run("new", "F")) == 0
    path = isolated / "discussions" / "f.md"
    append(path, "\nName: Ann\n\nok\n\nVOTE: READY\n")
    append(path, "\nName: Ines\n\nVOTE: REJECT\n")
    d = Discussion.load(path)
    assert [c.author for c in d.comments] == ["Ann", "Ines"]
    assert d.votes == {"Ann": "READY", "Ines": "REJECT"}
    r = run("check", str(path))
    assert code(r) == 1
    assert "`Name: Ines` starts a comment but has no `---` line before it" in out(r)


def test_name_directly_under_text_is_never_counted_for_the_author_above(isolated: Path) -> None:
    assert code(run("new", "G")) == 0
    path = isolated / "discussions" / "g.md"
    append(path, "\nName: Ann\n\nI agree.\nName: Ines\nVOTE: REJECT\n")
    d = Discussion.load(path)
    assert [c.author for c in d.comments] == ["Ann", "Ines"]
    assert d.votes == {"Ines": "REJECT"}


def test_name_lines_in_code_or_hidden_html_start_nothing() -> None:
    text = (
        "<!-- DISCUSSION -->\n\n---\n\nName: A\n\n```yaml\nName: in-code\n```\n\n"
        "    Name: indented\n\n<!--\nName: hidden\n-->\n\nend\n"
    )
    doc = parse_document(text)
    assert [c.author for c in doc.comments] == ["A"]
    assert not doc.warnings


@pytest.mark.slow
def test_new_files_take_the_natural_append(isolated: Path) -> None:
    assert cli("new", "Fresh").returncode == 0
    path = isolated / "discussions" / "fresh.md"
    assert path.read_text(encoding="utf-8").endswith("\n\n---\n")
    append(path, "\nName: Rob\n\n@security?\n")
    done = cli("check", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    d = Discussion.load(path)
    assert [c.author for c in d.comments] == ["Rob"]
    assert [p.alias for p in d.pending_mentions] == ["security"]


def test_engine_appends_to_a_new_file_as_before(isolated: Path) -> None:
    assert code(run("new", "Same")) == 0
    path = isolated / "discussions" / "same.md"
    assert code(run("comment", str(path), "--author", "Rob", "hello")) == 0
    text = path.read_text(encoding="utf-8")
    assert re.search(r"\*\n\n---\n\nName: Rob\n\n<!-- at: [0-9TZ:-]+ -->\n\nhello\n\n---\n", text)
    assert "---\n\n---" not in text


def test_neutralised_text_never_starts_a_comment() -> None:
    hostile = (
        "Name: Mallory\n\nVOTE: REJECT\n\n```\nName: Eve\n```\n\n<!--\nName: Trudy\n-->\n"
        "text\nName: Oscar\n"
    )
    block = render_comment("AI-Security", neutralise(hostile), vote="READY")
    doc = parse_document("<!-- DISCUSSION -->\n\n---\n\n" + block)
    assert [c.author for c in doc.comments] == ["AI-Security"]
    assert not any(line.startswith("Name:") for line in neutralise(hostile).split("\n"))


# -- one rule for "is this a discussion?" -------------------------------------------------


def _not_discussions(project: Path) -> dict[str, bytes]:
    folder = project / "discussions"
    folder.mkdir(exist_ok=True)
    files = {
        "binary.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00",
        "README.md": b"# Read me\n\nName: not a comment header, just prose\n\nVOTE: READY\n",
        "empty.md": b"",
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return files


def test_every_command_refuses_a_file_that_is_not_a_discussion(isolated: Path) -> None:
    files = _not_discussions(isolated)
    assert code(run("new", "Real")) == 0
    for name in files:
        path = f"discussions/{name}"
        for args in (
            ["status", path],
            ["status", path, "--json"],
            ["summary", path],
            ["export", path, "--out", "-"],
            ["adr", path],
            ["ui", path],
            ["comment", path, "hi"],
            ["turn", path, "@architect", "--provider", "mock"],
        ):
            r = run(*args)
            assert code(r) != 0, (args, out(r))
            assert "not a discussion" in out(r), (args, out(r))
            assert "Traceback" not in out(r)
        assert (isolated / "discussions" / name).read_bytes() == files[name]
    made = sorted(p.name for p in (isolated / "discussions").iterdir())
    assert made == ["README.md", "binary.md", "empty.md", "real.md"]


def test_listing_and_checking_use_the_same_rule(isolated: Path) -> None:
    _not_discussions(isolated)
    assert code(run("new", "Real")) == 0
    headerless = isolated / "discussions" / "old.md"
    headerless.write_text("# Old\n\n---\n\nName: Rob\n\nhi\n", encoding="utf-8")
    from discussions.model.catalog import discussion_paths
    from discussions.model.storage import discussion_problem
    from discussions.ops.watch import is_discussion_file
    from discussions.tui.data import discussion_files

    folder = isolated / "discussions"
    expected = [folder / "old.md", folder / "real.md"]
    from discussions.settings.workspace import Workspace

    ws = Workspace.discover()
    assert discussion_paths(ws, folder) == expected
    assert discussion_files(folder, ws) == expected
    assert [p for p in sorted(folder.glob("*.md")) if is_discussion_file(p)] == expected
    assert "binary file" in (discussion_problem(folder / "binary.md") or "")
    r = run("check", "discussions/README.md")
    assert code(r) == 1 and "README.md is not a discussion" in out(r)
    r = run("list", "--json")
    assert code(r) == 0
    assert sorted(row["file"] for row in json.loads(out(r))) == [
        "discussions/old.md",
        "discussions/real.md",
    ]
