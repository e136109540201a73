"""The state of a file (`derive.rules` over a `derive.state.State`): `derive()` called directly on
discussion text, with the workspace of a temporary project."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from discussions.derive.rules import body_digest, derive, engine_meta, strip_meta
from discussions.derive.state import State
from discussions.settings.workspace import Workspace
from discussions.syntax.markers import parse_score
from discussions.syntax.render import render_comment, render_phase_transition

from ..conftest import signed

HEADER = """\
<!-- DISCUSSION -->
<!-- Title: Search -->
<!-- Template: feature -->
<!-- Phase: initial_feedback -->
<!-- Status: OPEN -->
<!-- Participants: architect, security, pragmatist -->

# Search

---

"""


def file_of(*blocks: str, header: str = HEADER) -> str:
    return header + "\n---\n\n".join(blocks) + "\n---\n"


@pytest.fixture
def ws(isolated: Path) -> Workspace:
    return Workspace.discover()


def messages(s: State) -> list[tuple[int, str]]:
    return [(w.line, w.message) for w in s.warnings]


def test_a_clean_file_derives_its_header_and_comments(ws: Workspace) -> None:
    text = file_of(
        signed("AI-Architect", "Q: one index or many?\n\n@security, your view?"),
        render_comment("Rob", "TODO: measure the index size", vote="READY"),
    )
    s = derive(text, ws, "search")
    assert (s.title, s.phase, s.status) == ("Search", "initial_feedback", "OPEN")
    assert s.template is not None and s.template.name == "feature"
    assert s.participants == ["architect", "security", "pragmatist"]
    assert [c.author for c in s.comments] == ["AI-Architect", "Rob"]
    assert s.humans == {"Rob"}
    assert [i.text for i in s.items["Q"]] == ["one index or many?"]
    assert [(i.text, i.author) for i in s.items["TODO"]] == [("measure the index size", "Rob")]
    assert s.votes == {"Rob": "READY"}
    assert [(p.alias, p.by) for p in s.pending] == [("security", "AI-Architect")]
    assert s.warnings == []


def test_votes_count_from_the_last_reset_and_background_voices_do_not(ws: Workspace) -> None:
    text = file_of(
        signed("AI-Pragmatist", "Early.", vote="REJECT"),
        signed("AI-Architect", "Early too.", vote="CHANGES"),
        render_phase_transition("initial_feedback", "detailed_review").rstrip("\n"),
        signed("AI-Security", "Fine now.", vote="READY"),
        signed("AI-Researcher", "For the record.", vote="REJECT"),
        signed("AI-Architect", "Changed my mind.", vote="CHANGES"),
        signed("AI-Architect", "And again.", vote="READY"),
    )
    s = derive(text, ws)
    assert s.phase == "detailed_review"
    # The votes before the reset are gone, the researcher does not vote, and the dict is in
    # the order of the latest votes.
    assert list(s.votes.items()) == [("AI-Security", "READY"), ("AI-Architect", "READY")]


def test_scores_are_clamped_and_empty_pending_issues_dropped(ws: Workspace) -> None:
    text = file_of(
        signed("AI-Architect", "SCORE: 12\nPENDING: none"),
        signed("AI-Security", "SCORE: 7/10\nPENDING: rate limits\nPENDING: n/a."),
        signed("AI-Pragmatist", "SCORE: soon"),
    )
    s = derive(text, ws)
    assert s.scores == {"AI-Architect": 10, "AI-Security": 7}
    assert [(i.author, i.text) for i in s.pending_issues] == [("AI-Security", "rate limits")]
    [(line, message)] = messages(s)
    assert message == "invalid score `soon` (expected a number 0-10); not counted"
    assert text.split("\n")[line - 1] == "SCORE: soon"


@pytest.mark.parametrize(
    ("text", "score"),
    [("8", 8), ("8/10", 8), ("8.5", 8), ("**9**", 9), ("-3", 0), ("11", 10), ("eight", None)],
)
def test_parse_score(text: str, score: int | None) -> None:
    assert parse_score(text) == score


def test_a_mistyped_mention_is_reported_not_waited_for(ws: Workspace) -> None:
    text = file_of(render_comment("Rob", "@securty please check.\n\n@securty again."))
    s = derive(text, ws)
    assert s.pending == []
    assert [(m, close) for m, close, _ in s.mention_typos] == [("securty", "security")]
    assert [m for _, m in messages(s)] == [
        "@securty matches no participant; did you mean @security?"
    ]


def test_an_engine_comment_cut_short_no_longer_matches_its_digest(ws: Workspace) -> None:
    body = "The whole answer, in two paragraphs.\n\nThe second one."
    meta = f"provider: mock | digest: {body_digest(body)}"
    whole = file_of(render_comment("AI-Architect", body, meta=meta))
    assert derive(whole, ws).warnings == []
    cut = whole.replace("\n\nThe second one.", "")
    [(line, message)] = messages(derive(cut, ws))
    assert message.startswith("comment by AI-Architect does not match the digest")
    assert cut.split("\n")[line - 1] == "Name: AI-Architect"


def test_header_problems_and_conflict_lines_are_warnings_in_line_order(ws: Workspace) -> None:
    header = HEADER.replace("Template: feature", "Template: nope").replace(
        "<!-- DISCUSSION -->\n", ""
    )
    text = file_of(
        render_comment("Rob", "<<<<<<< ours\nyes\n=======\nno\n>>>>>>> theirs"), header=header
    )
    s = derive(text, ws)
    found = messages(s)
    assert found[0] == (1, "missing `<!-- DISCUSSION -->` header line")
    assert (2, "unknown template 'nope'") in found
    assert sum("merge-conflict" in m for _, m in found) == 3
    assert [line for line, _ in found] == sorted(line for line, _ in found)


def test_the_title_falls_back_to_a_heading_then_the_file_name(ws: Workspace) -> None:
    no_title = HEADER.replace("<!-- Title: Search -->\n", "")
    assert derive(file_of("Name: Rob\n\nHi.", header=no_title), ws, "stem").title == "Search"
    not_a_heading = no_title.replace("# Search", "#Search")
    assert derive(file_of("Name: Rob\n\nHi.", header=not_a_heading), ws, "stem").title == "stem"


def test_engine_meta_and_the_digest_ignore_what_editors_change(ws: Workspace) -> None:
    body = "<!-- provider: mock | duration: 1.2s -->\n\nAn answer.  \r\nSecond line.\n\n"
    assert engine_meta(body) == {"provider": "mock", "duration": "1.2s"}
    assert engine_meta("No metadata.\n<!-- a comment -->") == {}
    assert strip_meta(body).strip() == "An answer.  \r\nSecond line."
    assert body_digest(strip_meta(body)) == body_digest("An answer.\nSecond line.")
    assert body_digest("An answer.") != body_digest("An answer!")


def test_the_collector_pauses_while_deriving_and_resumes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules run with the cyclic collector off (a long file makes many small objects);
    it is on again afterwards, also when derivations overlap in threads, and stays off for a
    caller that had turned it off."""
    import gc
    import threading

    from discussions.derive import rules

    seen: list[bool] = []
    started, release = threading.Event(), threading.Event()

    def probe(s: rules.State) -> None:
        seen.append(gc.isenabled())
        if threading.current_thread() is not threading.main_thread():
            started.set()
            release.wait(10)

    monkeypatch.setattr(rules, "RULES", [*rules.RULES, ("probe", probe)])
    ws = Workspace.discover()
    assert gc.isenabled()
    other = threading.Thread(target=rules.derive, args=("Name: A\n", ws))
    other.start()
    assert started.wait(10)
    rules.derive("Name: B\n", ws)  # ends while the other thread is still deriving
    assert not gc.isenabled()
    release.set()
    other.join(10)
    assert gc.isenabled() and seen == [False, False]
    gc.disable()
    try:
        rules.derive("Name: C\n", ws)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.fixture
