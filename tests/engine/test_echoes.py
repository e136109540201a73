"""An answer that repeats its prompt: the engine's own lines are never markers, votes or passes.

The fixtures in ``fixtures/real-model`` are prompts the engine sent and the byte-exact answers a
real 135M model returned (echoed format blocks, repeated lines, answers cut off mid-line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discussions import Discussion
from discussions.engine.prompt.prompts import RESPONSE_FORMAT, build_prompt
from discussions.syntax.answers import Response, parse_response, prompt_echo
from discussions.syntax.markers import extract
from discussions.syntax.render import render_comment

from ..conftest import FIXTURES, run

REAL = FIXTURES / "real-model"
ANSWERS = sorted(REAL.glob("*.answer.txt"))
COMPACT = sorted((FIXTURES / "real-model-2k").glob("*.answer.txt"))
"""Answers to the compact prompts, whose format section shows no example line."""
EXAMPLE_LINES = (
    "Q: a question you want answered",
    "TODO: an action item",
    "DECISION: a decision you propose or record",
    "CONCERN: a risk or problem",
    "ASSIGNED: a task someone has taken on",
    "DONE: a task that is finished",
)
EXAMPLE_TEXTS = {line.split(": ", 1)[1] for line in EXAMPLE_LINES}


def prompt_of(answer: Path) -> str:
    return answer.with_name(answer.name.replace(".answer.", ".prompt.")).read_text("utf-8")


def recorded(r: Response) -> list[tuple[str, str]]:
    """The markers (kind, text) the file counts once `r` is written as a comment."""
    block = render_comment("AI-Security", r.comment, vote=r.vote, meta="provider: llm")
    found = extract(block.split("\n", 1)[1], 2)
    return [(m.kind, m.text) for m in found.markers]


def test_the_fixtures_hold_echoed_examples() -> None:
    """What the tests below guard against is really in the recorded answers."""
    text = "".join(a.read_text("utf-8") for a in ANSWERS)
    assert len(ANSWERS) == 28
    assert text.count("DONE: a task that is finished") > 50
    assert '{"sentinel": "NO_RESPONSE"}' in text


@pytest.mark.parametrize(
    "answer", ANSWERS + COMPACT, ids=lambda p: f"{p.parent.name[-2:]}-{p.name[:2]}"
)
def test_real_answers_give_no_example_marker_and_no_pass(answer: Path) -> None:
    prompt = prompt_of(answer)
    r = parse_response(answer.read_text("utf-8"), prompt_echo(prompt))
    assert not r.no_response
    prompt_lines = {line.strip() for line in prompt.split("\n")}
    for kind, text in recorded(r):
        assert f"{kind}: {text}" not in prompt_lines
        assert not any(e.startswith(text) for e in EXAMPLE_TEXTS), (kind, text)


def test_without_the_prompt_the_echoes_were_markers() -> None:
    """The same answers read as before: the example lines became items and a pass."""
    kinds: list[str] = []
    passes = 0
    for answer in ANSWERS:
        r = parse_response(answer.read_text("utf-8"))
        kinds += [k for k, _ in recorded(r)]
        passes += r.no_response
    assert kinds.count("DONE") >= 80 and kinds.count("Q") >= 5 and passes >= 1


def test_an_answer_that_only_repeats_the_prompt_is_no_comment() -> None:
    prompt = prompt_of(REAL / "18.answer.txt")
    r = parse_response(prompt, prompt_echo(prompt))
    assert r.vote is None and not r.no_response and not recorded(r)
    assert r.echoed > 10 and any("repeated the prompt" in n for n in r.notes)


def test_a_vote_quoted_from_the_discussion_still_counts() -> None:
    """A line of the discussion repeated alone is an answer's own words; a passage of it
    copied whole (three lines or more) is not, nor the vote inside it."""
    discussion = ["Name: AI-Architect", "", "The pool is too small.", "", "VOTE: READY"]
    prompt = "\n".join(["## Response format", "Say VOTE: READY when ready.", *discussion])
    echo = prompt_echo(prompt, quoted=discussion)
    own = "## Response format\nSay VOTE: READY when ready.\nI agree.\nVOTE: READY"
    assert parse_response(own, echo).vote == "READY"
    assert parse_response("Say VOTE: READY when ready.\nVOTE: READY", echo).vote == "READY"
    copied = parse_response("\n".join(discussion), echo)
    assert copied.vote is None and copied.comment == "" and copied.echoed == 5


def _fresh(isolated: Path, template: str) -> Discussion:
    r = run("new", f"Echo {template}", "--template", template)
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    return Discussion.load(next((isolated / "discussions").glob("echo-*.md")))


@pytest.mark.parametrize(
    "template", ["feature", "diagnostic", "deliberation", "adr", "code-review"]
)
def test_a_prompt_read_as_an_answer_holds_no_marker_vote_or_pass(
    isolated: Path, template: str
) -> None:
    """The format section and the phase instructions describe markers without showing one: a
    model repeating the whole prompt adds nothing, even where the answer path is not told the
    prompt. Every phase of the template, every participant."""
    d = _fresh(isolated, template)
    assert d.template is not None
    header = f"<!-- Phase: {d.phase} -->"
    for phase in d.template.phases:
        d.path.write_text(d.text.replace(header, f"<!-- Phase: {phase.id} -->"), "utf-8")
        d = Discussion.load(d.path)
        header = f"<!-- Phase: {phase.id} -->"
        for alias in d.participants:
            prompt, _ = build_prompt(d, d.workspace.participants.get(alias))
            r = parse_response(prompt)
            assert not r.no_response and r.vote is None and r.action == "CONTRIBUTE"
            assert recorded(r) == [], (phase.id, alias)
    assert not extract(RESPONSE_FORMAT).markers


# -- the property: echoed lines change nothing ------------------------------------------------

OWN_LINES = st.sampled_from(
    [
        "I think the pool is too small for 16 workers.",
        "Q: how many connections does each worker open?",
        "CONCERN: the retry loop hides the failure",
        "DECISION: raise max_connections to 200",
        "TODO: add a pool-size check to the deploy",
        "VOTE: CHANGES",
        "VOTE: READY",
        "@architect can you confirm the pool size?",
        "- DONE: rolled back the worker count",
        "```",
        "",
        "NO_RESPONSE",
        '{"comment": "Looks fine.", "vote": "READY"}',
    ]
) | st.text(st.characters(codec="utf-8", exclude_characters="\r"), max_size=40)


@st.composite
def echoed_answers(draw: st.DrawFn) -> tuple[str, str, list[str], str]:
    """(prompt, answer, its own lines, the answer with echoed lines interleaved)."""
    prompt = prompt_of(draw(st.sampled_from(ANSWERS)))
    echo = prompt_echo(prompt)
    own = [x for x in draw(st.lists(OWN_LINES, max_size=8)) if not echo.is_echo(x, True)]
    engine = sorted(echo.lines)
    mixed: list[str] = []
    for line in own:
        mixed += draw(st.lists(st.sampled_from(engine), max_size=3))
        mixed.append(line)
    mixed += draw(st.lists(st.sampled_from(engine), max_size=3))
    return prompt, "\n".join(own), own, "\n".join(mixed)


def _outcome(r: Response) -> tuple[object, ...]:
    return (r.vote, r.no_response, r.action, recorded(r))


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(echoed_answers(), st.booleans())
def test_echoed_prompt_lines_change_nothing(
    case: tuple[str, str, list[str], str], as_json: bool
) -> None:
    prompt, own, _, mixed = case
    echo = prompt_echo(prompt)
    if as_json:  # the echo inside the JSON comment field
        own = json.dumps({"comment": own, "vote": None})
        mixed = json.dumps({"comment": mixed, "vote": None})
    assert _outcome(parse_response(mixed, echo)) == _outcome(parse_response(own, echo))
