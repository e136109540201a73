"""Persona memory across discussions: REMEMBER: / REVISIT-WHEN:, each participant's history
derived from the files, its own record in its prompts, `discussions memory`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions.derive.rules import derive
from discussions.engine.prompt.memory import PERSONA_MEMORY_HEADING, build_persona_memory
from discussions.engine.prompt.prompts import build_prompt
from discussions.model import memory
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace
from discussions.views.status import revisits

from ..conftest import code, out, run, script_command, sign_ai_comments, write, write_signed
from ..support.council import council_template
from ..support.git import commit_all, git

MOTION = "Adopt JWT with a one-hour expiry"


def prompts_of(folder: Path, alias: str) -> list[str]:
    """The turn prompts the council stand-in recorded for `alias`, in order."""
    return [
        f.read_text(encoding="utf-8")
        for f in sorted((folder / "prompts").glob(f"*-{alias}-turn.txt"))
    ]


def append(path: Path, author: str, text: str) -> None:
    """A comment signed by a participant, appended as text as the engine writes it (the CLI
    refuses a participant's name to a person)."""
    with path.open("a", encoding="utf-8") as f:
        f.write(f"\nName: {author}\n\n{text}\n\n---\n")
    path.write_text(sign_ai_comments(path.read_text(encoding="utf-8")), encoding="utf-8")


def section(prompt: str) -> str:
    start = prompt.index(PERSONA_MEMORY_HEADING)
    return prompt[start : prompt.index("## The discussion so far")]


@pytest.mark.slow
def test_second_discussion_prompt_holds_own_position_and_outcome(
    isolated: Path,
    providers_file,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    council_template(isolated)
    plan = {
        "mover": "architect",
        "motion": MOTION,
        "second": {"security": "yes", "pragmatist": "no"},
        "ballot": {"architect": "YES", "security": "YES", "pragmatist": "NO"},
        "notes": {"pragmatist": "REMEMBER: watch key rotation"},
    }
    recorded = tmp_path / "recorded"
    providers_file({"standin": script_command("council.py", json.dumps(plan), str(recorded))})
    write(isolated / "discussions.yaml", "providers:\n  default: standin\n  detect: false\n")
    assert code(run("new", "Plan", "--template", "council")) == 0
    r = run("turn", "plan.md")
    assert code(r) == 0, out(r)
    first = [section(p) for p in prompts_of(recorded, "pragmatist") if PERSONA_MEMORY_HEADING in p]
    assert first == []  # nothing to remember before the first discussion

    assert code(run("new", "Next", "--template", "council")) == 0
    r = run("turn", "next.md")
    assert code(r) == 0, out(r)
    mine = section(prompts_of(recorded, "pragmatist")[-1])
    assert f"ballot NO: {MOTION} (passed)" in mine
    assert f"declined to second: {MOTION} (passed)" in mine
    assert "remember: watch key rotation" in mine
    assert "losing side" in mine and f"Decided: {MOTION}" in mine
    assert "Plan (DECIDED" in mine
    # Not another persona's positions.
    assert "ballot YES" not in mine and "moved" not in mine and "winning side" not in mine
    architect = section(prompts_of(recorded, "architect")[-1])
    assert f"moved: {MOTION} (passed)" in architect and "winning side" in architect
    assert "ballot NO" not in architect and "key rotation" not in architect
    prompt = prompts_of(recorded, "pragmatist")[-1]
    assert prompt.index(PERSONA_MEMORY_HEADING) < prompt.index("<discussion>")


def _hand(folder: Path, name: str, created: str, body: str, status: str = "DECIDED") -> Path:
    text = (
        f"<!-- DISCUSSION -->\n<!-- Title: {name} -->\n<!-- Status: OPEN -->\n"
        f"<!-- Created: {created} -->\n<!-- Template: feature -->\n\n# {name}\n\n"
        f"## Context\nAbout {name}.\n\n---\n\nName: AI-Architect\n\n{body}\n\n---\n"
        f"\n<!-- STATUS-CHANGE: OPEN -> {status} -->\n"
    )
    return write_signed(folder / f"{name}.md", text)


def test_notes_round_trip_through_the_file_and_check(isolated: Path) -> None:
    assert code(run("new", "Cache")) == 0
    body = "We keep Redis.\nREMEMBER: the cache is per region\nREVISIT-WHEN: traffic passes 10k rps"
    path = isolated / "discussions" / "cache.md"
    append(path, "AI-Architect", body)
    text = path.read_text(encoding="utf-8")
    notes = derive(text, Workspace.discover(), "cache").notes
    assert [(n.kind, n.text, n.author) for n in notes] == [
        ("REMEMBER", "the cache is per region", "AI-Architect"),
        ("REVISIT-WHEN", "traffic passes 10k rps", "AI-Architect"),
    ]
    assert text.splitlines()[notes[0].line - 1] == "REMEMBER: the cache is per region"
    r = run("check", "discussions/cache.md")
    assert code(r) == 0, out(r)
    quoted = "```\nREMEMBER: not a note\n```\n> REVISIT-WHEN: nor this"
    assert code(run("comment", "discussions/cache.md", "-a", "Rob", quoted)) == 0
    assert len(derive(path.read_text(encoding="utf-8"), Workspace.discover()).notes) == 2


@pytest.mark.slow
def test_notes_survive_a_git_merge(repo: Path) -> None:
    assert code(run("init")) == 0
    assert code(run("new", "Queue")) == 0
    commit_all(repo, "start")
    path = repo / "discussions" / "queue.md"
    git(repo, "checkout", "-q", "-b", "a")
    append(path, "AI-Architect", "REMEMBER: SQS limits")
    commit_all(repo, "a")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    append(path, "AI-Security", "REVISIT-WHEN: messages exceed 256 KB")
    commit_all(repo, "b")
    merged = git(repo, "merge", "-q", "--no-edit", "a", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    notes = derive(path.read_text(encoding="utf-8"), Workspace.discover()).notes
    assert sorted((n.kind, n.author) for n in notes) == [
        ("REMEMBER", "AI-Architect"),
        ("REVISIT-WHEN", "AI-Security"),
    ]
    assert code(run("check", str(path))) == 0


def test_history_fades_newest_first_and_fits_its_budget(isolated: Path) -> None:
    folder = isolated / "discussions"
    for i in range(30):
        _hand(
            folder,
            f"topic-{i:02d}",
            f"2026-10-{1 + i:02d}T09:00:00Z",
            f"VOTE: READY\nDECISION: d{i}",
        )
    current = _hand(folder, "now", "2026-11-20T09:00:00Z", "Hello", status="OPEN")
    d = Discussion.load(current)
    architect = d.workspace.participants.get("architect")
    text = build_persona_memory(d, architect, 100_000)
    lines = [x for x in text.splitlines() if x.startswith("- ")]
    assert len(lines) == 25 and lines[0].startswith("- topic-29") and "topic-05" in lines[-1]
    assert "[... 5 older discussions of yours left out]" in text
    assert "now" not in "".join(lines)  # not the discussion being prompted
    prompt = build_prompt(d, architect)[0]  # after the settled decisions, before the discussion
    settled = prompt.index("## Settled decisions")
    assert settled < prompt.index(PERSONA_MEMORY_HEADING) < prompt.index("<discussion>")
    small = build_persona_memory(d, architect, 700)
    assert len(small) <= 700 and "older discussions of yours left out" in small
    write(
        isolated / "discussions.yaml", "memory:\n  discussions: 3\n  per_participant_chars: 5000\n"
    )
    d = Discussion.load(current)
    text = build_persona_memory(d, architect, 100_000)
    assert sum(x.startswith("- ") for x in text.splitlines()) == 3
    assert "[... 27 older discussions of yours left out]" in text
    write(isolated / "discussions.yaml", "memory:\n  enabled: false\n")
    d = Discussion.load(current)
    assert PERSONA_MEMORY_HEADING not in build_prompt(d, architect)[0]
    security = d.workspace.participants.get("security")
    assert build_persona_memory(Discussion.load(current), security, 100_000) == ""


def test_anonymous_phase_keeps_others_anonymous_blind_keeps_it(isolated: Path) -> None:
    write(
        isolated / "templates" / "masked.yaml",
        """
        name: masked
        phases:
          - id: one
            title: One
            anonymous: true
            next: two
          - id: two
            title: Two
            blind: true
        """,
    )
    folder = isolated / "discussions"
    _hand(
        folder,
        "old",
        "2026-10-01T09:00:00Z",
        "VOTE: READY\nDECISION: ask @security and AI-Security",
    )
    assert code(run("new", "Masked", "--template", "masked")) == 0
    path = folder / "masked.md"
    d = Discussion.load(path)
    architect = d.workspace.participants.get("architect")
    prompt = build_prompt(d, architect)[0]
    mine = section(prompt)
    assert "ask another participant and another participant" in mine
    assert "AI-Security" not in mine and "@security" not in mine
    d.advance("two")
    d.save()
    d = Discussion.load(path)
    assert "ask @security and AI-Security" in section(build_prompt(d, architect)[0])


def test_revisit_when_is_surfaced_when_a_later_discussion_mentions_it(isolated: Path) -> None:
    folder = isolated / "discussions"
    _hand(folder, "queue", "2026-10-01T09:00:00Z", "REVISIT-WHEN: the message size exceeds limits")
    later = _hand(
        folder,
        "big",
        "2026-11-01T09:00:00Z",
        "Our message size now exceeds the SQS limits.",
        "OPEN",
    )
    other = _hand(folder, "small", "2026-11-02T09:00:00Z", "Message size is fine.", "OPEN")
    before = _hand(folder, "before", "2026-09-01T09:00:00Z", "Message size exceeds limits.", "OPEN")
    (found,) = revisits(Discussion.load(later))
    assert (found.text, found.author, found.file.name, found.line) == (
        "the message size exceeds limits",
        "AI-Architect",
        "queue.md",
        16,
    )
    assert revisits(Discussion.load(other)) == []  # "exceeds" and "limits" are not in it
    assert revisits(Discussion.load(before)) == []  # created before the condition was written
    assert memory.mentions("a and the", frozenset({"a"})) is False  # no significant word
    r = run("status", "discussions/big.md")
    assert code(
        r
    ) == 0 and "Revisit: the message size exceeds limits (discussions/queue.md:16" in out(r)
    assert (
        json.loads(out(run("status", "discussions/big.md", "--json")))["revisits"][0]["line"] == 16
    )
    r = run("decisions")
    assert out(r).splitlines()[1:] == [
        "",
        "discussions/queue.md:16  revisit when the message size exceeds limits  "
        "(AI-Architect; mentioned by discussions/big.md)",
    ]


def test_status_derives_only_the_discussions_that_hold_a_condition(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`status` looks for revisit conditions in the other discussions: only a file holding one
    is derived (a project of many discussions would otherwise derive them all on every
    `status`), and never the discussion shown."""
    folder = isolated / "discussions"
    _hand(folder, "queue", "2026-10-01T09:00:00Z", "REVISIT-WHEN: the message size exceeds limits")
    later = _hand(folder, "big", "2026-11-01T09:00:00Z", "Message size exceeds limits.", "OPEN")
    for n in range(5):
        _hand(folder, f"plain{n}", "2026-11-02T09:00:00Z", "Nothing to revisit.", "OPEN")
    read: list[str] = []
    real = memory.read_file

    def counting(path: Path, workspace: Workspace):  # type: ignore[no-untyped-def]
        read.append(path.name)
        return real(path, workspace)

    monkeypatch.setattr(memory, "read_file", counting)
    monkeypatch.setattr(memory, "_CACHE", memory._FileCache())  # nothing from other tests
    assert [r.file.name for r in revisits(Discussion.load(later))] == ["queue.md"]
    assert read == ["queue.md"]


def test_memory_command_text_json_and_page(isolated: Path) -> None:
    folder = isolated / "discussions"
    _hand(
        folder, "auth", "2026-10-01T09:00:00Z", "VOTE: READY\nCONCERN: tokens leak\nDECISION: JWT"
    )
    r = run("memory", "architect")
    assert code(r) == 0, out(r)
    assert "discussions/auth.md:17  concern: tokens leak" in out(r)
    assert "auth (DECIDED, 2026-10-01): you ended on the winning side." in out(r)
    data = json.loads(out(run("memory", "@architect", "--json")))
    assert data["alias"] == "architect" and data["left_out"] == 0
    assert data["episodes"][0]["side"] == "won"
    assert {p["kind"] for p in data["episodes"][0]["positions"]} == {"VOTE", "CONCERN", "DECISION"}
    r = run("memory", "architect", "--write")
    assert code(r) == 0, out(r)
    page = (folder / "memory" / "architect.md").read_text(encoding="utf-8")
    assert "[line 17](../auth.md#L17)" in page
    assert run("memory", "nobody").exit_code == 1  # type: ignore[attr-defined]
    assert "no participant 'nobody'" in out(run("memory", "nobody"))


@pytest.mark.parametrize(
    "status, vote, side",
    [
        ("DECIDED", "READY", "won"),
        ("REJECTED", "READY", "lost"),
        ("REJECTED", "REJECT", "won"),
        ("OPEN", "READY", "open"),
    ],
)
def test_side_follows_the_outcome(isolated: Path, status: str, vote: str, side: str) -> None:
    _hand(isolated / "discussions", "x", "2026-10-01T09:00:00Z", f"VOTE: {vote}", status)
    architect = Workspace.discover().participants.get("architect")
    (episode,) = memory.history(Workspace.discover(), architect)
    assert episode.side == side


def test_a_turns_participants_read_the_folder_once(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each participant's prompt asks for its history; the files of the folder are read for
    the needles, and derived, once for all of them (the per-process cache answers the
    others), and the discussion prompted is never read, by whatever path it is named."""
    folder = isolated / "discussions"
    for n in range(4):
        _hand(folder, f"old{n}", "2026-10-01T09:00:00Z", "VOTE: READY\nCONCERN: tokens leak")
    shown = _hand(folder, "now", "2026-11-20T09:00:00Z", "Hello", status="OPEN")
    looked: list[str] = []
    derived: list[str] = []
    real_holds, real_read = memory.holds, memory.read_file

    def holds(path: Path, needles: tuple[str, ...]) -> bool:
        looked.append(path.name)
        return real_holds(path, needles)

    def read_file(path: Path, workspace: Workspace):  # type: ignore[no-untyped-def]
        derived.append(path.name)
        return real_read(path, workspace)

    monkeypatch.setattr(memory, "holds", holds)
    monkeypatch.setattr(memory, "read_file", read_file)
    monkeypatch.setattr(memory, "_CACHE", memory._FileCache())  # nothing from other tests
    ws = Workspace.discover(isolated)
    roundabout = folder / ".." / "discussions" / "now.md"
    for alias in ("architect", "security", "pragmatist"):
        found = memory.history(ws, ws.participants.get(alias), exclude=roundabout)
        assert [e.file.name for e in found] == (
            ["old0.md", "old1.md", "old2.md", "old3.md"][::-1] if alias == "architect" else []
        )
    assert sorted(looked) == sorted(derived) == ["old0.md", "old1.md", "old2.md", "old3.md"]
    assert shown.name not in looked + derived
