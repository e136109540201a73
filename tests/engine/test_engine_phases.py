"""The phase rules (`engine.turn.phases`) and the chair of a run (`engine.council.chair`), called directly on
discussion files written in a temporary project."""

from __future__ import annotations

from pathlib import Path

from discussions import Discussion
from discussions.engine.council import chair
from discussions.engine.council.motions import render_result
from discussions.engine.turn import phases

from ..conftest import signed, write

TRIO = ["architect", "security", "pragmatist"]


def said(d: Discussion, alias: str, text: str, vote: str | None = None) -> None:
    """Append a comment by participant `alias`, as the engine writes one, and save."""
    d.add_block(signed(d.workspace.participants.get(alias).name, text, vote))
    d.save()


def new(title: str, template: str, participants: list[str] | None = None) -> Discussion:
    d = Discussion.create(title, template=template, participants=participants or TRIO)
    d.save()
    return d


# --------------------------------------------------------------------------- phases


def test_a_phase_advances_once_every_participant_has_spoken(isolated: Path) -> None:
    d = new("Search", "feature")
    assert d.phase == "initial_feedback"
    said(d, "architect", "An index per tenant.")
    said(d, "security", "Filter by tenant before ranking.")
    assert not phases.all_mentioned_responded(d)
    assert phases.auto_advance(d) is None
    said(d, "pragmatist", "Start with Postgres full-text search.")
    change = phases.auto_advance(d)
    assert change == phases.AutoAdvance(
        "phase", "detailed_review", "every participant has responded"
    )
    assert phases.settle(d) == [change]
    d.reload()
    assert d.phase == "detailed_review"
    assert "PHASE-TRANSITION" in d.path.read_text(encoding="utf-8")
    assert phases.settle(d) == []  # detailed_review has no trigger: nothing more to do


def test_an_unanswered_mention_holds_the_phase(isolated: Path) -> None:
    d = new("Search", "feature")
    for alias in TRIO:
        said(d, alias, "A first thought.")
    assert phases.all_mentioned_responded(d)
    said(d, "architect", "@security, is an index per tenant enough isolation?")
    assert not phases.all_mentioned_responded(d)
    assert phases.auto_advance(d) is None
    said(d, "security", "It is, with a tenant filter on every query.")
    assert phases.all_mentioned_responded(d)


def test_consensus_moves_on_and_a_terminal_end_state_decides(isolated: Path) -> None:
    d = new("Patch", "code-review")
    assert d.phase == "review"
    for alias in TRIO[:2]:
        said(d, alias, "Looks right.", vote="READY")
    said(d, "pragmatist", "Ship it.", vote="READY")
    # perfectionist is not in this discussion's participants; the three voters agree.
    changes = phases.settle(d)
    assert [(c.kind, c.target) for c in changes] == [("phase", "approved"), ("status", "CLOSED")]
    d.reload()
    assert (d.phase, d.status) == ("approved", "CLOSED")


def test_a_reopened_end_state_stays_open(isolated: Path) -> None:
    d = new("Patch", "code-review")
    for alias in TRIO:
        said(d, alias, "Looks right.", vote="READY")
    phases.settle(d)
    d.reload()
    d.set_status("OPEN")
    d.save()
    assert phases.auto_advance(d) is None
    assert phases.settle(d) == []
    assert d.status == "OPEN"


def test_a_voting_terminal_phase_without_consensus_does_not_decide(isolated: Path) -> None:
    d = new("Plan", "feature")
    d.advance("consensus_vote")
    d.save()
    said(d, "architect", "Not yet.", vote="CHANGES")
    said(d, "security", "Fine.", vote="READY")
    assert phases.auto_advance(d) is None
    said(d, "architect", "Now it is.", vote="READY")
    said(d, "pragmatist", "Agreed.", vote="READY")
    change = phases.auto_advance(d)
    assert change is not None and (change.kind, change.target) == ("status", "DECIDED")


# --------------------------------------------------------------------------- chair

GRAPH = """\
name: graph
max_phase_transitions: 1
phases:
  - id: a
    max_rounds: 2
    transitions:
      - {to: b, when: motion_passed}
    fallback: {action: end, resolution: Nobody moved it on.}
    next: b
  - id: b
    voting_mode: true
    transitions:
      - {to: c, when: consensus}
    next: c
  - id: c
"""


class Escalations:
    """The chair's escalate callback: records each call and answers the stop reason."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def __call__(self, d: Discussion, reason: str, text: str) -> str:
        self.calls.append((reason, text))
        return "escalated"


def graph_discussion(project: Path) -> Discussion:
    write(project / "templates" / "graph.yaml", GRAPH)
    return new("Graph", "graph")


def test_a_phase_without_a_graph_is_left_to_the_older_rules(isolated: Path) -> None:
    d = new("Search", "feature")
    assert chair.after_round(d, 5, Escalations()) == chair.Step(False)


def test_the_fallback_applies_when_the_rounds_are_used_up(isolated: Path) -> None:
    d = graph_discussion(isolated)
    escalate = Escalations()
    assert chair.after_round(d, 1, escalate) == chair.Step(False)  # one round left
    assert chair.after_round(d, 2, escalate) == chair.Step(True, "ended")
    text = d.path.read_text(encoding="utf-8")
    assert "<!-- FALLBACK: end | phase: a | rounds: 2 -->" in text
    assert "Phase 'a' used its 2 rounds; fallback: end. Nobody moved it on." in text
    assert escalate.calls == []


def test_a_passed_motion_moves_on_and_the_transition_cap_escalates(isolated: Path) -> None:
    d = graph_discussion(isolated)
    assert not chair.motion_passed(d)
    d.add_block(render_result(12, "passed", {"YES": 3}))
    d.save()
    assert chair.motion_passed(d)
    escalate = Escalations()
    assert chair.after_round(d, 1, escalate) == chair.Step(True, None)
    d.reload()
    assert d.phase == "b" and d.phase_transitions == 1
    assert not chair.motion_passed(d)  # the motion passed in the phase before
    for alias in TRIO:
        said(d, alias, "Agreed.", vote="READY")
    assert chair.phase_consensus(d)
    # The consensus transition would be the second; the template allows one.
    assert chair.after_round(d, 1, escalate) == chair.Step(True, "escalated")
    assert escalate.calls == [("max_transitions", "the limit of 1 phase transitions is reached")]
    d.reload()
    assert d.phase == "b"
