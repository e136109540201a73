"""Marker extraction: code-aware, line-numbered, forgiving about formatting."""

from __future__ import annotations

import pytest

from discussions.syntax.markers import extract, normalise_vote


def kinds(body: str) -> list[tuple[str, str, int]]:
    return [(m.kind, m.text, m.line) for m in extract(body, 1).markers]


def test_all_marker_kinds() -> None:
    body = "Q: a?\nTODO: b\nDECISION: c\nASSIGNED: d\nDONE: e\nCONCERN: f\nVOTE: READY\n"
    assert kinds(body) == [
        ("Q", "a?", 1),
        ("TODO", "b", 2),
        ("DECISION", "c", 3),
        ("ASSIGNED", "d", 4),
        ("DONE", "e", 5),
        ("CONCERN", "f", 6),
        ("VOTE", "READY", 7),
    ]


@pytest.mark.parametrize(
    "value", ["ready", "READY", "Ready", "**READY**", "ready.", "READY - fine"]
)
def test_vote_values_case_insensitive(value: str) -> None:
    assert extract(f"VOTE: {value}\n").vote == "READY"


def test_last_vote_counts() -> None:
    assert extract("VOTE: READY\ntext\nVOTE: reject\n").vote == "REJECT"


@pytest.mark.parametrize("value", ["MAYBE", "", "yes", "READYish"])
def test_invalid_vote_is_reported_not_counted(value: str) -> None:
    found = extract(f"hello\nVOTE: {value}\n", 10)
    assert found.vote is None
    assert [w.line for w in found.warnings] == [11]
    assert "invalid vote" in found.warnings[0].message


def test_invalid_vote_after_valid_keeps_valid() -> None:
    assert extract("VOTE: CHANGES\nVOTE: perhaps\n").vote == "CHANGES"


def test_fenced_code_is_not_markers() -> None:
    body = "```\nVOTE: REJECT\nQ: no\n@architect\n```\n~~~md\nTODO: no\n~~~\nQ: yes\n"
    assert kinds(body) == [("Q", "yes", 9)]
    assert extract(body).mentions == []


def test_unclosed_fence_runs_to_end_of_comment() -> None:
    assert kinds("Q: yes\n```\nQ: no\n") == [("Q", "yes", 1)]


def test_indented_code_is_not_markers() -> None:
    body = "Text.\n\n    VOTE: REJECT\n    @architect\n\nVOTE: READY\n"
    assert extract(body).vote == "READY"
    assert extract(body).mentions == []


def test_indented_list_continuation_is_not_code() -> None:
    body = "- item\n\n    TODO: inside the list item\n"
    assert kinds(body) == [("TODO", "inside the list item", 3)]


def test_inline_code_is_not_markers_or_mentions() -> None:
    body = "Use `@security` or ``@architect ` x``.\n`Q: no`\n"
    found = extract(body)
    assert found.mentions == [] and found.markers == []


def test_inline_code_spanning_lines() -> None:
    body = "start `code\nVOTE: REJECT` end\nVOTE: READY\n"
    assert extract(body).vote == "READY"
    assert [m.line for m in extract(body).markers] == [3]


def test_escaped_backtick_does_not_open_code() -> None:
    body = "a \\`not code @architect `\n"
    assert [m.alias for m in extract(body).mentions] == ["architect"]


def test_markers_after_bullets_and_bold() -> None:
    body = "- Q: one\n* TODO: two\n1. DECISION: three\n- [x] DONE: four\n**CONCERN:** five\n__Q__: six\n"
    assert [k for k, _, _ in kinds(body)] == ["Q", "TODO", "DECISION", "DONE", "CONCERN", "Q"]
    assert kinds(body)[4][1] == "five"


def test_a_value_after_a_bold_keyword_keeps_its_own_stars() -> None:
    """Only a line bold as a whole (``**TODO: x**``) has its closing stars dropped: after
    ``**TODO:**`` the value is the rest of the line, a glob's ``**`` and a name's ``_`` too."""
    body = "**TODO:** tidy src/**\n__DONE__: rename x_\n**TODO: bold whole**\n"
    assert [t for _, t, _ in kinds(body)] == ["tidy src/**", "rename x_", "bold whole"]


def test_marker_must_start_the_line() -> None:
    assert kinds("We said Q: not a question\nso VOTE: READY is not a vote\n") == []


def test_lower_case_keywords_are_prose() -> None:
    assert kinds("Vote: ready\nq: no\ntodo: no\n") == []


def test_quoted_lines_are_not_markers_or_mentions() -> None:
    found = extract("> Q: quoted\n> @architect said\nQ: mine\n")
    assert [m.text for m in found.markers] == ["mine"]
    assert found.mentions == []


@pytest.mark.parametrize(
    "text, expected",
    [
        ("@architect what do you think?", ["architect"]),
        ("cc @Security, @pragmatist.", ["security", "pragmatist"]),
        ("mail rob@example.com", []),
        ("see @example.com", []),
        ("https://github.com/@someone", []),
        ("(@designer)", ["designer"]),
        ("@zoë please", ["zoë"]),
        ("@all please review", ["all"]),
        ("\\@escaped", []),
        ("@123", []),
    ],
)
def test_mentions(text: str, expected: list[str]) -> None:
    assert [m.alias for m in extract(text).mentions] == expected


def test_mention_line_numbers() -> None:
    found = extract("one\ntwo @architect\n\nthree @security\n", 5)
    assert [(m.alias, m.line) for m in found.mentions] == [("architect", 6), ("security", 8)]


def test_normalise_vote() -> None:
    assert normalise_vote("changes") == "CHANGES"
    assert normalise_vote("not READY") is None
    assert normalise_vote("") is None


@pytest.mark.parametrize(
    "body, mentions",
    [
        # A span runs across lines of one paragraph...
        ("see `a\n@rob\nb` and @ann\n", ["ann"]),
        # ...but a blank line (spaces and tabs count as blank) ends the paragraph first.
        ("see `a\n \t\n@rob `\n", ["rob"]),
        # A code block ends the paragraph too, and its backticks open no span.
        ("`a\n```\n`\n```\n@rob `\n", ["rob"]),
        # The last run starting a line: the line before it is not blank.
        ("x `y\n@rob z\n`w\n", []),
        # A run closes only at a run of the same length; escaped backticks open nothing.
        ("``a ` @rob``\n", []),
        ("\\`a @rob `\n", ["rob"]),
        ("\\\\`a @rob `\n", []),
        ("`one` @rob\n", ["rob"]),
    ],
)
def test_code_spans_by_paragraph(body: str, mentions: list[str]) -> None:
    assert [m.alias for m in extract(body).mentions] == mentions