def remembering() -> Iterator[None]:
    """`comment_parts` remembering, as the language server has it."""
    from discussions.derive.rules import remember_comments

    remember_comments()
    yield
    remember_comments(False)


def test_deriving_again_reuses_unchanged_comments_without_sharing_what_callers_change(
    ws: Workspace, remembering: None
) -> None:
    """Comment bodies seen before are not read again (an editor derives on every key), and
    what one derived state holds cannot be changed through another."""
    from discussions.derive.readings import _comment_parts

    text = (
        "<!-- DISCUSSION -->\n<!-- Title: T -->\n<!-- Phase: initial_feedback -->\n\n"
        "---\n\nName: Rob\n\n<!-- at: 2026-01-01T00:00:00Z -->\nQ: why?\n\nVOTE: READY\n\n"
        "---\n\nName: Ines\n\n"
    )
    first = derive(text, ws)
    hits = _comment_parts.cache_info().hits
    first.comments[0].markers.clear()
    first.comments[0].meta["x"] = "y"
    again = derive(text + "VOTE: CHANGES\n", ws)
    assert _comment_parts.cache_info().hits > hits
    assert [m.kind for m in again.comments[0].markers] == ["Q", "VOTE"]
    assert again.comments[0].at is not None and "x" not in again.comments[0].meta
    assert again.votes == first.votes | {"Ines": "CHANGES"}


