"""The hand-off of a decided discussion: is_decided, build_handoff, the prompt and the JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

from discussions.model.discussion import Discussion
from discussions.model.handoff import build_handoff, is_decided
from discussions.syntax.evidence import Block, render_block

from ..conftest import sign_ai_comments, write
from ..support.documents import DECIDED, decided_file


def _discussion(folder: Path, status: str = "DECIDED", extra: str = "") -> Discussion:
    return Discussion.load(decided_file(folder, status, extra))


def test_finished_status_is_decided(isolated: Path) -> None:
    ok, why = is_decided(_discussion(isolated))
    assert ok and "DECIDED" in why


def test_open_and_refused_statuses_are_not_decided(isolated: Path) -> None:
    cases = (
        ("OPEN", "no motion has passed"),
        ("REJECTED", "REJECTED"),
        ("ABANDONED", "ABANDONED"),
        ("WITHDRAWN", "WITHDRAWN"),
        ("UNAPPROVED", "UNAPPROVED"),
    )
    for status, word in cases:
        ok, why = is_decided(_discussion(isolated, status))
        assert not ok and word in why, status
    assert "--force --reason" in is_decided(_discussion(isolated, "OPEN"))[1]


def test_a_passed_motion_decides_an_open_discussion(isolated: Path) -> None:
    motion = (
        "\nName: AI-Architect\nMOTION: Adopt the LRU cache\n\n---\n\n"
        "Name: AI-Pragmatist\nSECOND: yes\nBALLOT: YES\n\n---\n\n"
        "Name: AI-Architect\nBALLOT: YES\n\n---\n"
    )
    d = _discussion(isolated, "OPEN", motion)
    assert [m.result for m in d.motions] == ["passed"]
    ok, why = is_decided(d)
    assert ok and "motion passed" in why and "Adopt the LRU cache" in why
    assert [i.source for i in build_handoff(d).decisions] == ["decision", "motion"]


def test_build_handoff_collects_the_state(isolated: Path) -> None:
    h = build_handoff(_discussion(isolated))
    assert h.decided and h.title == "Cache layer"
    assert [i.text for i in h.decisions] == ["Put an LRU cache in front of the catalogue reader."]
    assert h.decisions[0].author == "AI-Architect" and h.decisions[0].line > 0
    todos = {t.text: t for t in h.todos}
    tests_todo = todos["@pragmatist write the cache tests"]
    assert tests_todo.assignee == "pragmatist" and not tests_todo.done
    assert todos["Document the cache size setting"].assignee is None
    assert todos["Document the cache size setting"].done
    sources = [(c.source, c.text) for c in h.constraints]
    assert sources[0] == (
        "context",
        "Reads of the catalogue are slow; the database must stay the source of truth.",
    )
    assert ("concern", "Invalidation on writes must be immediate.") in sources
    assert ("Notes", "The catalogue has two million rows.") in [
        (c.section, c.text) for c in h.constraints
    ]
    assert h.constraints[0].line == 9  # the "## Context" line
    assert [q.text for q in h.questions] == ["Which size limit by default?"]


def test_to_dict_is_the_artifact_with_its_approval(isolated: Path) -> None:
    h = build_handoff(_discussion(isolated))
    data = json.loads(json.dumps(h.to_dict()))
    assert data["format"] == "discussions-handoff/1"
    assert data["approval"] == {"status": "pending", "by": None, "at": None}
    assert data["decided"] is True
    assert set(data) >= {"decisions", "todos", "constraints", "evidence", "open_questions"}
    h.approve("Rob <rob@example.org>", "2026-11-24T01:00:00Z")
    assert h.to_dict()["approval"] == {
        "status": "approved",
        "by": "Rob <rob@example.org>",
        "at": "2026-11-24T01:00:00Z",
    }


def test_to_prompt_says_what_to_do_and_what_not_to(isolated: Path) -> None:
    prompt = build_handoff(_discussion(isolated)).to_prompt()
    assert prompt.startswith(
        "# Implement a decided discussion\n\nThis decision was recorded with 1 reservation(s) "
        "from READY voters. Read the Minority report"
    )  # AI-Architect's CONCERN beside its READY: nobody answered (`derive.dissent`)
    assert "\n\n## Rules\n\n" in prompt
    assert "```text\nCache layer\n```" in prompt
    assert "```text\nPut an LRU cache in front of the catalogue reader.\n```" in prompt
    assert "(open) for @pragmatist, AI-Architect, line" in prompt
    assert re.search(
        r"TODO 2 \(done\), AI-Architect, line \d+:\n```text\nDocument the cache", prompt
    )
    assert "Which size limit by default?" in prompt
    assert "Do not commit" in prompt and "a fresh clone" in prompt
    assert prompt == build_handoff(_discussion(isolated)).to_prompt()


def test_evidence_blocks_are_cited(isolated: Path) -> None:
    block = Block(
        1,
        "read src/app.py",
        "AI-Architect",
        "fulfilled",
        "2026-11-24T00:00:00Z",
        ref="blob 0123456789abcdef",
        content="print('hi')\n",
    )
    d = _discussion(isolated, extra="\n" + render_block(block))
    h = build_handoff(d)
    assert [(e.number, e.request, e.ref) for e in h.evidence] == [
        (1, "read src/app.py", "blob 0123456789abcdef")
    ]
    assert "```text\nread src/app.py\nat blob 0123456789abcdef\n```" in h.to_prompt()
    assert h.to_dict()["evidence"][0]["number"] == 1


def test_a_templates_placeholders_and_footer_are_not_constraints(isolated: Path) -> None:
    """A discussion made by `new` keeps the template's unfilled ``[Requirement 1]`` lines and
    its ``---`` footer in the preamble; neither is a constraint for the lead."""
    from click.testing import CliRunner

    from discussions.cli import cli

    out = CliRunner().invoke(cli, ["new", "Cache the reports", "--context", "Keep the API."])
    assert out.exit_code == 0, out.output
    (path,) = sorted(isolated.rglob("cache-the-reports.md"))
    texts = [c.text for c in build_handoff(Discussion.load(path)).constraints]
    assert texts == ["Keep the API."]


MOTION_PASSED = (
    "\nName: AI-Architect\nMOTION: Adopt the LRU cache\n\n---\n\n"
    "Name: AI-Pragmatist\nSECOND: yes\nBALLOT: YES\n\n---\n\n"
    "Name: AI-Architect\nBALLOT: YES\n\n---\n"
)
REOPENED = (
    "\n<!-- STATUS-CHANGE: OPEN -> DECIDED -->\n\n---\n\n"
    "<!-- STATUS-CHANGE: DECIDED -> OPEN -->\n\n---\n"
)


def test_a_motion_passed_before_a_reopen_decides_nothing(isolated: Path) -> None:
    d = _discussion(isolated, "OPEN", MOTION_PASSED + REOPENED)
    assert d.status == "OPEN" and [m.result for m in d.motions] == ["passed"]
    ok, why = is_decided(d)
    assert not ok and "reopened" in why and "--force --reason" in why
    again = MOTION_PASSED.replace("Adopt the LRU cache", "Adopt the LFU cache")
    d = _discussion(isolated, "OPEN", MOTION_PASSED + REOPENED + again)
    ok, why = is_decided(d)
    assert ok and "Adopt the LFU cache" in why


def test_only_finished_statuses_decide(isolated: Path) -> None:
    for status in ("POSTPONED", "SUPERSEDED", "DIAGNOSED"):  # no finished status of `feature`
        ok, why = is_decided(_discussion(isolated, status, MOTION_PASSED))
        assert not ok and f"{status}, which is not a finished status" in why, status
    for status in ("CLOSED", "DECIDED", "ACCEPTED", "IMPLEMENTED"):
        assert is_decided(_discussion(isolated, status))[0], status
    text = DECIDED.format(status="DIAGNOSED").replace(
        "<!-- Participants:", "<!-- Template: diagnostic -->\n<!-- Participants:"
    )
    d = Discussion.load(write(isolated / "diag.md", sign_ai_comments(text)))
    assert is_decided(d) == (True, "the discussion is DIAGNOSED")


TODO_LOGIC = """
<!-- DISCUSSION -->
<!-- Title: Todo logic -->
<!-- Status: DECIDED -->
<!-- Participants: architect, pragmatist -->

