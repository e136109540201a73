"""The phase graph: template validation (file and line in every error) and `run` following
transitions, fallbacks and the transition cap, with tests/scripts/deliberate.py as the provider
(a real subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions import Discussion
from discussions.cli import cli
from discussions.errors import TemplateError
from discussions.settings.config import load_yaml_document
from discussions.settings.templates import Template

from ..conftest import code, out, result_of, run, script_command, write


def load(path: Path) -> Template:
    doc = load_yaml_document(path)
    return Template.from_dict(doc.data, path, doc)


# --------------------------------------------------------------------------- validation

GOOD = """\
name: graph
phases:
  - id: a
    max_rounds: 1
    transitions:
      - {to: c, when: rounds_exhausted}
      - {to: b, when: motion_passed}
    next: b
  - id: b
    voting_mode: true
    fallback: {action: next, resolution: Move on.}
    next: c
  - id: c
"""


def test_a_valid_graph_loads(isolated: Path) -> None:
    t = load(write(isolated / "templates" / "graph.yaml", GOOD))
    a, b, _ = t.phases
    assert [(x.to, x.when) for x in a.transitions] == [
        ("c", "rounds_exhausted"),
        ("b", "motion_passed"),
    ]
    assert (
        b.fallback is not None
        and b.fallback.action == "next"
        and b.fallback.resolution == "Move on."
    )
    assert t.max_phase_transitions is None
    assert a.to_dict()["transitions"] == [
        {"to": "c", "when": "rounds_exhausted"},
        {"to": "b", "when": "motion_passed"},
    ]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            GOOD.replace(
                "{to: c, when: rounds_exhausted}", "{to: nowhere, when: rounds_exhausted}"
            ),
            6,
            "key 'phases[0].transitions[0].to' names unknown phase 'nowhere' (a, b, c)",
        ),
        (
            GOOD.replace("when: motion_passed", "when: tuesday"),
            7,
            "key 'phases[0].transitions[1].when' must be one of consensus, motion_passed, "
            "rounds_exhausted, got 'tuesday'",
        ),
        (
            GOOD.replace("action: next", "action: panic"),
            11,
            "key 'phases[1].fallback.action' must be one of end, escalate, next, got 'panic'",
        ),
        (
            "name: g\nphases:\n  - id: a\n    next: c\n  - id: b\n    next: c\n  - id: c\n",
            5,
            "key 'phases[1].id' phase 'b' is unreachable: no 'next' or transition from 'a' leads to it",
        ),
        (
            "name: g\nphases:\n  - id: a\n    next: b\n  - id: b\n    transitions:\n"
            "      - {to: a, when: rounds_exhausted}\n",
            7,
            "key 'phases[1].transitions[0].to' closes a cycle back to phase 'a'; set "
            "'max_phase_transitions' to limit how often a discussion may go round",
        ),
        (
            "name: g\nphases:\n  - id: a\n    transitions:\n      - {to: b, when: consensus}\n"
            "  - id: b\n",
            5,
            "key 'phases[0].transitions[0].when' is 'consensus' but the phase neither votes "
            "(voting_mode) nor diagnoses (diagnosis), so it could never fire",
        ),
        (
            "name: g\nphases:\n  - id: a\n    fallback: {action: next}\n",
            4,
            "key 'phases[0].fallback.action' is 'next' but the phase has no 'next'",
        ),
        (
            "name: g\nphases:\n  - id: a\n    blind: sometimes\n",
            4,
            "key 'phases[0].blind' must be true or false, not text 'sometimes'",
        ),
        (
            "name: g\nmax_phase_transitions: 0\nphases:\n  - id: a\n",
            2,
            "key 'max_phase_transitions' must be a whole number (1 or more), got 0",
        ),
        (
            "name: g\nphases:\n  - id: a\n    voting_mod: true\n",
            4,
            "key 'phases[0].voting_mod' is not a phase setting; did you mean 'voting_mode'?",
        ),
    ],
)
def test_validation_errors_name_file_line_and_key(
    isolated: Path, text: str, line: int, message: str
) -> None:
    path = write(isolated / "templates" / "g.yaml", text)
    with pytest.raises(TemplateError) as info:
        load(path)
    assert str(info.value) == f"{path.resolve()}: line {line}: {message}"


def test_a_cycle_with_a_cap_is_valid(isolated: Path) -> None:
    text = (
        "name: g\nmax_phase_transitions: 3\nphases:\n  - id: a\n    next: b\n  - id: b\n"
        "    transitions:\n      - {to: a, when: rounds_exhausted}\n"
    )
    assert load(write(isolated / "templates" / "g.yaml", text)).max_phase_transitions == 3


def test_a_broken_graph_is_reported_by_templates_list(isolated: Path) -> None:
    write(isolated / "templates" / "g.yaml", "name: g\nphases:\n  - id: a\n  - id: b\n")
    r = CliRunner().invoke(cli, ["templates", "list"], catch_exceptions=False)
    assert "templates/g.yaml:4: key 'phases[1].id' phase 'b' is unreachable" in out(r)


def test_bundled_templates_are_valid_graphs(isolated: Path) -> None:
    r = CliRunner().invoke(cli, ["templates", "list", "--json"], catch_exceptions=False)
    assert code(r) == 0 and "unreachable" not in out(r) and "cycle" not in out(r)


# --------------------------------------------------------------------------- run

FLOW = """\
name: flow
participants: [architect, security, pragmatist]
consensus_status: DECIDED
phases:
  - id: start
    max_rounds: 1
    transitions:
      - {to: review, when: rounds_exhausted}
    next: extra
  - id: extra
    next: review
  - id: review
    voting_mode: true
    consensus_mode: score
    max_rounds: 2
    transitions:
      - {to: done, when: consensus}
    fallback: {action: end, resolution: "Shelved until the next planning meeting."}
    next: done
  - id: done
