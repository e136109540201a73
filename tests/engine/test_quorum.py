"""Diverse quorums and confidence (issue 37, items 1 and 5), end to end through the CLI with
scripted providers (real subprocesses): personas answered by one provider are one
independent source; ``consensus.distinct_providers`` asks for several; a seat whose call
failed abstains (or is left out with ``consensus.failed_seats: exclude``); the model a CLI
names and a ``CONFIDENCE:`` beside a vote are recorded, shown and exported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions import Discussion

from ..conftest import code, out, run, write
from ..support.quorum import ALIASES, open_vote, scripted_providers, seat


@pytest.fixture
def council(isolated: Path, providers_file):  # type: ignore[no-untyped-def]
    """Make a feature discussion in its voting phase whose seats (alias -> provider) are
    answered by scripted providers; `consensus` is the project's consensus settings."""

    def make(seats: dict[str, str], consensus: str = "") -> Path:
        scripted_providers(isolated, providers_file, consensus)
        for alias, provider in seats.items():
            seat(isolated, alias, provider)
        path = open_vote()
        run("turn", "auth.md", *(f"@{a}" for a in seats))
        return path

    return make


def status_json(name: str = "auth.md") -> dict[str, object]:
    r = run("status", name, "--json")
    assert code(r) == 0, out(r)
    data: dict[str, object] = json.loads(out(r))
    return data


def test_personas_of_one_provider_are_one_independent_source(council) -> None:  # type: ignore[no-untyped-def]
    council(dict.fromkeys(ALIASES, "solo"))
    data = status_json()
    consensus = data["consensus"]
    assert consensus["reached"] and consensus["independent_sources"] == 1  # type: ignore[index]
    sources = data["vote_sources"]
    assert {v["provider"] for v in sources.values()} == {"solo"}  # type: ignore[union-attr]
    text = out(run("status", "auth.md"))
    assert "Sources: 3 READY, 1 independent source (solo: 3 votes)" in text


def test_distinct_providers_holds_back_copies_of_one_voice(council) -> None:  # type: ignore[no-untyped-def]
    council(dict.fromkeys(ALIASES, "solo"), "  distinct_providers: 2\n")
    consensus = status_json()["consensus"]
    assert not consensus["reached"] and consensus["outcome"] == "READY"  # type: ignore[index]
    assert "consensus.distinct_providers needs 2" in consensus["reason"]  # type: ignore[index]
    text = out(run("status", "auth.md"))
    assert "Consensus: not reached (READY threshold met, but 3 READY from 1 independent" in text


def test_distinct_providers_met_by_different_providers(council) -> None:  # type: ignore[no-untyped-def]
    council(
        {"architect": "solo", "security": "claude-x", "pragmatist": "solo"},
        "  distinct_providers: 2\n",
    )
    data = status_json()
    assert data["consensus"]["reached"]  # type: ignore[index]
    assert data["consensus"]["independent_sources"] == 2  # type: ignore[index]
    security = data["vote_sources"]["AI-Security"]  # type: ignore[index]
    assert security == {
        "vote": "READY",
        "line": security["line"],
        "provider": "claude-x",
        "model": "claude-x-1",
        "confidence": 8,
    }
    text = out(run("status", "auth.md"))
    assert "AI-Security: READY (claude-x, model claude-x-1, confidence 8)" in text


def test_a_failed_seat_abstains_by_default(council) -> None:  # type: ignore[no-untyped-def]
    council(
        {"architect": "solo", "security": "other", "pragmatist": "dead"},
        "  threshold_ready: 1.0\n",
    )
    data = status_json()
    assert data["failed_seats"] == ["AI-Pragmatist"]
    consensus = data["consensus"]
    assert not consensus["reached"]  # type: ignore[index]
    assert consensus["abstained"] == ["AI-Pragmatist"] and consensus["waiting_for"] == []  # type: ignore[index]
    assert "2 of 3 READY" in consensus["reason"]  # type: ignore[index]
    assert "failed, abstaining: AI-Pragmatist" in consensus["reason"]  # type: ignore[index]
    assert "Failed seats: AI-Pragmatist (abstaining: counted as not READY)" in out(
        run("status", "auth.md")
    )


