"""The council's memory (`model.council`): COUNCIL.md and COUNCIL.json, rebuilt from the
discussions or kept up to date incrementally (the same bytes either way), and its section in
every prompt, where older discussions fade while the files keep them all."""

from __future__ import annotations

import json
from pathlib import Path

from discussions.engine.prompt.prompts import build_prompt
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace

from ..conftest import code, out, result_of, run, write

_TEXT = """
<!-- DISCUSSION -->
<!-- Title: Plan {n} -->
<!-- Phase: consensus_vote -->
<!-- Status: OPEN -->
<!-- Created: 2026-11-0{n}T10:00:00Z -->
<!-- Template: feature -->
<!-- Participants: architect -->

# Plan {n}

---

Name: Ann

DECISION: Adopt plan {n}.
VOTE: READY

---

Name: Bo

CONCERN: Plan {n} costs more.
VOTE: CHANGES

---
"""


def _discussions(folder: Path, count: int) -> list[Path]:
    return [write(folder / f"plan-{n}.md", _TEXT.format(n=n)) for n in range(1, count + 1)]


def _files(folder: Path) -> tuple[bytes, bytes]:
    memory = folder / "memory"
    return (memory / "COUNCIL.json").read_bytes(), (memory / "COUNCIL.md").read_bytes()


def test_incremental_updates_equal_a_rebuild(isolated: Path) -> None:
    folder = isolated / "discussions"
    paths = _discussions(folder, 4)
    r = run("council-memory", "--write")
    assert code(r) == 0, out(r)
    assert json.loads(_files(folder)[0])["discussions"] == []  # nothing settled yet
    for p in paths[:3]:
        assert code(run("close", str(p), "--status", "DECIDED")) == 0
    assert code(run("comment", str(paths[1]), "VOTE: READY", "--author", "Cy")) == 0
    assert code(run("reopen", str(paths[0]))) == 0
    with paths[3].open("a", encoding="utf-8") as f:  # by hand, then the next --write
        f.write("\n<!-- STATUS-CHANGE: OPEN -> REJECTED -->\n")
    assert code(run("council-memory", "--write")) == 0
    incremental = _files(folder)
    data = json.loads(incremental[0])
    assert [e["file"] for e in data["discussions"]] == ["plan-4.md", "plan-3.md", "plan-2.md"]
    two = data["discussions"][2]
    assert two["tally"] == {"READY": 2, "CHANGES": 1}
    assert two["votes"] == {"Ann": "READY", "Bo": "CHANGES", "Cy": "READY"}
    assert two["decided"] == ["Adopt plan 2."]
    assert two["dissent"] == ["CHANGES from Bo", "1 unanswered concern (Bo)"]
    assert "## Plan 2 (DECIDED, 2026-11-02)" in incremental[1].decode()
    for name in ("COUNCIL.json", "COUNCIL.md"):
        (folder / "memory" / name).unlink()
    assert code(run("council-memory", "--rebuild")) == 0
    assert _files(folder) == incremental


def test_without_the_files_nothing_is_written(isolated: Path) -> None:
    folder = isolated / "discussions"
    paths = _discussions(folder, 1)
    assert code(run("close", str(paths[0]), "--status", "DECIDED")) == 0
    assert not (folder / "memory").exists()
    found = result_of(run("council-memory", "--json"))
    assert [e["title"] for e in found["discussions"]] == ["Plan 1"]
    assert found["written"] is None


def test_prompts_show_the_newest_while_the_files_keep_all(isolated: Path) -> None:
    write(isolated / "discussions.yaml", "memory:\n  council_discussions: 2\n")
    folder = isolated / "discussions"
    for p in _discussions(folder, 3):
        run("close", str(p), "--status", "DECIDED")
    assert code(run("council-memory", "--write")) == 0
    ws = Workspace.discover()
    d = Discussion.create("New", participants=["architect"], workspace=ws)
    d.save()
    prompt, _ = build_prompt(Discussion.load(d.path, ws), ws.participants.get("architect"))
    section = prompt[prompt.index("## How this council decided before") :]
    assert "- Plan 3 (DECIDED, 2026-11-03)" in section and "- Plan 2 (DECIDED" in section
    assert "Plan 1" not in section
    assert "  - Votes: READY 1, CHANGES 1 (Ann READY, Bo CHANGES)" in section
    assert "[... 1 older discussion left out]" in section
    kept = json.loads(_files(folder)[0])["discussions"]
    assert [e["title"] for e in kept] == ["Plan 3", "Plan 2", "Plan 1"]
    r = run("council-memory")
    assert "Prompts show the newest 2; 1 older fade from them." in out(r)


def test_a_turn_keeps_the_files_up_to_date(isolated: Path) -> None:
    folder = isolated / "discussions"
    assert code(run("council-memory", "--write")) == 0
    path = _discussions(folder, 1)[0]
    text = path.read_text(encoding="utf-8").replace("Status: OPEN", "Status: DECIDED")
    path.write_text(text, encoding="utf-8")
    assert json.loads(_files(folder)[0])["discussions"] == []
    r = run("turn", str(path), "@architect")
    assert code(r) == 0, out(r)
    assert [e["file"] for e in json.loads(_files(folder)[0])["discussions"]] == ["plan-1.md"]
