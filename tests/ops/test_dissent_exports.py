"""The minority report where a decision is read: the ADR, the hand-off (JSON and the lead's
prompt), the HTML, JSON and post exports, and `decisions` (text and JSON). A discussion decided
3 READY / 1 REJECT with an unanswered concern shows it in each; a unanimous one shows no
minority section and says nothing; a motion's NO ballot is dissent too."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import code, out, run
from ..support.dissent import MOTION, SPLIT, UNANIMOUS, discussion_file

REASON = "Redis holds the session tokens in clear text."
CONCERN = "Tokens stored unencrypted in Redis."


def _ok(*args: str) -> str:
    r = run(*args)
    assert code(r) == 0, out(r)
    return out(r)


def _file(folder: Path, text: str) -> Path:
    return discussion_file(folder / "discussions", text)


def _adr(path: Path) -> str:
    _ok("adr", str(path))
    return next((path.parent.parent / "docs" / "adr").glob("0001-*.md")).read_text("utf-8")


def test_the_adr_says_it_was_decided_over_dissent(isolated: Path) -> None:
    text = _adr(_file(isolated, SPLIT))
    status = text[text.index("## Status") : text.index("## Context")]
    assert "Recorded over dissent: REJECT from AI-Security; 1 unanswered concern" in status
    consequences = text[text.index("## Consequences") :]
    assert "Minority report" in consequences
    assert "AI-Security voted REJECT (line " in consequences and REASON in consequences
    assert "Unanswered concern from AI-Security (line " in consequences
    assert "Does the expiry sweep block" not in consequences.split("Minority report")[1]


def test_the_handoff_names_the_dissent_first(isolated: Path) -> None:
    path = _file(isolated, SPLIT)
    data = json.loads(_ok("export", str(path), "--format", "handoff", "--out", "-"))
    assert list(data)[:6] == ["format", "title", "file", "status", "decided", "reason"]
    assert list(data)[6] == "dissent"
    assert data["dissent"]["votes"][0]["name"] == "AI-Security"
    assert data["dissent"]["votes"][0]["vote"] == "REJECT"
    assert data["dissent"]["concerns"][0]["text"] == CONCERN
    from discussions.model.discussion import Discussion
    from discussions.model.handoff import build_handoff

    prompt = build_handoff(Discussion.load(path)).to_prompt()
    first = prompt.split("\n")[2]
    assert first.startswith(
        "This decision was recorded over dissent: 1 vote(s) against and 1 unanswered concern(s)."
    )
    report = prompt[prompt.index("## Minority report") : prompt.index("## Decisions")]
    assert "REJECT from AI-Security, line" in report and REASON in report
    assert f"```text\n{CONCERN}\n```" in report


def test_the_html_json_and_post_exports_carry_it(isolated: Path) -> None:
    path = _file(isolated, SPLIT)
    page = _ok("export", str(path), "--out", "-")
    header = page[page.index('<header class="top">') : page.index("</header>")]
    assert "Recorded over dissent: REJECT from AI-Security" in header
    assert 'id="panel-dissent"' in page and REASON in page
    data = json.loads(_ok("export", str(path), "--format", "json", "--out", "-"))
    assert [v["name"] for v in data["dissent"]["votes"]] == ["AI-Security"]
    assert set(data["dissent"]["votes"][0]) == {"name", "vote", "reason", "line"}
    assert set(data["dissent"]["concerns"][0]) == {"by", "text", "line"}
    _ok("export", str(path), "--format", "post", "--provider", "mock")
    post = path.with_name("sessions.post.md").read_text("utf-8")
    report = post[post.index("## Minority report") :]
    assert "Recorded over dissent: REJECT from AI-Security" in report and CONCERN in report


def test_decisions_text_and_json_carry_it(isolated: Path) -> None:
    _file(isolated, SPLIT)
    listed = _ok("decisions").splitlines()
    assert listed[0].endswith("Redis with a 24h expiry.  (AI-Architect; Session store)")
    assert listed[1].strip().startswith("Recorded over dissent: REJECT from AI-Security")
    data = json.loads(_ok("decisions", "--json"))
    assert data[0]["dissent"]["concerns"] == [
        {"by": "AI-Security", "text": CONCERN, "line": data[0]["dissent"]["concerns"][0]["line"]}
    ]


def test_a_unanimous_decision_has_no_minority_section(isolated: Path) -> None:
    path = _file(isolated, UNANIMOUS)
    text = _adr(path)
    assert "dissent" not in text.lower() and "Minority" not in text
    data = json.loads(_ok("export", str(path), "--format", "handoff", "--out", "-"))
    assert data["dissent"] == {"votes": [], "concerns": [], "reservations": []}
    from discussions.model.discussion import Discussion
    from discussions.model.handoff import build_handoff

    prompt = build_handoff(Discussion.load(path)).to_prompt()
    assert prompt.startswith("# Implement a decided discussion\n\n## Rules")
    assert "Minority" not in prompt and "dissent" not in prompt
    page = _ok("export", str(path), "--out", "-")
    assert 'id="panel-dissent"' not in page and 'id="dissent"' not in page
    assert "Recorded" not in page
    _ok("export", str(path), "--format", "post", "--provider", "mock")
    assert "Minority" not in path.with_name("sessions.post.md").read_text("utf-8")
    assert len(_ok("decisions").splitlines()) == 1


def test_a_no_ballot_on_the_passed_motion_shows_in_the_adr_and_handoff(isolated: Path) -> None:
    path = _file(isolated, MOTION)
    text = _adr(path)
    assert "Recorded over dissent: NO from AI-Security." in text
    assert "AI-Security voted NO (line " in text and "breach waiting to happen" in text
    data = json.loads(_ok("export", str(path), "--format", "handoff", "--out", "-"))
    assert [(v["name"], v["vote"]) for v in data["dissent"]["votes"]] == [("AI-Security", "NO")]


def test_the_ledger_derives_the_same_report_as_the_discussion(isolated: Path) -> None:
    """`decisions` reads only the rules the report rests on (`ledger._DISSENT_RULES`): the same
    report as the whole derivation, for each kind of dissent and for none."""
    from discussions.model import ledger
    from discussions.model.discussion import Discussion
    from discussions.settings.workspace import Workspace

    ws = Workspace.discover()
    for n, text in enumerate((SPLIT, UNANIMOUS, MOTION)):
        path = discussion_file(isolated / "discussions", text, f"d{n}.md")
        report = ledger._decisions_of(path.read_text("utf-8"), path, ws)[-1]
        assert report.to_dict() == Discussion.load(path).dissent.to_dict()
        assert bool(report) == (text is not UNANIMOUS)


def test_status_shows_the_report_under_the_decisions(isolated: Path) -> None:
    split = _ok("status", str(_file(isolated, SPLIT)))
    report = split[split.index("Recorded over dissent: REJECT from AI-Security") :]
    assert "AI-Security voted REJECT (line " in report and CONCERN in report
    data = json.loads(_ok("status", str(isolated / "discussions" / "sessions.md"), "--json"))
    assert data["dissent"]["votes"][0]["vote"] == "REJECT"
    path = discussion_file(isolated / "discussions", UNANIMOUS, "unanimous.md")
    assert "Recorded" not in _ok("status", str(path))


def test_the_terminal_app_and_the_web_panel_show_it(isolated: Path) -> None:
    from discussions.model.discussion import Discussion
    from discussions.tui.data import side_panel
    from discussions.views.panel import panel_html

    split = Discussion.load(_file(isolated, SPLIT))
    panel = side_panel(split)
    assert "[b]Minority report[/b]" in panel and "REJECT from AI-Security" in panel
    assert 'id="panel-dissent"' in panel_html(split)
    same = Discussion.load(discussion_file(isolated / "discussions", UNANIMOUS, "u.md"))
    assert "Minority" not in side_panel(same) and "panel-dissent" not in panel_html(same)
