"""Parsing what models answer (seed 004 Appendix B, and what real models do instead)."""

from __future__ import annotations

import pytest

from discussions.syntax.answers import parse_response


@pytest.mark.parametrize(
    "text",
    [
        '{"comment": "Looks fine.\\n\\nQ: caching?", "vote": "READY"}',
        'Here is my answer:\n```json\n{"comment": "Looks fine.\\n\\nQ: caching?", "vote": "ready"}\n```\nThanks!',
        'Sure! {"comment": "Looks fine.\\n\\nQ: caching?", "vote": "READY"} Hope that helps.',
        '{\n  "comment": "Looks fine.\\n\\nQ: caching?",  // my view\n  "vote": "READY", /* final */\n}',
        '```\n{"comment": "Looks fine.\\n\\nQ: caching?", "vote": "READY",}\n```',
    ],
)
def test_json_forms(text: str) -> None:
    r = parse_response(text)
    assert r.structured
    assert r.comment == "Looks fine.\n\nQ: caching?"
    assert r.vote == "READY"


def test_markdown_answer_with_vote_line() -> None:
    r = parse_response("## Review\n\nMostly good.\n\nCONCERN: no tests\n\n**VOTE:** changes\n")
    assert not r.structured
    assert r.vote == "CHANGES"
    assert r.comment == "## Review\n\nMostly good.\n\nCONCERN: no tests"


@pytest.mark.parametrize(
    "text",
    ['{"sentinel": "NO_RESPONSE"}', "NO_RESPONSE", '```json\n{"sentinel":"NO_RESPONSE"}\n```'],
)
def test_no_response(text: str) -> None:
    assert parse_response(text).no_response


def test_invalid_vote_is_not_a_vote() -> None:
    r = parse_response('{"comment": "hmm", "vote": "MAYBE"}')
    assert r.vote is None and r.notes == ["invalid vote 'MAYBE' ignored"]
    r = parse_response("text\nVOTE: perhaps\n")
    assert r.vote is None and r.comment == "text" and "invalid vote" in r.notes[0]


def test_null_vote() -> None:
    for v in ("null", None, "none"):
        payload = '{"comment": "c", "vote": ' + ("null" if v is None else f'"{v}"') + "}"
        assert parse_response(payload).vote is None


def test_json_vote_wins_over_vote_lines_in_comment() -> None:
    r = parse_response('{"comment": "x\\nVOTE: REJECT", "vote": "READY"}')
    assert r.vote == "READY" and r.comment == "x"


def test_garbage_is_kept_as_text() -> None:
    r = parse_response("I could not follow the format {oops: this is not json")
    assert r.comment == "I could not follow the format {oops: this is not json"
    assert r.vote is None and not r.no_response


def test_vote_lines_in_code_stay() -> None:
    r = parse_response("Example:\n```\nVOTE: REJECT\n```\nVOTE: READY")
    assert r.vote == "READY"
    assert "```\nVOTE: REJECT\n```" in r.comment