def test_a_failed_seat_left_out_with_exclude(council) -> None:  # type: ignore[no-untyped-def]
    council(
        {"architect": "solo", "security": "other", "pragmatist": "dead"},
        "  threshold_ready: 1.0\n  failed_seats: exclude\n",
    )
    consensus = status_json()["consensus"]
    assert consensus["reached"] and consensus["excluded"] == ["AI-Pragmatist"]  # type: ignore[index]
    assert "2 of 2 READY" in consensus["reason"]  # type: ignore[index]


def test_a_seat_that_answers_after_failing_is_no_longer_failed(council, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    path = council({"architect": "solo", "pragmatist": "dead"})
    assert Discussion.load(path).failed_seats == ["AI-Pragmatist"]
    write(
        isolated / "participants" / "pragmatist.yaml",
        "name: AI-Pragmatist\nalias: pragmatist\nrole: r\npersonality: p\nprovider_hint: other\n",
    )
    assert code(run("turn", "auth.md", "@pragmatist")) == 0
    d = Discussion.load(path)
    assert d.failed_seats == [] and d.votes["AI-Pragmatist"] == "READY"


def test_confidence_beside_a_person_vote_is_shown_and_exported(council, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    council({"architect": "other"})
    r = run(
        "comment",
        "auth.md",
        "Fine by me.\n\nCONFIDENCE: 6/10",
        "--vote",
        "CHANGES",
        "--author",
        "Rita",
    )
    assert code(r) == 0, out(r)
    data = status_json()
    assert data["vote_sources"]["Rita"]["confidence"] == 6  # type: ignore[index]
    assert data["vote_sources"]["AI-Architect"]["confidence"] == 3  # type: ignore[index]
    assert data["vote_sources"]["Rita"]["provider"] is None  # type: ignore[index]
    text = out(run("status", "auth.md"))
    assert "Rita: CHANGES (confidence 6)" in text
    assert code(run("export", "auth.md", "--format", "json", "-o", "auth.json")) == 0
    exported = json.loads((isolated / "auth.json").read_text())
    assert exported["vote_sources"]["Rita"]["confidence"] == 6


def test_an_invalid_confidence_is_reported_and_not_attached(council) -> None:  # type: ignore[no-untyped-def]
    council({"architect": "other"})
    assert (
        code(run("comment", "auth.md", "CONFIDENCE: very", "--vote", "READY", "--author", "Rita"))
        == 0
    )
    data = status_json()
    assert data["vote_sources"]["Rita"]["confidence"] is None  # type: ignore[index]
    assert any("invalid confidence `very`" in w["message"] for w in data["warnings"])  # type: ignore[union-attr,index]


def test_the_web_panel_and_the_terminal_app_show_sources_and_failed_seats(council) -> None:  # type: ignore[no-untyped-def]
    from discussions.tui.data import side_panel
    from discussions.views.panel import panel_html

    path = council({"architect": "claude-x", "security": "solo", "pragmatist": "dead"})
    d = Discussion.load(path)
    panel = panel_html(d)
    assert '<td class="by">claude-x, model claude-x-1, confidence 8</td>' in panel
    assert "Sources: 2 READY, 2 independent sources (" in panel  # in the order of the votes
    assert "claude-x: 1 vote" in panel and "solo: 1 vote" in panel
    assert "Failed seats, abstaining: AI-Pragmatist" in panel
    tui = side_panel(d)
    assert "AI-Architect: READY [dim](claude-x, model claude-x-1, confidence 8)[/dim]" in tui
    assert "sources: 2 READY, 2 independent sources" in tui
    assert "failed seats (abstaining): AI-Pragmatist" in tui
