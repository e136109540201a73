"""Grounded votes (issue 37, item 2) in a real git repository: citations resolved against the
commit a comment recorded, the verdicts, and ``consensus.grounded_votes`` changing the tally."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from discussions.derive.signatures import render_signed
from discussions.engine.turn.posting import head_meta
from discussions.git.grounding import current_head, ground
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace
from discussions.syntax.render import render_comment

from ..conftest import code, out, result_of, run, script_command

NET = "".join(f"x{n} = {n}\n" for n in range(1, 31)).replace("x12 = 12", "while True: retry()")
NET += "def retry():\n    return 3\n"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def repo(isolated: Path) -> Path:
    (isolated / "src").mkdir()
    (isolated / "src" / "net.py").write_text(NET)
    (isolated / "discussions.yaml").write_text("default_participants: [architect, security]\n")
    git(isolated, "init", "-q", "-b", "main")
    git(isolated, "config", "user.name", "Tester")
    git(isolated, "config", "user.email", "t@example.com")
    git(isolated, "add", "-A")
    git(isolated, "commit", "-q", "-m", "first")
    return isolated


def _discussion(root: Path, *blocks: str, title: str = "Talk") -> Discussion:
    d = Discussion.create(title, directory=root / "discussions")
    for block in blocks:
        d.add_block(block)
    d.save()
    return Discussion.load(d.path, Workspace.discover(root))


def _ai(name: str, text: str, vote: str, head: str) -> str:
    meta = ["provider: mock"] + ([f"head: {head}"] if head else []) + ["at: 2026-11-28T01:00:00Z"]
    return render_signed(name, text, meta, vote)


def _verdicts(d: Discussion) -> dict[str, str]:
    ground(d)
    assert d.grounding is not None
    return {text: v.status for (_, text), v in d.grounding.items()}


def test_real_lines_invented_lines_and_a_misquote(repo: Path) -> None:
    head = current_head(repo)
    text = (
        "It spins at src/net.py:12 `while True: retry()`, and `retry()` in src/net.py never\n"
        "gives up. Line src/net.py:99 and src/ghost.py:3 are invented; src/net.py:3 `y = 9`\n"
        "is a misquote."
    )
    d = _discussion(repo, _ai("AI-Security", text, "CHANGES", head))
    assert _verdicts(d) == {
        "src/net.py:12": "grounded",
        "retry() in src/net.py": "grounded",
        "src/net.py:99": "unresolvable",
        "src/ghost.py:3": "unresolvable",
        "src/net.py:3": "unresolvable",
    }


def test_a_file_changed_after_the_comment_makes_its_citation_stale(repo: Path) -> None:
    head = current_head(repo)
    d = _discussion(
        repo, _ai("AI-Security", "See src/net.py:12 and src/net.py:2.", "CHANGES", head)
    )
    (repo / "src" / "net.py").write_text(NET.replace("while True: retry()", "for _ in range(3):"))
    git(repo, "commit", "-qam", "bounded")
    assert _verdicts(d) == {"src/net.py:12": "stale", "src/net.py:2": "grounded"}
    (_, v), *_ = d.grounding.items()  # type: ignore[union-attr]
    assert v.against == f"commit {head[:7]}"


def test_a_comment_without_a_head_is_resolved_against_the_working_tree(repo: Path) -> None:
    person = render_comment("Rob", "Look at src/net.py:31 and src/net.py:40.", meta="at: x")
    d = _discussion(repo, person)
    assert _verdicts(d) == {"src/net.py:31": "grounded", "src/net.py:40": "unresolvable"}
    assert {v.against for v in d.grounding.values()} == {"the working tree"}  # type: ignore[union-attr]


def test_the_engine_records_head_only_for_a_comment_that_cites(repo: Path) -> None:
    d = _discussion(repo)
    assert head_meta(d, "It breaks at src/net.py:12.") == [
        f"head: {git(repo, 'rev-parse', 'HEAD')}"
    ]
    assert head_meta(d, "Nothing cited here.") == []


def test_no_git_runs_for_a_discussion_without_citations(repo: Path) -> None:
    d = _discussion(repo, _ai("AI-Security", "No.", "CHANGES", ""))
    assert ground(d) == 0 and d.grounding == {}


def test_grounded_votes_changes_the_tally(repo: Path) -> None:
    head = current_head(repo)
    blocks = (
        _ai("AI-Architect", "Fine by me.", "READY", head),
        _ai("AI-Security", "I just do not like it.", "CHANGES", head),
    )
    d = _discussion(repo, *blocks)
    assert not d.consensus_result.reached  # off: the bare CHANGES counts
    (repo / "discussions.yaml").write_text(
        "default_participants: [architect, security]\nconsensus:\n  grounded_votes: true\n"
    )
    d = Discussion.load(d.path, Workspace.discover(repo))
    assert d.consensus_result.reached
    assert "security" in d.consensus_result.reason.lower()


def test_a_blocking_vote_on_a_grounded_citation_still_counts(repo: Path) -> None:
    (repo / "discussions.yaml").write_text(
        "default_participants: [architect, security]\nconsensus:\n  grounded_votes: true\n"
    )
    head = current_head(repo)
    ready = _ai("AI-Architect", "Fine by me.", "READY", head)
    grounded = _discussion(repo, ready, _ai("AI-Security", "src/net.py:12 spins.", "CHANGES", head))
    ground(grounded)
    assert not grounded.consensus_result.reached
    invented = _discussion(
        repo, ready, _ai("AI-Security", "src/net.py:120 spins.", "CHANGES", head), title="Other"
    )
    ground(invented)
    assert invented.consensus_result.reached
    bases, _ = invented.grounds()
    assert not bases["AI-Security"].checkable and bases["AI-Architect"].value == "READY"


def test_status_and_check_show_the_grounds(repo: Path) -> None:
    head = current_head(repo)
    cited = "It spins at src/net.py:12 and at src/net.py:99."
    d = _discussion(
        repo,
        _ai("AI-Architect", "Fine by me.", "READY", head),
        _ai("AI-Security", cited, "CHANGES", head),
    )
    r = run("status", str(d.path))
    assert code(r) == 0
    assert "AI-Security CHANGES: src/net.py:12 (grounded); src/net.py:99 (unresolvable)" in out(r)
    data = result_of(run("status", str(d.path), "--json"))
    grounds = data["grounds"]
    assert isinstance(grounds, dict)
    vote = grounds["votes"]["AI-Security"]
    assert vote["grounded"] == ["src/net.py:12"] and vote["counted"] is True
    assert [c["verdict"]["status"] for c in grounds["citations"]] == ["grounded", "unresolvable"]
    r = run("check", str(d.path))
    line = d.text.split("\n").index(cited) + 1
    assert f":{line}: " in out(r) and "src/net.py:99" in out(r)
    assert "src/net.py:12`" not in out(r)


def test_each_commit_and_path_is_read_once(repo: Path) -> None:
    head = current_head(repo)
    text = "See src/net.py:12, src/net.py:13, src/net.py:14 and src/ghost.py:1."
    d = _discussion(repo, _ai("AI-Security", text, "CHANGES", head))
    # net.py and ghost.py at the commit, net.py in the work tree (is it stale?)
    assert ground(d) == 3
    assert ground(d) == 0  # again (an editor's next version): nothing read, no git
    (repo / "src" / "net.py").write_text(NET + "x = 0\n")
    assert ground(d) == 1  # the work-tree file changed: read again, the commit's not


def test_the_editor_shows_an_unresolvable_citation(repo: Path) -> None:
    from discussions.lsp.buffer import analyse
    from discussions.lsp.diagnostics import diagnostics

    head = current_head(repo)
    d = _discussion(repo, _ai("AI-Security", "It spins at src/net.py:99.", "CHANGES", head))
    b = analyse(Workspace.discover(repo), d.path, d.text)
    found = [x for x in diagnostics(b) if x.code == "unresolvable-citation"]
    assert len(found) == 1 and "src/net.py:99" in found[0].message
    assert found[0].range.start.line == d.text.split("\n").index("It spins at src/net.py:99.")


def test_the_web_view_marks_each_citation(repo: Path) -> None:
    from ..support.web import LiveServer

    head = current_head(repo)
    text = "It spins at src/net.py:12; src/net.py:99 too."
    d = _discussion(repo, _ai("AI-Security", text, "CHANGES", head))
    server = LiveServer(Workspace.discover(repo))
    try:
        page = server.get(f"/d/{d.path.name}").text
        api = server.get(f"/api/discussions/{d.path.name}").json()
    finally:
        server.stop()
    assert 'class="citation citation-grounded"' in page
    assert 'class="citation citation-unresolvable"' in page
    statuses = [c["verdict"]["status"] for c in api["grounds"]["citations"]]
    assert statuses == ["grounded", "unresolvable"]


def test_a_turn_records_head_and_status_follows_the_code(
    repo: Path,
    providers_file,  # type: ignore[no-untyped-def]
) -> None:
    answer = "It spins at src/net.py:12 `while True: retry()`."
    reply = json.dumps({"comment": answer, "vote": "CHANGES"})
    providers_file({"scripted": script_command("answer.py", reply, "0")})
    (repo / "discussions.yaml").write_text(
        "default_participants: [architect, security]\n"
        "providers:\n  default: scripted\n  fallback: []\n"
    )
    d = _discussion(repo)
    r = run("turn", str(d.path), "@security")
    assert code(r) == 0, out(r)
    c = Discussion.load(d.path).comments[-1]
    assert c.meta["head"] == git(repo, "rev-parse", "HEAD")
    assert "src/net.py:12 (grounded)" in out(run("status", str(d.path)))
    (repo / "src" / "net.py").write_text(NET.replace("while True: retry()", "for _ in range(3):"))
    git(repo, "commit", "-qam", "bounded")
    assert "src/net.py:12 (stale)" in out(run("status", str(d.path)))


def test_a_stale_citation_is_a_note_and_check_still_passes(repo: Path) -> None:
    head = current_head(repo)
    d = _discussion(repo, _ai("AI-Security", "See src/net.py:12.", "CHANGES", head))
    (repo / "src" / "net.py").write_text(NET.replace("while True: retry()", "for _ in range(3):"))
    git(repo, "commit", "-qam", "bounded")
    r = run("check", str(d.path))
    assert code(r) == 0, out(r)
    assert "src/net.py:12` is stale" in out(r)
    [said] = [x for x in out(r).splitlines() if "is stale" in x]
    [shown] = [x for x in out(run("status", str(d.path))).splitlines() if "is stale" in x]
    assert said.count(head[:7]) == 1 and shown.count(head[:7]) == 1, (said, shown)


def test_the_engine_decides_on_what_status_shows(repo: Path) -> None:
    from discussions.engine.turn import phases

    (repo / "discussions.yaml").write_text(
        "default_participants: [architect, security, pragmatist]\n"
        "consensus:\n  grounded_votes: true\n"
    )
    head = current_head(repo)
    ws = Workspace.discover(repo)
    d = Discussion.create("Plan", template="feature", directory=repo / "discussions", workspace=ws)
    d.save()
    d.advance("consensus_vote")
    d.save()
    for name, text, vote in (
        ("AI-Architect", "Fine.", "READY"),
        ("AI-Pragmatist", "Fine.", "READY"),
        ("AI-Security", "It spins at src/net.py:120 `while True:`.", "REJECT"),
    ):
        d.add_block(_ai(name, text, vote, head))
    d.save()
    d = Discussion.load(d.path, ws)
    change = phases.auto_advance(d)  # the invented line leaves the REJECT out of the tally
    assert change is not None and (change.kind, change.target) == ("status", "DECIDED")


def test_the_terminal_app_panel_shows_the_grounds(repo: Path) -> None:
    from discussions.tui.data import side_panel

    head = current_head(repo)
    d = _discussion(repo, _ai("AI-Security", "It spins at src/net.py:99.", "CHANGES", head))
    ground(d)
    panel = side_panel(d)
    assert "[b]Grounds[/b]" in panel and "src/net.py:99 (unresolvable)" in panel


def test_a_persons_comment_that_cites_records_head(repo: Path) -> None:
    d = _discussion(repo)
    assert code(run("comment", str(d.path), "See src/net.py:12.", "--author", "Rob")) == 0
    assert code(run("comment", str(d.path), "Nothing cited.", "--author", "Rob")) == 0
    cited, plain = Discussion.load(d.path).comments[-2:]
    assert cited.meta["head"] == git(repo, "rev-parse", "HEAD") and "head" not in plain.meta
    assert cited.at is not None  # the time is still read from the same line


def test_the_html_export_marks_each_citation(repo: Path) -> None:
    head = current_head(repo)
    d = _discussion(repo, _ai("AI-Security", "It spins at src/net.py:99.", "CHANGES", head))
    r = run("export", str(d.path), "--format", "html")
    assert code(r) == 0, out(r)
    page = (repo / "discussions" / "talk.html").read_text(encoding="utf-8")
    assert 'class="citation citation-unresolvable"' in page


def test_outside_git_citations_are_resolved_in_the_project_folder(isolated: Path) -> None:
    (isolated / "src").mkdir()
    (isolated / "src" / "net.py").write_text(NET)
    (isolated / "discussions.yaml").write_text("default_participants: [architect]\n")
    person = render_comment("Rob", "Look at src/net.py:31 and src/net.py:40.", meta="at: x")
    d = _discussion(isolated, person)  # in discussions/, the citations relative to the project
    assert _verdicts(d) == {"src/net.py:31": "grounded", "src/net.py:40": "unresolvable"}
    assert {v.against for v in d.grounding.values()} == {"the working tree"}  # type: ignore[union-attr]


def test_check_names_the_commit_of_a_missing_file_once(repo: Path) -> None:
    head = current_head(repo)
    d = _discussion(repo, _ai("AI-Security", "See src/ghost.py:3.", "CHANGES", head))
    [line] = [x for x in out(run("check", str(d.path))).splitlines() if "src/ghost.py" in x]
    assert line.count(head[:7]) == 1, line
