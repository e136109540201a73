"""The flip audit (`derive.positions`): a change of vote or score that cites nothing new since
the author's previous position is flagged; one that cites a comment, an evidence block, a
decision or a quoted line is not. ``flip_threshold`` turns later rounds anonymous."""

from __future__ import annotations

from pathlib import Path

import pytest

from discussions import Discussion
from discussions.syntax.render import render_comment

from ..conftest import out, run, signed, write

TRIO = ["architect", "security", "pragmatist"]


def said(d: Discussion, who: str, text: str) -> None:
    d.add_block(signed(who, text) if who.startswith("AI-") else render_comment(who, text))
    d.save()


def moved(
    second: str, between: str = "We need a rollback plan before the cache ships."
) -> Discussion:
    """AI-Pragmatist votes CHANGES, AI-Security writes `between`, AI-Pragmatist writes
    `second` (with a READY vote)."""
    d = Discussion.create("Cache", participants=TRIO)
    d.save()
    said(d, "AI-Pragmatist", "Not yet.\n\nVOTE: CHANGES")
    said(d, "AI-Security", between)
    said(d, "AI-Pragmatist", second + "\n\nVOTE: READY")
    return d


def test_a_flip_citing_nothing_new_is_flagged(isolated: Path) -> None:
    d = moved("On reflection, fine.")
    flips = d.positions.flips
    assert [f.text().split(" (line")[0] for f in flips] == [
        "AI-Pragmatist moved CHANGES -> READY citing nothing new"
    ]
    shown = out(run("status", "cache.md"))
    assert "AI-Pragmatist moved CHANGES -> READY citing nothing new" in shown


@pytest.mark.parametrize(
    ("second", "cites"),
    [
        ("AI-Security is right, and the plan exists.", "AI-Security's comment"),
        ("@security convinced me.", "AI-Security's comment"),
        (
            "As was said:\n> we need a rollback plan before the cache ships",
            "a line of AI-Security's comment",
        ),
    ],
)
def test_a_flip_citing_a_new_comment_is_not_flagged(
    isolated: Path, second: str, cites: str
) -> None:
    d = moved(second)
    [flip] = d.positions.flips
    assert flip.cites == cites and not flip.unexplained
    assert "citing nothing new" not in out(run("status", "cache.md"))


def test_naming_an_author_who_wrote_nothing_since_is_not_a_reason(isolated: Path) -> None:
    d = Discussion.create("Cache", participants=TRIO)
    d.save()
    said(d, "AI-Architect", "An index per tenant.")
    said(d, "AI-Pragmatist", "Not yet.\n\nVOTE: CHANGES")
    said(d, "AI-Pragmatist", "AI-Architect said so.\n\nVOTE: READY")
    [flip] = d.positions.flips
    assert flip.unexplained


def test_a_decision_written_since_is_a_reason(isolated: Path) -> None:
    d = moved("Now that we ship it behind a flag, fine.", "DECISION: ship it behind a flag")
    [flip] = d.positions.flips
    assert flip.cites.startswith("the decision on line")


def test_scores_are_positions_too(isolated: Path) -> None:
    d = Discussion.create("Cache", participants=TRIO)
    d.save()
    said(d, "AI-Security", "Weak.\n\nSCORE: 4")
    said(d, "AI-Security", "Better.\n\nSCORE: 9")
    p = d.positions
    assert p.grid == {"AI-Security": {0: "9"}}
    assert [(f.before, f.after, f.unexplained) for f in p.flips] == [("4", "9", True)]


FLIPPY = """\
name: flippy
participants: [architect, security, pragmatist]
phases:
  - id: talk
    voting_mode: true
    flip_threshold: 0
"""


def test_unexplained_flips_over_the_threshold_make_the_phase_anonymous(isolated: Path) -> None:
    write(isolated / "templates" / "flippy.yaml", FLIPPY)
    d = Discussion.create("Cache", template="flippy")
    d.save()
    said(d, "AI-Pragmatist", "Not yet.\n\nVOTE: CHANGES")
    said(d, "AI-Security", "@security convinced me.\n\nVOTE: CHANGES")
    said(d, "AI-Pragmatist", "AI-Security is right.\n\nVOTE: READY")  # a reason: not counted
    assert d.phase_info is not None and not d.phase_info.anonymous
    said(d, "AI-Security", "Fine then.\n\nVOTE: READY")  # no reason: over 0
    assert d.phase_info is not None and d.phase_info.anonymous
    from discussions.engine.prompt.visibility import view_for

    view = view_for(d, d.workspace.participants.get("architect"))
    assert view is not None and "AI-Security" not in view.text


@pytest.mark.slow
def test_memory_reports_the_flip_rate_across_discussions(isolated: Path) -> None:
    moved("On reflection, fine.")  # one flip citing nothing new
    d = Discussion.create("Index", participants=TRIO)
    d.save()
    said(d, "AI-Pragmatist", "Not yet.\n\nVOTE: CHANGES")
    said(d, "AI-Security", "The benchmark shows 3x.")
    said(d, "AI-Pragmatist", "AI-Security's benchmark settles it.\n\nVOTE: READY")  # cited
    said(d, "AI-Pragmatist", "Still fine.\n\nVOTE: READY")  # no change
    text = out(run("memory", "pragmatist"))
    assert (
        "Flips: 2 of 3 later positions changed (67%), 1 citing nothing new (33%), "
        "across 2 discussion(s)."
    ) in text
    import json

    flips = json.loads(out(run("memory", "pragmatist", "--json")))["flips"]
    assert flips["flips"] == 2 and flips["unexplained"] == 1 and flips["discussions"] == 2
    assert flips["unexplained_rate"] == 0.333
