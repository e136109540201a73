"""The decision ledger (`discussions decisions`), the chronicle and the project memory in prompts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.engine.prompt.council import COUNCIL_HEADING, DEFAULT_COUNCIL_CHARS
from discussions.engine.prompt.prompts import MEMORY_HEADING, build_memory, build_prompt
from discussions.model import ledger
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace

from ..conftest import FIXTURES, write
from ..support.documents import discussion


def run(*args: str):  # type: ignore[no-untyped-def]
    from discussions.cli import cli

    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def folder(isolated: Path) -> Path:
    d = isolated / "discussions"
    d.mkdir()
    return d


def test_collect_lists_every_decision_sorted_by_date_file_line(folder: Path) -> None:
    discussion(
        folder,
        "b-auth.md",
        "Auth",
        created="2026-11-02T09:00:00Z",
        changed_to="DECIDED",
        comments=(
            ("Rob", "Fine.\n\nDECISION: Use JWT with 1h expiry"),
            ("AI-Architect", "- **DECISION:** keys rotate weekly\n\nVOTE: READY"),
        ),
    )
    discussion(
        folder,
        "a-cache.md",
        "Cache",
        created="2026-11-03T09:00:00Z",
        comments=(("Zoë", "DECISION: no cache for now"),),
    )
    discussion(
        folder,
        "c-old.md",
        "Old",
        created="2026-10-30T09:00:00Z",
        changed_to="CLOSED",
        comments=(("Rob", "DECISION: keep REST"),),
    )
    entries = ledger.collect(Workspace.discover())
    assert [(e.file.name, e.text) for e in entries] == [
        ("c-old.md", "keep REST"),
        ("b-auth.md", "Use JWT with 1h expiry"),
        ("b-auth.md", "keys rotate weekly"),
        ("a-cache.md", "no cache for now"),
    ]
    jwt = entries[1]
    assert jwt.author == "Rob" and jwt.title == "Auth" and jwt.status == "DECIDED"
    assert jwt.date == "2026-11-02T09:00:00Z" and jwt.settled
    assert (folder / "b-auth.md").read_text().split("\n")[jwt.line - 1].endswith("1h expiry")
    assert not entries[3].settled  # an open discussion settles nothing
    assert [e.text for e in ledger.collect(Workspace.discover(), status="decided")] == [
        "Use JWT with 1h expiry",
        "keys rotate weekly",
    ]


def test_a_decision_in_code_or_quoted_is_not_one(folder: Path) -> None:
    discussion(
        folder,
        "d.md",
        "Code",
        comments=(
            ("Rob", "Example:\n\n```markdown\nDECISION: an example\n```\n\n`DECISION: inline`"),
            ("Ann", "    DECISION: indented code\n\nDECISION: the real one"),
        ),
    )
    assert [e.text for e in ledger.collect(Workspace.discover())] == ["the real one"]


def test_the_preamble_holds_no_decisions(folder: Path) -> None:
    path = folder / "p.md"
    path.write_text(
        "<!-- DISCUSSION -->\n<!-- Title: P -->\n\n# P\n\nDECISION: written in the intro\n\n"
        "---\n\nName: Rob\n\nHi.\n\n---\n"
    )
    assert ledger.collect(Workspace.discover()) == []
    assert Discussion.load(path).decisions == []  # the same as the model says


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.glob("*.md")))
def test_ledger_agrees_with_the_model_on_every_fixture(folder: Path, fixture: str) -> None:
    text = (FIXTURES / fixture).read_text(encoding="utf-8")
    text = text.replace("Hi.", "Hi.\n\nDECISION: added by the test", 1)
    path = folder / fixture
    path.write_text(text, encoding="utf-8")
    d = Discussion.load(path)
    entries = ledger.collect(Workspace.discover())
    assert [(e.text, e.author, e.line) for e in entries] == [
        (i.text, i.author, i.line) for i in d.decisions
    ]
    for e in entries:
        assert (e.title, e.status) == (d.title, d.status)


def test_skips_summaries_chronicle_and_non_discussions_noting_what_matters(
    folder: Path,
) -> None:
    discussion(folder, "real.md", "Real", comments=(("Rob", "DECISION: counted"),))
    (folder / "real.sum.md").write_text("# Summary\n\n- DECISION: from a summary\n")
    (folder / "CHRONICLE.md").write_text("# Chronicle\n\nDECISION: from the chronicle\n")
    (folder / "README.md").write_text("# Notes\n\nNothing decided here.\n")
    (folder / "notes.md").write_text("# Notes\n\nDECISION: a note, not a discussion\n")
    (folder / "loop.md").symlink_to(folder / "loop.md")  # unreadable: a link to itself
    (folder / "sub.md").mkdir()  # a folder named like a file
    found = ledger.scan(Workspace.discover())
    assert [e.text for e in found.entries] == ["counted"]
    assert found.files == 1
    reasons = {s.file.name: s.reason for s in found.skipped}
    assert set(reasons) == {"loop.md", "notes.md"}
    assert reasons["notes.md"].startswith("not a discussion")
    assert reasons["loop.md"].startswith("cannot read")

    r = CliRunner().invoke(_cli(), ["decisions"])
    assert r.exit_code == 0
    assert "Skipped discussions/notes.md: not a discussion" in r.stderr
    assert "Skipped discussions/loop.md: cannot read" in r.stderr
    assert "counted" in r.stdout and "note" not in r.stdout


def _cli():  # type: ignore[no-untyped-def]
    from discussions.cli import cli

    return cli


def test_decisions_command_text_json_and_empty(folder: Path) -> None:
    r = run("decisions")
    assert r.exit_code == 0
    assert r.output == (
        "No decisions in discussions. Record one with a `DECISION:` line in a comment.\n"
    )
    discussion(
        folder,
        "auth.md",
        "Add auth",
        changed_to="DECIDED",
        comments=(("Rob", "DECISION: Use JWT"),),
    )
    discussion(folder, "undated.md", "Undated", created=None, comments=(("Ann", "DECISION: x"),))
    r = run("decisions")
    assert r.exit_code == 0
    assert r.output.splitlines() == [
        "----------  OPEN     discussions/undated.md:15  x  (Ann; Undated)",
        "2026-11-01  DECIDED  discussions/auth.md:16  Use JWT  (Rob; Add auth)",
    ]
    data = json.loads(run("decisions", "--json", "--status", "Decided").output)
    assert data == [
        {
            "text": "Use JWT",
            "author": "Rob",
            "file": "discussions/auth.md",
            "line": 16,
            "title": "Add auth",
            "status": "DECIDED",
            "date": "2026-11-01T10:00:00Z",
            "settled": True,
            "implemented_by": [],
            "written": "",
            "dissent": {"votes": [], "concerns": [], "reservations": []},  # nobody dissented
        }
    ]
    assert run("decisions", "--status", "closed").output == (
        "No decisions in discussions with status CLOSED.\n"
    )
    r = run("decisions", "--status", "BOGUS")
    assert r.exit_code == 1 and "unknown status 'BOGUS'" in r.output and "DECIDED" in r.output
    r = run("decisions", "--status", "BOGUS", "--json")
    assert r.exit_code == 1 and "unknown status" in json.loads(r.output)["error"]


def test_decisions_in_another_folder_and_a_missing_one(isolated: Path) -> None:
    discussion(isolated / "docs" / "d", "x.md", "X", comments=(("Rob", "DECISION: here"),))
    r = run("decisions", "--dir", "docs/d")
    assert r.exit_code == 0 and "docs/d/x.md:16  here" in r.output
    r = CliRunner().invoke(_cli(), ["decisions", "--dir", "nowhere"])
    assert r.exit_code == 1
    assert r.output == "Error: no discussions folder at nowhere\n"


def test_decisions_after_engine_commands(isolated: Path) -> None:
    assert run("new", "Pick a queue").exit_code == 0
    assert run("comment", "pick-a-queue.md", "-a", "Rob", "DECISION: use SQS").exit_code == 0
    assert run("close", "pick-a-queue.md", "--status", "decided").exit_code == 0
    (entry,) = ledger.collect(Workspace.discover())
    assert (entry.text, entry.author, entry.status, entry.settled) == (
        "use SQS",
        "Rob",
        "DECIDED",
        True,
    )
    assert entry.date == Discussion.load(entry.file).header["created"]


# --------------------------------------------------------------------------- chronicle


def _project(folder: Path) -> None:
    discussion(
        folder,
        "auth.md",
        "Add [user] auth",
        created="2026-11-02T09:00:00Z",
        changed_to="DECIDED",
        comments=(("Rob", "DECISION: Use JWT"), ("Ann", "DECISION: 1h expiry")),
    )
    discussion(
        folder,
        "queue name.md",
        "Queue",
        created="2026-11-05T09:00:00Z",
        comments=(("Zoë", "DECISION: use SQS"),),
    )


def test_chronicle_groups_by_discussion_newest_first_with_links(folder: Path) -> None:
    _project(folder)
    r = run("chronicle")
    assert r.exit_code == 0 and r.output == "Wrote discussions/CHRONICLE.md (3 decisions).\n"
    text = (folder / "CHRONICLE.md").read_text(encoding="utf-8")
    assert text.startswith("# Chronicle of decisions\n")
    assert "never the source of truth" in text
    assert "<!-- DISCUSSION" not in text
    queue = text.index("## [Queue](queue%20name.md)")
    auth = text.index("## [Add \\[user\\] auth](auth.md)")
    assert queue < auth  # newest discussion first
    assert "*DECIDED · created 2026-11-02*" in text
    assert "- Use JWT — Rob ([line 16](auth.md#L16))" in text
    assert text.index("Use JWT") < text.index("1h expiry")  # file order within a discussion
    assert "3 decisions in 2 discussions" in text
    # rebuilt from scratch: the same bytes; no temporary files left behind
    first = (folder / "CHRONICLE.md").read_bytes()
    run("chronicle")
    assert (folder / "CHRONICLE.md").read_bytes() == first
    assert sorted(p.name for p in folder.iterdir()) == ["CHRONICLE.md", "auth.md", "queue name.md"]


def test_the_chronicle_is_not_a_discussion_to_other_commands(folder: Path) -> None:
    _project(folder)
    run("chronicle")
    listed = json.loads(run("list", "--json").output)
    assert sorted(r["file"] for r in listed) == ["discussions/auth.md", "discussions/queue name.md"]
    assert len(ledger.collect(Workspace.discover())) == 3  # not counted twice
    r = CliRunner().invoke(_cli(), ["comment", "discussions/CHRONICLE.md", "-a", "Rob", "hi"])
    assert r.exit_code == 1  # the engine refuses to append to a non-discussion


def test_chronicle_stdout_and_empty(folder: Path) -> None:
    r = run("chronicle", "--stdout")
    assert r.exit_code == 0 and "No decisions yet." in r.output
    assert not (folder / "CHRONICLE.md").exists()
    _project(folder)
    r = run("chronicle", "--stdout")
    assert "- use SQS — Zoë ([line 16](queue%20name.md#L16))" in r.output
    assert not (folder / "CHRONICLE.md").exists()


def test_chronicle_write_failure_leaves_the_old_one(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(folder)
    run("chronicle")
    before = (folder / "CHRONICLE.md").read_bytes()
    discussion(folder, "new.md", "New", comments=(("Rob", "DECISION: more"),))

    def full(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    r = CliRunner().invoke(_cli(), ["chronicle"])
    assert r.exit_code == 1
    assert r.output == (
        "Error: cannot write discussions/CHRONICLE.md: disk full; the previous version is unchanged\n"
    )
    assert (folder / "CHRONICLE.md").read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == [
        "CHRONICLE.md",
        "auth.md",
        "new.md",
        "queue name.md",
    ]


def test_chronicle_replace_is_atomic_and_keeps_the_mode(folder: Path) -> None:
    target = folder / "CHRONICLE.md"
    target.write_text("old\n")
    target.chmod(0o640)
    run("chronicle")
    assert target.read_text().startswith("# ")
    assert target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in folder.iterdir()] == ["CHRONICLE.md"]


# --------------------------------------------------------------------------- memory


def _memory_project(folder: Path) -> Path:
    discussion(
        folder,
        "auth.md",
        "Auth",
        created="2026-11-02T09:00:00Z",
        changed_to="DECIDED",
        comments=(
            ("Rob", "DECISION: Use JWT with a one hour expiry and refresh tokens in cookies"),
        ),
    )
    discussion(
        folder,
        "api.md",
        "API style",
        created="2026-11-04T09:00:00Z",
        changed_to="ACCEPTED",
        comments=(("Ann", "DECISION: REST, not GraphQL"),),
    )
    discussion(
        folder,
        "open.md",
        "Still open",
        created="2026-11-05T09:00:00Z",
        comments=(("Ann", "DECISION: maybe Kafka"),),
    )
    discussion(
        folder,
        "gone.md",
        "Abandoned",
        created="2026-11-06T09:00:00Z",
        changed_to="ABANDONED",
        comments=(("Ann", "DECISION: never mind"),),
    )
    return discussion(
        folder,
        "current.md",
        "Current",
        created="2026-11-07T09:00:00Z",
        changed_to="DECIDED",
        comments=(("Rob", "DECISION: mine, not memory"),),
    )


def test_prompt_carries_settled_decisions_of_other_discussions(folder: Path) -> None:
    current = Discussion.load(_memory_project(folder))
    prompt, _ = build_prompt(current, current.workspace.participants.get("architect"))
    start = prompt.index(MEMORY_HEADING)
    section = prompt[start : prompt.index("## The discussion so far")]
    assert section.splitlines()[2:4] == [
        "- REST, not GraphQL (API style, ACCEPTED)",  # newest first
        "- Use JWT with a one hour expiry and refresh tokens in cookies (Auth, DECIDED)",
    ]
    assert "maybe Kafka" not in section and "never mind" not in section
    assert "mine, not memory" not in section
    assert prompt.index(MEMORY_HEADING) < prompt.index("<discussion>")


def test_memory_can_be_turned_off_and_limited(isolated: Path, folder: Path) -> None:
    current = Discussion.load(_memory_project(folder))
    architect = current.workspace.participants.get("architect")
    write(isolated / "discussions.yaml", "memory:\n  enabled: false\n")
    d = Discussion.load(current.path)
    assert MEMORY_HEADING not in build_prompt(d, architect)[0]
    write(isolated / "discussions.yaml", "memory:\n  max_chars: 160\n")
    d = Discussion.load(current.path)
    memory = build_memory(d, 160)
    assert memory == (
        f"{MEMORY_HEADING}\n\n- REST, not GraphQL (API style, ACCEPTED)\n"
        "[... 1 older settled decision left out]\n"
    )
    assert memory in build_prompt(d, architect)[0]
    assert build_memory(d, 40) == ""  # not even one line fits
    assert MEMORY_HEADING not in build_prompt(d, architect, memory=False)[0]


@pytest.mark.slow
def test_prompt_with_memory_stays_within_budget(isolated: Path, folder: Path) -> None:
    for i in range(300):
        discussion(
            folder,
            f"old-{i:03d}.md",
            f"Old topic {i}",
            created=f"2026-10-{1 + i % 28:02d}T09:00:00Z",
            changed_to="DECIDED",
            comments=(("Rob", f"DECISION: decision {i} " + "with a long rationale " * 30),),
        )
    current = discussion(folder, "now.md", "Now", comments=(("Rob", "Hello " * 4000),))
    write(isolated / "discussions.yaml", "memory:\n  max_chars: 100000\n")
    d = Discussion.load(current)
    architect = d.workspace.participants.get("architect")
    prompt, _ = build_prompt(d, architect, max_chars=3_000)
    assert len(prompt) <= 3_000  # the persona leaves no room for memory: none is given
    for budget in (20_000, 60_000):
        prompt, _ = build_prompt(d, architect, max_chars=budget)
        assert len(prompt) <= budget
        assert MEMORY_HEADING in prompt and "older settled decisions left out" in prompt
        memory = prompt[prompt.index(MEMORY_HEADING) : prompt.index("## The discussion so far")]
        own, _, council = memory.partition(COUNCIL_HEADING)  # the council's memory follows
        assert len(own) <= budget // 4
        assert len(COUNCIL_HEADING + council) <= DEFAULT_COUNCIL_CHARS + 2  # its own share
        assert max(len(x) for x in memory.splitlines()) < 400  # long decisions are shortened


def test_memory_reads_the_folder_once_per_change(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    current = Discussion.load(_memory_project(folder))
    ledger._CACHE.clear()
    reads: list[str] = []
    real = ledger._read_file

    def counting(path: Path, workspace: Workspace):  # type: ignore[no-untyped-def]
        reads.append(path.name)
        return real(path, workspace)

    monkeypatch.setattr(ledger, "_read_file", counting)
    participants = [current.workspace.participants.get(a) for a in ("architect", "security")]
    for p in participants:  # a turn: one prompt per participant
        build_prompt(current, p)
    assert sorted(reads) == ["api.md", "auth.md", "current.md", "gone.md", "open.md"]
    reads.clear()
    with (folder / "api.md").open("a", encoding="utf-8") as f:
        f.write("\n---\n\nName: Ann\n\nDECISION: and JSON:API\n\n---\n")
    prompt, _ = build_prompt(current, participants[0])
    assert reads == ["api.md"]  # only the changed file is read again
    assert "- and JSON:API (API style, ACCEPTED)" in prompt


def test_no_memory_without_a_discussions_folder(isolated: Path) -> None:
    path = discussion(isolated, "lone.md", "Lone", comments=(("Rob", "DECISION: x"),))
    d = Discussion.load(path)
    assert build_memory(d, 4000) == ""


@pytest.mark.parametrize(
    "status, initial, settled",
    [
        ("DECIDED", "OPEN", True),
        ("closed", "OPEN", True),
        ("ACCEPTED", "PROPOSED", True),
        ("REJECTED", "OPEN", True),
        ("OPEN", "OPEN", False),
        ("PROPOSED", "PROPOSED", False),
        ("IN_REVIEW", "IN_REVIEW", False),
        ("ABANDONED", "OPEN", False),
        ("", "OPEN", False),
    ],
)
def test_is_settled(status: str, initial: str, settled: bool) -> None:
    assert ledger.is_settled(status, initial) is settled


def test_a_decision_shows_when_its_comment_was_written(folder: Path) -> None:
    discussion(
        folder,
        "auth.md",
        "Auth",
        created="2026-11-02T09:00:00Z",
        comments=(
            ("Rob", "<!-- at: 2026-11-20T14:05:00Z -->\n\nDECISION: Use JWT"),
            ("Ann", "DECISION: 1h expiry"),  # typed by hand: no time recorded
        ),
    )
    text = run("chronicle", "--stdout").output
    assert "no timestamp" not in text
    assert "- Use JWT — Rob, 2026-11-20 ([line" in text
    assert "- 1h expiry — Ann ([line" in text
    [jwt, expiry] = json.loads(run("decisions", "--json").output)
    assert jwt["written"] == "2026-11-20T14:05:00Z" and expiry["written"] == ""
    listed = run("decisions").output
    assert "2026-11-20  OPEN" in listed and "2026-11-02  OPEN" in listed
    assert "no timestamp" not in run("decisions", "--help").output
