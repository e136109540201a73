"""Diagnostic mode: root-cause keys, convergence, blind and anonymous prompts, status, decisions.

Runs use tests/scripts/diagnose.py as the provider, a real subprocess that records every prompt
it receives."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from discussions import Discussion
from discussions.derive.diagnosis import (
    Candidate,
    converge,
    normalise_key,
    parse_confidence,
    similarity,
)
from discussions.syntax.answers import parse_response

from ..conftest import code, out, result_of, run, script_command, sign_ai_comments, write

NAMES = {"architect": "AI-Architect", "security": "AI-Security", "pragmatist": "AI-Pragmatist"}


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    return tmp_path / "prompts"


@pytest.fixture
def stand_in(isolated: Path, providers_file, prompts: Path):  # type: ignore[no-untyped-def]
    def make(mode: str) -> None:
        providers_file({"standin": script_command("diagnose.py", mode, str(prompts))})
        write(isolated / "discussions.yaml", "providers:\n  default: standin\n  detect: false\n")

    return make


def received(prompts: Path, alias: str) -> list[str]:
    files = sorted(prompts.glob(f"{alias}-*.txt"), key=lambda p: int(p.stem.split("-")[-1]))
    return [p.read_text(encoding="utf-8") for p in files]


def phase_of(prompt: str) -> str:
    return prompt.split("Current phase: ", 1)[1].split("(", 1)[1].split(")", 1)[0]


def tag(alias: str) -> str:
    return "ANS-" + hashlib.sha1(alias.encode()).hexdigest()[:6]


# --------------------------------------------------------------------------- keys


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("Session token expired", "session-token-expired"),
        ("session_token__expired", "session-token-expired"),
        ("  `DB-Pool-Exhausted` ", "db-pool-exhausted"),
        ("x" * 60, "x" * 60),
        ("x" * 61, None),
        ("it is *probably* the cache!!", None),
        ("", None),
        ("null pointer in Login.submit()", None),
    ],
)
def test_keys_are_normalised_or_refused(raw: str, key: str | None) -> None:
    assert normalise_key(raw) == key


def test_confidence_and_similarity() -> None:
    assert [parse_confidence(x) for x in ("8", "9/10", "**10**", "8.5", "11", "high")] == [
        8,
        9,
        10,
        8,
        None,
        None,
    ]
    assert similarity("session-token-expired", "session-token-expiry") >= 0.7
    assert similarity("session-token-expired", "db-pool-exhausted") < 0.7


def test_convergence_needs_two_confident_matching_keys() -> None:
    a = Candidate("session-token-expired", "A", 9, 10)
    b = Candidate("session-token-expired", "B", 8, 20)
    weak = Candidate("session-token-expired", "C", 7, 30)
    other = Candidate("db-pool-exhausted", "D", 10, 40)
    assert converge([a, b, other]) == ("session-token-expired", ["A", "B"])
    assert converge([a, weak, other]) == (None, [])
    assert converge([a]) == (None, [])
    assert converge([a, b], dropped={"B"}) == (None, [])


def test_json_fields_become_marker_lines() -> None:
    r = parse_response(
        '{"comment": "It is the token.", "root_cause_key": "Token expired", "confidence": 9}'
    )
    assert "ROOT-CAUSE: Token expired" in r.comment
    assert "CONFIDENCE: 9" in r.comment


# --------------------------------------------------------------------------- by hand

HAND = """\
<!-- DISCUSSION -->
<!-- Title: Login crashes -->
<!-- Phase: diagnosis -->
<!-- Status: OPEN -->
<!-- Template: diagnostic -->
<!-- Participants: architect, security, pragmatist -->

# Login crashes

---

Name: Rob

ROOT-CAUSE: Session Token Expired
CONFIDENCE: 9

---

Name: AI-Pragmatist

No idea yet.

---

Name: AI-Pragmatist