# Todo logic

---

Name: Rob
DONE: write the release notes

---

Name: AI-Architect
DECISION: do it
TODO: fix cache
TODO: @AI-Pragmatist write docs
ASSIGNED: @Rob audit auth
TODO: write the release notes
TODO: write the cache tests
TODO: migrate the schema
VOTE: READY

---

Name: Rob
DONE: prefix cache keys with the version
DONE: write the cache tests in tests/test_cache.py
DONE: @pragmatist Migrate the   schema!
"""


def test_todos_are_done_by_a_later_done_with_the_same_words(isolated: Path) -> None:
    h = build_handoff(Discussion.load(write(isolated / "todo.md", sign_ai_comments(TODO_LOGIC))))
    done = {t.text: t.done for t in h.todos}
    assert done == {
        "fix cache": False,  # "prefix cache keys" holds the letters, not the words
        "@AI-Pragmatist write docs": False,
        "@Rob audit auth": False,
        "write the release notes": False,  # its DONE came before it
        "write the cache tests": True,  # a DONE starting with its words
        "migrate the schema": True,
    }
    owners = {t.text: t.assignee for t in h.todos}
    assert owners["@AI-Pragmatist write docs"] == "pragmatist"  # the participant's alias
    assert owners["@Rob audit auth"] == "rob"
    assert owners["fix cache"] is None
