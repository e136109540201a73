"""Restated items are one item in every view (issue 34, item 4): a hand-off listed 8 decisions
where 2 were distinct, and `status`, `decisions`, `chronicle`, ADRs repeated them too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions import Discussion
from discussions.derive.restatements import item_key
from discussions.model.handoff import build_handoff

from ..conftest import code, out, result_of, run, sign_ai_comments

SAID = [
    ("Ann", "DECISION: Use JWT with a 1h expiry.\nQ: Who rotates the signing key?"),
    (
        "AI-Architect",
        "I agree.\n\nDECISION: use JWT with a 1h expiry\nDECISION: Keep sessions for admins.",
    ),
    ("AI-Security", "**DECISION:** Use  JWT, with a 1h expiry!\nQ: who rotates the signing key"),
    ("AI-Architect", "DECISION: use JWT with a 1h expiry.\nQ: Who rotates the signing key?"),
]


def _discussion(isolated: Path) -> Path:
    assert code(run("new", "Auth")) == 0
    path = isolated / "discussions" / "auth.md"
    with path.open("a", encoding="utf-8") as f:
        for author, body in SAID:
            f.write(f"\n---\n\nName: {author}\n\n{body}\n")
    # the participants' comments as the engine writes them (a hand-typed one counts for nothing)
    path.write_text(sign_ai_comments(path.read_text("utf-8")), encoding="utf-8")
    return path


def test_item_key_ignores_case_spacing_and_punctuation() -> None:
    assert item_key("Use  JWT, with a 1h expiry!") == item_key("use jwt with a 1h expiry")
    assert item_key("Use JWT") != item_key("Use sessions")


def test_the_state_holds_each_item_once_with_its_restaters(isolated: Path) -> None:
    d = Discussion.load(_discussion(isolated))
    assert [i.text for i in d.decisions] == [
        "Use JWT with a 1h expiry.",
        "Keep sessions for admins.",
    ]
    first = d.decisions[0]
    assert first.author == "Ann"
    assert [r.author for r in first.restated] == ["AI-Architect", "AI-Security", "AI-Architect"]
    assert first.restated[0].line > first.line
    assert "restated by AI-Architect (lines" in first.restaters
    assert [i.text for i in d.questions] == ["Who rotates the signing key?"]
    assert len(d.questions[0].restated) == 2


def test_every_view_lists_a_restated_item_once(isolated: Path) -> None:
    path = _discussion(isolated)
    handoff = build_handoff(Discussion.load(path))
    assert len(handoff.decisions) == 2 and len(handoff.questions) == 1
    status = json.loads(out(run("status", "auth.md", "--json")))
    assert len(status["decisions"]) == 2 and len(status["questions"]) == 1
    assert [r["author"] for r in status["decisions"][0]["restated"]][0] == "AI-Architect"
    shown = out(run("status", "auth.md", "-v")).split("Decisions (2):", 1)[1]
    assert shown.count("with a 1h expiry") == 1
    assert "(Ann, line 34; restated by AI-Architect (lines 43, 57), AI-Security (line 50))" in shown
    ledger = json.loads(out(run("decisions", "--json")))
    assert [e["text"] for e in ledger] == ["Use JWT with a 1h expiry.", "Keep sessions for admins."]
    assert len(ledger[0]["restated"]) == 3
    assert code(run("chronicle")) == 0
    chronicle = (isolated / "discussions" / "CHRONICLE.md").read_text("utf-8")
    assert chronicle.count("with a 1h expiry") == 1 and "AI-Security (line 50)" in chronicle
    assert code(run("close", "auth.md", "--status", "DECIDED")) == 0
    r = run("adr", "auth.md", "--json")
    assert code(r) == 0, out(r)
    adr = Path(str(result_of(r)["file"])).read_text("utf-8")
    assert adr.count("with a 1h expiry") == 1 and "AI-Security (line 50)" in adr
    prompt = build_handoff(Discussion.load(path)).to_prompt()
    assert prompt.count("with a 1h expiry") == 1 and "AI-Security (line 50)" in prompt


@pytest.mark.slow
def test_the_side_panels_and_the_summary_list_a_restated_item_once(isolated: Path) -> None:
    from discussions.model.summary import render_summary
    from discussions.tui.data import side_panel
    from discussions.views.panel import panel_html

    d = Discussion.load(_discussion(isolated))
    for shown in (side_panel(d), render_summary(d), panel_html(d)):
        assert shown.count("with a 1h expiry") == 1, shown
        assert "restated by AI-Architect (lines 43, 57), AI-Security (line 50)" in shown
