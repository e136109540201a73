"""Who speaks in a turn (`engine.turn.routing`) and what each participant sees of a blind or anonymous
phase (`engine.prompt.visibility`), called directly on discussion files in a temporary project."""

from __future__ import annotations

from pathlib import Path

import pytest

from discussions import Discussion
from discussions.engine.prompt.visibility import label, view_for
from discussions.engine.turn.routing import select_participants
from discussions.errors import UnknownParticipant
from discussions.syntax.render import render_comment

from ..conftest import write

TRIO = ["architect", "security", "pragmatist"]

HIDDEN = """\
name: hidden
phases:
  - id: open
    next: blind
  - id: blind
    blind: true
    next: masked
  - id: masked
    anonymous: true
"""


def said(d: Discussion, alias: str, text: str) -> None:
    d.add_block(render_comment(d.workspace.participants.get(alias).name, text))
    d.save()


def new(template: str = "feature") -> Discussion:
    d = Discussion.create("Search", template=template, participants=TRIO)
    d.save()
    return d


def aliases(d: Discussion, *requested: str) -> list[str]:
    return [p.alias for p in select_participants(d, requested)]


# --------------------------------------------------------------------------- turns


def test_by_default_the_mentioned_speak_else_everyone(isolated: Path) -> None:
    d = new()
    assert aliases(d) == TRIO
    said(d, "architect", "@pragmatist and @security: which index? And @someone-else?")
    assert aliases(d) == ["pragmatist", "security"]  # in the order of the mentions
    said(d, "pragmatist", "Postgres.")
    assert aliases(d) == ["security"]


def test_named_participants_all_and_repeats(isolated: Path) -> None:
    d = new()
    assert aliases(d, "@Security", " designer ", "security") == ["security", "designer"]
    assert aliases(d, "all", "architect") == TRIO
    assert aliases(d, "", "@") == TRIO  # nothing named: the default


def test_an_unknown_alias_fails_before_anything_runs(isolated: Path) -> None:
    d = new()
    with pytest.raises(UnknownParticipant, match="nobody"):
        select_participants(d, ["architect", "nobody"])


# --------------------------------------------------------------------------- visibility


def hidden(project: Path) -> Discussion:
    write(project / "templates" / "hidden.yaml", HIDDEN)
    d = new("hidden")
    said(d, "architect", "An index per tenant.")
    said(d, "security", "I agree with AI-Architect; @architect, add a tenant filter.")
    return d


def test_an_open_phase_has_no_view(isolated: Path) -> None:
    d = hidden(isolated)
    assert view_for(d, d.workspace.participants.get("security")) is None


def test_a_blind_phase_shows_only_the_context_and_ones_own_words(isolated: Path) -> None:
    d = hidden(isolated)
    d.advance("blind")
    d.save()
    view = view_for(d, d.workspace.participants.get("architect"))
    assert view is not None
    assert [c.author for c in view.comments] == ["AI-Architect"]
    assert "An index per tenant." in view.text
    assert "tenant filter" not in view.text
    assert "PHASE-TRANSITION" not in view.text  # engine blocks are left out
    assert view.text.startswith("<!-- DISCUSSION -->")


def test_an_anonymous_phase_labels_everybody_else(isolated: Path) -> None:
    d = hidden(isolated)
    d.advance("masked")
    d.save()
    view = view_for(d, d.workspace.participants.get("pragmatist"))
    assert view is not None
    assert view.labels == {"AI-Architect": label(0), "AI-Security": label(1)}
    assert [c.author for c in view.comments] == ["Participant A", "Participant B"]
    second = view.comments[1]
    assert second.body == "I agree with Participant A; Participant A, add a tenant filter."
    assert "AI-Architect" not in view.text and "@architect" not in view.text
    assert "Participants:" not in view.text
    # Line numbers point into the view's own text.
    assert view.text.split("\n")[second.line - 1] == "Name: Participant B"


def test_labels_run_past_the_alphabet() -> None:
    assert [label(0), label(25), label(26)] == ["Participant A", "Participant Z", "Participant 27"]