def test_comments_moved_down_by_an_edit_above_them_keep_right_lines_without_a_new_read(
    ws: Workspace, remembering: None
) -> None:
    from discussions.derive.readings import _body_parts, _comment_parts

    text = "<!-- DISCUSSION -->\n<!-- Title: T -->\n<!-- Phase: initial_feedback -->\n\n" + "".join(
        f"---\n\nName: P{i}\n\nQ: question {i}?\n\n@architekt look\n\nVOTE: MAYBE\n\n"
        for i in range(5)
    )
    derive(text, ws)
    edited = text.replace("Q: question 0?", "Q: question 0?\nmore\nlines", 1)
    hits = _body_parts.cache_info().hits
    moved = derive(edited, ws)
    assert _body_parts.cache_info().hits - hits >= 4  # the four comments below the edit
    _comment_parts.cache_clear()
    _body_parts.cache_clear()
    fresh = derive(edited, ws)
    assert [c.markers for c in moved.comments] == [c.markers for c in fresh.comments]
    assert [c.mention_lines for c in moved.comments] == [c.mention_lines for c in fresh.comments]
    assert moved.warnings == fresh.warnings
    assert sum("invalid vote" in w.message for w in fresh.warnings) == 5


def test_every_derivation_is_a_rule_of_the_list(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`derive` runs its rule list and nothing else: with the list emptied, a file with a
    conflict line, an evidence request, a draft and an apply block derives to nothing."""
    from discussions.derive import rules

    text = (
        file_of(
            "Name: Rob\n\nEVIDENCE: read README.md\n\nDECISION: ship it\n",
            "<!-- DRAFT: 1 | by: architect | digest: x -->\n",
            "<!-- APPLY: 1 | lead: architect | provider: mock | branch: b -->\n",
        )
        + "<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n"
    )
    full = derive(text, ws)
    assert full.evidence and full.drafts is not None and full.comments
    assert any(w.code == "merge-conflict" for w in full.warnings)
    monkeypatch.setattr(rules, "RULES", [])
    bare = derive(text, ws)
    assert (bare.comments, bare.evidence, bare.drafts, bare.applies) == ([], [], [], [])
    assert [w.message for w in bare.warnings] == [w.message for w in bare.doc.warnings]


def test_the_verdict_state_of_a_file_is_derived_by_rules(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Expected voters, the first ballot, positions, the phase rules and usage are fields of
    the state that rules fill, not computed by the views."""
    from discussions.derive import rules

    answer = signed("AI-Architect", "Fine by me.", vote="READY")
    text = file_of("Name: Rob\n\nVOTE: CHANGES\n", answer, "Name: Rob\n\nVOTE: READY\n")
    s = derive(text, ws)
    assert "AI-Architect" in s.expected_voters
    assert {who: vote for who, (vote, _) in s.first_ballot.items()} == {
        "Rob": "CHANGES",
        "AI-Architect": "READY",
    }
    assert s.positions.grid["Rob"] and [f.author for f in s.positions.flips] == ["Rob"]
    assert s.phase_info is not None and s.phase_info.id == "initial_feedback"
    assert (s.usage.total.calls, list(s.usage.by_participant)) == (1, ["AI-Architect"])
    monkeypatch.setattr(rules, "RULES", [])
    bare = derive(text, ws)
    assert (bare.expected_voters, bare.first_ballot, bare.phase_info) == ([], {}, None)
    assert (bare.positions.grid, bare.usage.total.calls) == ({}, 0)