"""

CYCLE = """\
name: cycle
participants: [architect, security, pragmatist]
max_phase_transitions: 2
phases:
  - id: propose
    max_rounds: 1
    transitions:
      - {to: critique, when: rounds_exhausted}
  - id: critique
    max_rounds: 1
    transitions:
      - {to: propose, when: rounds_exhausted}
"""

NEXT = """\
name: nextfb
participants: [architect, security, pragmatist]
phases:
  - id: vote
    voting_mode: true
    max_rounds: 1
    fallback: {action: next, resolution: "No agreement; the lead decides."}
    next: lead
  - id: lead
    voting_mode: true
    max_rounds: 1
    fallback: {action: escalate}
"""


@pytest.fixture
def stand_in(isolated: Path, providers_file, tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(mode: str) -> None:
        providers_file({"standin": script_command("deliberate.py", mode, str(tmp_path / "memory"))})
        write(isolated / "discussions.yaml", "providers:\n  default: standin\n  detect: false\n")
        write(isolated / "templates" / "flow.yaml", FLOW)
        write(isolated / "templates" / "cycle.yaml", CYCLE)
        write(isolated / "templates" / "nextfb.yaml", NEXT)

    return make


def transitions(path: Path) -> list[str]:
    return [
        line for line in path.read_text().splitlines() if line.startswith("<!-- PHASE-TRANSITION")
    ]


def test_run_follows_transitions(stand_in, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    stand_in("agree2")
    assert code(run("new", "Flow", "--template", "flow")) == 0
    res = result_of(run("run", "flow.md", "--json"))
    assert res["stopped"] == "consensus", res
    assert res["status"] == "DECIDED" and res["phase"] == "done"
    path = isolated / "discussions" / "flow.md"
    assert transitions(path) == [
        "<!-- PHASE-TRANSITION: start -> review -->",  # rounds_exhausted, not `next: extra`
        "<!-- PHASE-TRANSITION: review -> done -->",  # consensus
    ]
    assert Discussion.load(path).warnings == []


def test_fallback_end_stops_the_run_with_its_resolution(stand_in, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    stand_in("never")
    assert code(run("new", "Flow", "--template", "flow")) == 0
    res = result_of(run("run", "flow.md", "--rounds", "9", "--json"))
    assert res["stopped"] == "ended" and res["rounds"] == 3
    assert res["phase"] == "review" and res["status"] == "OPEN"
    text = (isolated / "discussions" / "flow.md").read_text()
    assert "<!-- FALLBACK: end | phase: review | rounds: 2 -->" in text
    assert (
        "*Phase 'review' used its 2 rounds; fallback: end. Shelved until the next planning meeting.*"
        in text
    )
    assert "<!-- RUN-STOP: ended | rounds: 3 | run: 1 | " in text
    assert json.loads(out(run("status", "flow.md", "--json")))["run"]["stopped"] == "ended"


def test_fallback_next_then_escalate(stand_in, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    stand_in("never")
    assert code(run("new", "Lead", "--template", "nextfb")) == 0
    res = result_of(run("run", "lead.md", "--rounds", "9", "--json"))
    assert res["stopped"] == "max_rounds" and res["rounds"] == 2 and res["phase"] == "lead"
    text = (isolated / "discussions" / "lead.md").read_text()
    assert "<!-- FALLBACK: next | phase: vote | rounds: 1 -->" in text
    assert "<!-- PHASE-TRANSITION: vote -> lead -->" in text
    assert "<!-- FALLBACK: escalate | phase: lead | rounds: 1 -->" in text
    assert "<!-- ESCALATION: max_rounds -->" in text


def test_a_cycle_stops_at_the_transition_cap(stand_in, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    stand_in("never")
    assert code(run("new", "Loop", "--template", "cycle")) == 0
    res = result_of(run("run", "loop.md", "--rounds", "20", "--json"))
    assert res["stopped"] == "max_transitions", res
    assert res["rounds"] == 3
    path = isolated / "discussions" / "loop.md"
    assert transitions(path) == [
        "<!-- PHASE-TRANSITION: propose -> critique -->",
        "<!-- PHASE-TRANSITION: critique -> propose -->",
    ]
    assert "<!-- ESCALATION: max_transitions -->" in path.read_text()
    assert res["escalation"]


def test_motion_passed_moves_on(stand_in, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    stand_in("never")
    write(
        isolated / "templates" / "motion.yaml",
        "name: motion\nparticipants: [architect]\nphases:\n  - id: debate\n    max_rounds: 3\n"
        "    transitions:\n      - {to: act, when: motion_passed}\n    next: act\n  - id: act\n"
        "    voting_mode: true\n",
    )
    assert code(run("new", "Motion", "--template", "motion")) == 0
    path = isolated / "discussions" / "motion.md"
    with path.open("a") as f:  # what the motions feature records when a motion passes
        f.write("\n<!-- MOTION-RESULT: passed | yes: 2 | no: 0 | abstain: 0 | line: 9 -->\n")
    res = result_of(run("run", "motion.md", "--rounds", "2", "--json"))
    assert transitions(path) == ["<!-- PHASE-TRANSITION: debate -> act -->"]
    assert res["rounds"] == 2 and res["phase"] == "act"
