"""Recorded answers of a real small model, each read as the engine reads it where it was asked.

``tests/fixtures/real-model-3`` holds 29 prompts `discussions` sent to SmolLM2-135M-Instruct
(llama-cpp-python's OpenAI-compatible server) and its answers, byte for byte (see its README):
the probe of ``providers test`` (01-02), the answers of a ``turn`` and a six-round ``run``
(03-29), and the one-line vote follow-ups (the short prompts). What is recorded from each
(comment, vote, markers, pass) must be what the model said: never a line copied from its prompt,
never a vote, marker or pass it did not give, and none of its own words taken for an echo.

The expectations are data, one row per answer, each with why, judged by reading it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from discussions.engine.turn.followup import DEFAULT_MAX_ANSWER_CHARS, read_capped, read_vote
from discussions.syntax.answers import Echo, Response, parse_response, prompt_echo
from discussions.syntax.markers import extract
from discussions.syntax.parse import parse_document
from discussions.syntax.render import render_comment

from ..conftest import FIXTURES

FOLDER = FIXTURES / "real-model-3"
FOLLOW_UP = "You were asked for your position on"
PROBE = ("01", "02")


@dataclass(frozen=True)
class Said:
    """What the engine should record from one answer."""

    comment: bool
    """A comment is recorded (the model wrote words of its own)."""
    why: str


# Turn and run answers: none holds a VOTE:, a marker or NO_RESPONSE of its own; the few lines that
# look like one (``**DISCUSSION:**``, ``message: PASS``) are prose. None copies a line of its
# prompt, so nothing may be taken out as an echo either.
TURNS = {
    "03": Said(True, "prose about a 'Call Vote' process: the words 'Call Vote' are not a motion"),
    "04": Said(True, "cut at max_tokens; restates its role in its own words, '---' is a rule"),
    "05": Said(True, "cut at max_tokens; invented HTTP details and 'PATCH_VOTE', no marker"),
    "06": Said(True, "one bracketed line of its own"),
    "07": Said(True, "a code block; nothing in it is read"),
    "08": Said(True, "rephrases 'You are AI-Pragmatist (@pragmatist)' in a sentence of its own"),
    "09": Said(True, "cut at max_tokens; pleasantries, no vote although a vote was asked for"),
    "10": Said(True, "a numbered section of prose"),
    "11": Said(True, "a quoted paragraph; '2 of 3:' is no marker"),
    "15": Said(True, "cut at max_tokens; invented biography"),
    "16": Said(
        True, "quotes its persona loosely ('Your role ... AI-Pragmatist'), not a prompt line"
    ),
    "17": Said(True, "placeholders such as [Your Name]"),
    "21": Said(True, "cut at max_tokens; made-up format rules, no marker"),
    "22": Said(True, "'**DISCUSSION:**' and '**Response format:**' are bold headings, not markers"),
    "23": Said(True, "a broken JSON-like example: not the answer format, 'PASS' is a string in it"),
    "27": Said(True, "two sentences of its own"),
    "28": Said(True, "'message: PASS (you choose)' mid-line is no pass and no action"),
    "29": Said(True, "a heading and an italic line"),
}

# Vote follow-ups ("Answer with one line: VOTE: READY, CHANGES or REJECT"): not one of the nine
# answers names a choice, so none is a vote.
FOLLOW_UPS = {
    "12": "'No, no more!' and an exclamation: no choice",
    "14": "'I'm glad to know that you asked': no choice",
    "18": "a heading and its persona line: no choice",
    "19": "praise of collaboration: no choice",
    "20": "cut at max_tokens; 'one line feedback' is not a vote",
    "24": "restates a made-up format: no choice",
    "25": "'I'm not sure of my role yet': no choice",
    "26": "'Sure, I can do that.': agreeing to answer is no vote",
    "30": "an offer to discuss the endpoint: no choice",
}

# The probe of `providers test --deep` and the model's self-description.
PROBES = {
    "01": Said(True, "one sentence about itself: the probe's answer, no vote"),
    "02": Said(False, "empty: the server returned no content; nothing to read"),
}


def _read(n: str) -> tuple[str, str]:
    prompt = (FOLDER / f"{n}.prompt.txt").read_text(encoding="utf-8")
    return prompt, (FOLDER / f"{n}.answer.txt").read_text(encoding="utf-8")


def turn_echo(prompt: str) -> Echo:
    """The echo the engine builds for a turn's prompt (`followup.answer_echo`), from what the
    prompt shows: the discussion between its ``<discussion>`` tags, and as the participant's
    own the comments signed with the name it is addressed by."""
    inner = prompt.split("<discussion>\n", 1)[1].split("</discussion>", 1)[0]
    found = re.search(r"^You are (\S+) \(@", prompt, re.M)
    assert found is not None
    own = [
        line
        for block in parse_document(inner).comments
        if block.author == found.group(1)
        for line in block.body.split("\n")
    ]
    return prompt_echo(prompt, inner.split("\n"), own)


def markers(r: Response) -> list[str]:
    """The markers the file would count once `r` is written as a comment."""
    block = render_comment("AI-Architect", r.comment, vote=r.vote)
    return [m.kind for m in extract(block.split("\n", 1)[1], 2).markers]


def test_the_fixtures_are_the_29_answers() -> None:
    answers = sorted(p.name[:2] for p in FOLDER.glob("*.answer.txt"))
    assert len(answers) == 29 and sorted({*TURNS, *FOLLOW_UPS, *PROBES}) == answers
    for n in FOLLOW_UPS:
        assert _read(n)[0].startswith(FOLLOW_UP)
    for n in TURNS:
        assert "<discussion>" in _read(n)[0]


@pytest.mark.parametrize("n", sorted(TURNS))
def test_a_turns_answer_is_recorded_as_the_model_said_it(n: str) -> None:
    prompt, answer = _read(n)
    r, cut = read_capped(answer, DEFAULT_MAX_ANSWER_CHARS, turn_echo(prompt))
    assert cut is None
    assert (r.vote, r.no_response, r.only_echo, r.action) == (None, False, False, "CONTRIBUTE")
    assert markers(r) == [], TURNS[n].why
    assert r.echoed == 0 and bool(r.comment.strip()) is TURNS[n].comment, TURNS[n].why


@pytest.mark.parametrize("n", sorted(FOLLOW_UPS))
def test_a_follow_up_gives_no_vote_the_model_did_not_choose(n: str) -> None:
    assert read_vote(_read(n)[1]) is None, FOLLOW_UPS[n]


@pytest.mark.parametrize("n", sorted(PROBES))
def test_the_probe_answers_hold_no_vote(n: str) -> None:
    prompt, answer = _read(n)
    r = parse_response(answer, prompt_echo(prompt))
    assert (r.vote, r.no_response, markers(r)) == (None, False, [])
    assert bool(r.comment.strip()) is PROBES[n].comment, PROBES[n].why


def test_a_follow_up_listing_the_choices_is_no_vote() -> None:
    """What the README of the fixtures warns of: the choices repeated, in any form."""
    for text in (
        "READY, CHANGES or REJECT",
        "VOTE: READY, CHANGES or REJECT",
        "READY/CHANGES/REJECT",
    ):
        assert read_vote(text) is None
    assert read_vote("READY") == "READY" and read_vote("VOTE: changes\n") == "CHANGES"


def test_the_prompts_themselves_echoed_give_nothing() -> None:
    """Each turn prompt read back as its own answer (a model that only repeats it): no
    comment, no vote, no marker, and no pass (`Response.only_echo`)."""
    for n in sorted(TURNS):
        prompt, _ = _read(n)
        r, _ = read_capped(prompt, DEFAULT_MAX_ANSWER_CHARS, turn_echo(prompt))
        assert (r.vote, r.no_response, markers(r)) == (None, False, []), n
        assert r.only_echo, (n, r.comment[:200])


def test_the_folder_is_self_contained() -> None:
    assert (FOLDER / "README.md").exists() and Path(__file__).parent.parent / "fixtures" == FIXTURES
