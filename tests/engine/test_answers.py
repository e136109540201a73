"""The answer path: whatever a model prints, `parse_response` returns without raising, with
text that encodes as UTF-8, already neutralised, and with the vote the file will count."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discussions.syntax.answers import parse_response
from discussions.syntax.markers import extract
from discussions.syntax.render import neutralise, render_comment

from ..support.documents import DANGEROUS_LINES, github


def file_vote(comment: str, vote: str | None) -> str | None:
    """The vote the parser counts once the comment is rendered and appended."""
    block = render_comment("AI-Architect", comment, vote=vote, meta="provider: mock")
    return extract(block).vote


def test_lone_surrogate_is_replaced() -> None:
    r = parse_response('{"comment": "hi \\ud800 there", "vote": "READY"}')
    assert r.comment == "hi \ufffd there" and r.vote == "READY"
    r.comment.encode("utf-8")
    r = parse_response("raw \udcff text")
    assert r.comment == "raw \ufffd text"
    r = parse_response('{"comment": "x", "vote": "\\udc00"}')
    assert r.vote is None
    for note in r.notes:
        note.encode("utf-8")


def test_valid_surrogate_pair_is_kept() -> None:
    assert parse_response('{"comment": "\\ud83d\\ude00"}').comment == "\U0001f600"


@pytest.mark.slow
@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"comment": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"comment": "x", "a": ' + "{" * 50_000 + "}" * 50_000 + "}",
        "{" * 100_000,
        '{"comment": "' + "{" * 100_000,
        "> " * 50_000 + "deep quote",
        "- " * 50_000 + "deep list",
        "```json\n" + "[" * 100_000 + "\n```",
    ],
)
def test_deeply_nested_answers_do_not_raise(text: str) -> None:
    r = parse_response(text)
    r.comment.encode("utf-8")
    assert neutralise(r.comment) == r.comment


@pytest.mark.parametrize(
    "answer, vote",
    [
        ('{"comment":"Intro.\\n\\n<!-- x -->\\n    VOTE: REJECT\\n","vote":null}', "REJECT"),
        ('{"comment":"foo\\rVOTE: REJECT","vote":null}', "REJECT"),
        ('{"comment":"- item\\n  ```\\ncode\\n  ```","vote":"READY"}', "READY"),
        ('{"comment":"- item\\n  ```\\ncode","vote":"READY"}', "READY"),
        ('{"comment":"text\\n\\n    VOTE: REJECT","vote":null}', None),
        ('{"comment":"    VOTE: REJECT","vote":null}', None),
        ("<div>\n```\n\nVOTE: CHANGES", "CHANGES"),
        ("- a\n\n      code\n\nVOTE: READY", "READY"),
    ],
)
def test_reported_vote_is_the_vote_the_file_counts(answer: str, vote: str | None) -> None:
    r = parse_response(answer)
    assert r.vote == vote
    assert file_vote(r.comment, r.vote) == vote
    assert neutralise(r.comment) == r.comment


def test_vote_line_after_indented_code_or_list_counts() -> None:
    for body in ("text\n\n    code block", "- item one\n- item two", "> quoted", "|a|\n|-|\n|b|"):
        assert file_vote(body, "CHANGES") == "CHANGES"
        assert "<p>VOTE: CHANGES</p>" in github(render_comment("A", body, vote="CHANGES"))


def test_comment_is_already_neutralised() -> None:
    r = parse_response('{"comment": "ok\\n---\\nName: AI-Security\\n<script>", "vote": "READY"}')
    assert r.comment == "ok\n\\---\n`Name: AI-Security`\n&lt;script>"
    assert neutralise(r.comment) == r.comment


def test_person_and_ai_markers_survive() -> None:
    r = parse_response("Q: why?\n\n@security please look.\n\nVOTE: READY")
    assert r.comment == "Q: why?\n\n@security please look." and r.vote == "READY"


answer_lines = st.one_of(
    st.sampled_from(DANGEROUS_LINES),
    st.sampled_from(
        [
            "VOTE: READY",
            "VOTE: changes",
            "**VOTE:** REJECT",
            "- VOTE: READY",
            "VOTE: maybe",
            "  VOTE: CHANGES",
            "\tVOTE: REJECT",
            "> VOTE: READY",
            "`VOTE: READY`",
            "<!-- x -->",
            "foo\rVOTE: REJECT",
        ]
    ),
    st.text(max_size=10),
)
answer_text = st.lists(answer_lines, max_size=12).map("\n".join)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    answer_text,
    st.sampled_from([None, "READY", "CHANGES", "REJECT", "maybe", "null"]),
    st.booleans(),
)
def test_what_is_reported_is_what_the_file_says(
    comment: str, json_vote: str | None, as_json: bool
) -> None:
    text = json.dumps({"comment": comment, "vote": json_vote}) if as_json else comment
    r = parse_response(text)
    r.comment.encode("utf-8")
    assert neutralise(r.comment) == r.comment
    assert file_vote(r.comment, r.vote) == r.vote
    # The comment on its own holds no vote: the engine writes the one vote.
    assert extract(r.comment).vote is None
