"""``consensus_mode: vote_first``: a sealed first ballot, then debate, and the debate delta;
positions round by round in `status`, its JSON and the HTML export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from discussions import Discussion

from ..conftest import code, out, run, script_command, signed, write
from ..support.vote_first import PLAN, VOTE_FIRST


@pytest.fixture
def ran(isolated: Path, providers_file, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    """A vote_first discussion run by stand-ins that record their prompts: READY reaches
    two thirds in round 2."""
    prompts = tmp_path / "prompts"
    providers_file({"standin": script_command("ballot.py", str(prompts), PLAN)})
    write(isolated / "discussions.yaml", "providers:\n  default: standin\n  detect: false\n")
    write(isolated / "templates" / "verdict.yaml", VOTE_FIRST)
    assert code(run("new", "Cache", "--template", "verdict")) == 0
    r = run("run", "cache.md", "--rounds", "3")
    assert code(r) == 0, out(r)
    return prompts


@pytest.mark.slow
def test_the_first_round_is_a_sealed_ballot(ran: Path) -> None:
    aliases = ["architect", "security", "pragmatist"]
    for alias in aliases:
        first = (ran / f"{alias}-1.prompt").read_text()
        assert "This round is blind" in first
        for other in aliases:
            if other != alias:  # no prompt of the first round holds another's ballot
                assert f"secret-{other}-" not in first
        later = (ran / f"{alias}-2.prompt").read_text()
        assert "## The sealed first ballot" in later  # then the debate sees them
        assert "Debate only the contested items" in later
        assert "secret-architect-1" in later and "This round is blind" not in later


def test_the_debate_delta_is_derived_from_the_file(ran: Path, isolated: Path) -> None:
    data = json.loads(out(run("status", "cache.md", "--json")))
    delta = data["debate_delta"]
    assert delta["first_ballot"] == {
        "AI-Architect": "READY",
        "AI-Security": "CHANGES",
        "AI-Pragmatist": "CHANGES",
    }
    assert delta["first_majority"] == "CHANGES" and delta["final_majority"] == "READY"
    assert delta["changed"] is True and delta["moved"] == ["AI-Security: CHANGES -> READY"]
    text = out(run("status", "cache.md"))
    assert "Debate delta: first ballot CHANGES -> now READY: debate changed" in text


@pytest.mark.slow
def test_the_positions_grid_in_status_json_and_html(ran: Path, isolated: Path) -> None:
    text = out(run("status", "cache.md"))
    assert "Positions by round:" in text
    assert "  AI-Security    R1 CHANGES  R2 READY\n" in text
    assert "  AI-Pragmatist  R1 CHANGES  R2 CHANGES\n" in text
    # The stand-in cites nothing: its move is flagged.
    assert "AI-Security moved CHANGES -> READY citing nothing new" in text
    data = json.loads(out(run("status", "cache.md", "--json")))
    grid = data["positions"]["grid"]
    assert grid["AI-Security"] == {"1": "CHANGES", "2": "READY"}
    assert data["positions"]["rounds"] == [1, 2]
    assert data["positions"]["unexplained_flips"] == 1
    assert code(run("export", "cache.md", "--format", "html", "-o", "cache.html")) == 0
    page = (isolated / "cache.html").read_text()
    assert '<table class="positions">' in page
    assert "<tr><th></th><th>R1</th><th>R2</th></tr>" in page
    assert (
        '<tr><th>AI-Security</th><td><span class="vote vote-changes">CHANGES</span></td>'
        '<td class="flip" title="moved citing nothing new">'
        '<span class="vote vote-ready">READY</span></td></tr>'
    ) in page
    assert "moved CHANGES -&gt; READY citing nothing new" in page
    assert "<script" not in page.split('<table class="positions">')[1].split("</table>")[0]


def test_a_vote_first_phase_votes_and_is_blind_only_until_the_ballot_is_in(
    isolated: Path,
) -> None:
    write(isolated / "templates" / "verdict.yaml", VOTE_FIRST)
    d = Discussion.create("Seal", template="verdict")
    d.save()
    info = d.phase_info
    assert info is not None and info.voting_mode and info.blind
    for who, vote in (("AI-Architect", "READY"), ("AI-Security", "READY")):
        d.add_block(signed(who, f"Fine.\n\nVOTE: {vote}"))
        d.save()
        assert d.phase_info is not None and d.phase_info.blind  # one voter still to come
    d.add_block(signed("AI-Pragmatist", "Fine.\n\nVOTE: READY"))
    d.save()
    assert d.phase_info is not None and not d.phase_info.blind


def test_a_vote_first_phase_may_move_on_consensus(isolated: Path) -> None:
    write(
        isolated / "templates" / "verdict.yaml",
        VOTE_FIRST + "    transitions: [{to: done, when: consensus}]\n  - id: done\n",
    )
    d = Discussion.create("Seal", template="verdict")
    d.save()
    assert d.template is not None and d.template.phases[0].voting_mode