ROOT-CAUSE: it is *probably* the cache!!

---

Name: AI-Pragmatist

ROOT-CAUSE: session-token-expired
CONFIDENCE: 10

---

Name: Ann

ROOT-CAUSE: session-token-expiry
CONFIDENCE: 8
"""


def test_hand_written_markers_converge_and_failures_drop(isolated: Path) -> None:
    path = write(isolated / "discussions" / "hand.md", sign_ai_comments(HAND))
    d = Discussion.load(path)
    diag = d.diagnosis
    assert diag.converged
    assert diag.key == "session-token-expired"
    assert diag.supporters == ["Rob", "Ann"]  # the pragmatist failed twice: left out
    assert diag.dropped == ["AI-Pragmatist"]
    assert "AI-Pragmatist gave no parseable diagnosis twice" in diag.notes[0]
    assert [(c.author, c.line) for c in diag.candidates] == [
        ("Rob", 14),
        ("AI-Pragmatist", 33),
        ("Ann", 40),
    ]
    assert any(w.line == 27 and "invalid root-cause key" in w.message for w in d.warnings)
    data = json.loads(out(run("status", str(path), "--json")))["diagnosis"]
    assert data["converged"] is True and data["key"] == "session-token-expired"
    assert data["supporters"] == ["Rob", "Ann"]
    assert data["candidates"][0] == {
        "key": "session-token-expired",
        "author": "Rob",
        "confidence": 9,
        "line": 14,
    }
    shown = out(run("status", str(path)))
    assert "Diagnosis: converged on 'session-token-expired' (supported by Rob, Ann)" in shown
    assert "line 27: invalid root-cause key" in shown


def test_one_confident_key_does_not_converge(isolated: Path) -> None:
    text = HAND.replace("CONFIDENCE: 8", "CONFIDENCE: 7")
    d = Discussion.load(write(isolated / "discussions" / "hand.md", text))
    assert not d.diagnosis.converged and d.diagnosis.key is None


# --------------------------------------------------------------------------- runs


def test_new_with_diagnostic_template(stand_in, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    r = run("new", "login crashes on submit", "--template", "diagnostic")
    assert code(r) == 0, out(r)
    d = Discussion.load(isolated / "discussions" / "login-crashes-on-submit.md")
    assert d.phase == "triage"
    assert d.template is not None and [p.id for p in d.template.phases] == [
        "triage",
        "diagnosis",
        "convergence",
    ]


def test_diagnostic_run_converges_on_two_matching_keys(
    stand_in, isolated: Path, prompts: Path
) -> None:  # type: ignore[no-untyped-def]
    stand_in("match")
    assert code(run("new", "login crashes on submit", "--template", "diagnostic")) == 0
    r = run("run", "login-crashes-on-submit.md", "--sequential", "--seed", "1", "--json")
    assert code(r) == 0, out(r)
    res = result_of(r)
    assert res["stopped"] == "consensus", res
    assert res["status"] == "DIAGNOSED"
    path = isolated / "discussions" / "login-crashes-on-submit.md"
    d = Discussion.load(path)
    assert d.diagnosis.converged and d.diagnosis.key == "session-token-expired"
    assert sorted(d.diagnosis.supporters) == ["AI-Architect", "AI-Security"]
    text = path.read_text()
    assert "PHASE-TRANSITION: triage -> diagnosis" in text
    assert "PHASE-TRANSITION: diagnosis -> convergence" in text
    # Blind phase: each prompt holds none of the other participants' answers.
    blind = 0
    for alias in NAMES:
        for prompt in received(prompts, alias):
            if phase_of(prompt) != "diagnosis":
                continue
            blind += 1
            assert f"{tag(alias)}-triage" in prompt  # its own earlier answer
            for other in NAMES:
                if other != alias:
                    assert tag(other) not in prompt  # no answer of theirs, any phase
    assert blind == 3
    # The decisions list the converged diagnosis with the others.
    data = json.loads(out(run("decisions", "--json")))
    texts = (
        [e["text"] for e in data["decisions"]]
        if isinstance(data, dict)
        else [e["text"] for e in data]
    )
    assert any(t.startswith("Root cause: session-token-expired") for t in texts)
    from discussions.model.summary import render_summary

    assert "Diagnosis converged on **session-token-expired**" in render_summary(d)


def test_similar_keys_converge(stand_in, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    stand_in("similar")
    assert code(run("new", "Crash", "--template", "diagnostic")) == 0
    res = result_of(run("run", "crash.md", "--json"))
    assert res["stopped"] == "consensus"
    d = Discussion.load(isolated / "discussions" / "crash.md")
    # The earlier of the two keys in the file (parallel answers land in any order).
    assert d.diagnosis.key in ("session-token-expired", "session-token-expiry")
    assert sorted(d.diagnosis.supporters) == ["AI-Architect", "AI-Security"]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["one", "split"])
def test_no_convergence_escalates_by_the_fallback(
    stand_in, isolated: Path, prompts: Path, mode: str
) -> None:  # type: ignore[no-untyped-def]
    stand_in(mode)
    assert code(run("new", "Crash", "--template", "diagnostic")) == 0
    res = result_of(run("run", "crash.md", "--json"))
    assert res["stopped"] == "max_rounds", res
    assert res["status"] == "OPEN"
    path = isolated / "discussions" / "crash.md"
    d = Discussion.load(path)
    assert not d.diagnosis.converged
    text = path.read_text()
    assert "<!-- FALLBACK: escalate | phase: convergence | rounds: 2 -->" in text
    assert "the humans pick one from the candidates" in text
    assert "<!-- ESCALATION: max_rounds -->" in text
    assert d.escalation is not None
    assert d.warnings == []  # engine blocks after answers leave their digests intact
    assert json.loads(out(run("status", "crash.md", "--json")))["diagnosis"]["converged"] is False
    # Anonymous phase: prompts never name the other participants.
    anonymous = 0
    for alias in NAMES:
        for prompt in received(prompts, alias):
            if phase_of(prompt) != "convergence":
                continue
            anonymous += 1
            assert "Participant A" in prompt
            for other, name in NAMES.items():
                if other != alias:
                    assert name not in prompt
                    assert f"@{other}" not in prompt
            assert any(tag(o) in prompt for o in NAMES if o != alias)  # shown, without names
    assert anonymous == 6


def test_anonymous_prompt_hides_people_too_and_the_file_keeps_names(isolated: Path) -> None:
    from discussions.engine.prompt.prompts import build_prompt

    text = HAND.replace("<!-- Phase: diagnosis -->", "<!-- Phase: convergence -->").replace(
        "No idea yet.", "No idea yet. @architect, Rob and AI-Security, what do you think?"
    )
    path = write(isolated / "discussions" / "hand.md", text)
    d = Discussion.load(path)
    me = d.workspace.participants.get("security")
    compact = build_prompt(d, me)[0].split("<discussion>", 1)[1]  # the state and a few comments
    write(isolated / "discussions.yaml", "context:\n  recent_comments: 50\n  growth: 10\n")
    d = Discussion.load(path)
    prompt, _ = build_prompt(d, me)
    context = prompt.split("<discussion>", 1)[1]
    assert "## State of the discussion" in compact and "## State of the discussion" not in context
    for name in ("Rob", "Ann", "AI-Pragmatist", "AI-Architect", "@architect", "@pragmatist"):
        assert name not in context and name not in compact, name
    assert "Name: Participant A" in context and "Name: Participant C" in context
    # Labels by first appearance: Rob A, AI-Pragmatist B, Ann C, then AI-Architect D.
    assert "Participant D, Participant A and AI-Security" in context  # own name stays
    assert path.read_text() == text  # the file keeps the real names
