"""`discussions calibration` (issue 38, item 3) on a folder computed by hand: four
discussions, three judged (wrong, partly, right), votes with providers, models and
confidences, one debate that overturned its first ballot. Every figure below is worked out
in the comments beside it from the definitions in docs/outcomes.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..conftest import write
from .support import HEAD, VOTE_FIRST, ai, cli, cli_json, person


@pytest.fixture
def folder(isolated: Path) -> Path:
    write(isolated / "templates" / "verdict.yaml", VOTE_FIRST)
    where = isolated / "discussions"
    # a: first ballot READY, CHANGES, CHANGES (majority CHANGES); security moves to READY:
    # the decision is READY's side, and it turned out wrong (o = 0).
    write(
        where / "a.md",
        HEAD.format(title="A")
        + ai("AI-Architect", "READY", "claude/opus", 8)
        + ai("AI-Security", "CHANGES", "codex", 6)
        + ai("AI-Pragmatist", "CHANGES", "codex")
        + ai("AI-Security", "READY", "codex", 7)
        + person("Rob", "OUTCOME: wrong - stale prices for a day"),
    )
    # b: REJECT, REJECT, READY: the decision is against (2 of 3); partly (o = 0.5) is the
    # latest outcome, replacing Ann's earlier "right".
    write(
        where / "b.md",
        HEAD.format(title="B")
        + ai("AI-Architect", "REJECT", "claude/opus", 9)
        + ai("AI-Security", "REJECT", "codex", 5)
        + ai("AI-Pragmatist", "READY", "codex", 10)
        + person("Ann", "OUTCOME: right - so far")
        + person("Bob", "OUTCOME: partly - the old path stayed slow"),
    )
    # c: the architect (claude, no model reported) and Rob, a person, vote READY; right (o = 1).
    write(
        where / "c.md",
        HEAD.format(title="C")
        + ai("AI-Architect", "READY", "claude", 6)
        + person("Rob", "Fine by me.\n\nVOTE: READY")
        + person("Rob", "OUTCOME: right - held a year"),
    )
    # d: votes, never judged: counted among the discussions, scored nowhere.
    write(where / "d.md", HEAD.format(title="D") + ai("AI-Architect", "READY", "claude", 9))
    write(where / "notes.md", "# Notes\n\nNot a discussion.\n")
    return where


def test_the_scores_of_a_folder_worked_out_by_hand(folder: Path) -> None:
    data = cli_json("calibration")
    assert data["discussions"] == 4 and data["judged"] == 3
    assert data["verdicts"] == {"right": 1, "partly": 1, "wrong": 1}
    personas = {p["name"]: p for p in data["personas"]}
    assert [p["name"] for p in data["personas"]] == ["architect", "pragmatist", "security", "Rob"]
    # architect: backs a (o 0): agreed 0, p .8 -> .64; against in b (o .5): .5, p .1 -> .16;
    # backs c (o 1): 1, p .6 -> .16. Agreed 1.5 of 3; Brier .96 / 3 = .32.
    assert personas["architect"] == {
        "name": "architect", "votes": 3, "agreed": 1.5, "agreement": 0.5,
        "with_confidence": 3, "brier": 0.32,
    }  # fmt: skip
    # security: backs a: 0, p .7 -> .49; against in b: .5, p .5 -> 0. Brier .49 / 2.
    assert personas["security"] == {
        "name": "security", "votes": 2, "agreed": 0.5, "agreement": 0.25,
        "with_confidence": 2, "brier": 0.245,
    }  # fmt: skip
    # pragmatist: against in a: 1 (no confidence); READY in b is against that decision
    # (REJECT's side): .5, and p = 1 - 10/10 = 0 -> (0 - .5)^2 = .25.
    assert personas["pragmatist"] == {
        "name": "pragmatist", "votes": 2, "agreed": 1.5, "agreement": 0.75,
        "with_confidence": 1, "brier": 0.25,
    }  # fmt: skip
    assert personas["Rob"] == {
        "name": "Rob", "votes": 1, "agreed": 1, "agreement": 1.0,
        "with_confidence": 0, "brier": None,
    }  # fmt: skip
    providers = {p["name"]: p for p in data["providers"]}
    assert [p["name"] for p in data["providers"]] == ["codex", "claude (model opus)", "claude"]
    # codex: a security 0 (.49), a pragmatist 1, b security .5 (0), b pragmatist .5 (.25).
    assert providers["codex"]["agreed"] == 2 and providers["codex"]["agreement"] == 0.5
    assert providers["codex"]["brier"] == round(0.74 / 3, 4)
    # claude (model opus): a architect 0 (.64), b architect .5 (.16).
    assert providers["claude (model opus)"]["brier"] == 0.4
    assert providers["claude"]["votes"] == 1 and providers["claude"]["brier"] == 0.16
    # a's debate overturned CHANGES with READY: CHANGES was right (o 0 -> 1 - 0), READY not.
    assert data["debate"] == {
        "overturned": 1, "first_ballot_right": 1, "debate_right": 0, "first_ballot_rate": 1.0
    }  # fmt: skip


def test_the_report_in_text(folder: Path) -> None:
    text = cli("calibration").stdout
    assert text.startswith(
        "Calibration: 3 of 4 discussions in discussions judged (1 right, 1 partly, 1 wrong).\n"
    )
    assert "\narchitect          3     1.5        0.5           3   0.32\n" in text
    assert "\nRob                1       1          1           0      -\n" in text
    assert text.endswith(
        "Debate delta: the debate overturned 1 first-ballot majority; the first ballot was "
        "right in 1 of 1, the debate in 0 of 1.\n"
    )


def test_a_folder_nobody_judged(isolated: Path) -> None:
    cli("new", "Cache")
    text = cli("calibration").stdout
    assert text.startswith("Calibration: 0 of 1 discussions in discussions judged.\n")
    assert "discussions outcome FILE" in text
    missing = cli("calibration", "nowhere", check=False)
    assert missing.returncode == 1 and "no discussions folder at nowhere" in missing.stderr
