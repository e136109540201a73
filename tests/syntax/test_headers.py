"""A comment header typed with formatting (``**Name:** Rob``) starts no comment: `check` and the
editor say so, with the plain line to write instead (`syntax.headers`)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from discussions.syntax.headers import misformatted_headers
from discussions.syntax.parse import parse_document

from ..conftest import code, run

MISTAKES = [
    ("**Name:** Rob", "Name: Rob"),
    ("**Name**: Rob", "Name: Rob"),
    ("## Name: Zoë", "Name: Zoë"),
    ("name: Rob", "Name: Rob"),
    (" Name: Rob", "Name: Rob"),
    ("*Name*: Rob", "Name: Rob"),
    ("> Name: Rob", "Name: Rob"),
    ("Name : Rob", "Name: Rob"),
]


def test_each_formatted_header_is_reported_at_its_line_with_the_plain_form() -> None:
    for typed, plain in MISTAKES:
        text = f"# T\n\n---\n\nName: Ann\n\nFirst.\n\n---\n\n{typed}\n\nSecond.\n"
        [warning] = misformatted_headers(text)
        assert (warning.line, warning.fix, warning.subject) == (11, plain, typed), typed
        assert warning.code == "header-formatting" and warning.severity == "warning"
        assert len(parse_document(text).comments) == 1  # the parser agrees: it started no comment


def test_real_headers_rules_and_code_are_left_alone() -> None:
    assert misformatted_headers("---\nName: Rob\n\nok\n") == []
    assert misformatted_headers("---\n\nThe name: of the thing\n") == []
    assert misformatted_headers("x\n---\nnot a name line\n---") == []
    yaml = "Name: Rob\n\n```yaml\n---\nname: service\n```\n"
    assert misformatted_headers(yaml) == []
    assert misformatted_headers("") == [] and misformatted_headers("---") == []


@given(st.lists(st.sampled_from(["---", "", "Name: Rob", "**Name:** Zoë", "text", "```"])))
def test_a_line_that_starts_a_comment_is_never_reported(lines: list[str]) -> None:
    text = "\n".join(lines)
    for w in misformatted_headers(text):
        line = text.split("\n")[w.line - 1]
        assert not line.startswith("Name:") and line == w.subject


def test_check_reports_it_and_the_text_stays_in_the_comment_above(isolated: Path) -> None:
    assert code(run("new", "Hint")) == 0
    path = isolated / "discussions" / "hint.md"
    with path.open("a", encoding="utf-8") as f:
        f.write("\n---\n\n**Name:** Rob\n\nVOTE: READY\n")
    line = path.read_text(encoding="utf-8").split("\n").index("**Name:** Rob") + 1
    result = run("check", "--json", str(path))
    [problem] = json.loads(result.output)
    assert problem["line"] == line and problem["severity"] == "warning"
    assert "`Name: Rob`" in problem["message"]
    shown = run("check", str(path))
    assert f"hint.md:{line}: `**Name:** Rob` starts no comment" in shown.output
