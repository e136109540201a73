"""The columns `check` gives a problem: where its subject first stands in its line (any case),
found in one pass over a line however many problems it holds (issue 36: a line of thousands of
distinct unknown ``@mentions`` took time quadratic in their number)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discussions.model.discussion import Discussion
from discussions.ops.check import problems_in

from ..conftest import code, run

# Close to the bundled participant `architect` (a typo warning each), prefixes of one another,
# in other cases, inside code, after a word character, and text around them.
WORDS = [
    "@architec",
    "@Architecte",
    "@archtect",
    "@architectt",
    "@ARCHITEC",
    "@architecte-",
    "@architectes",
    "@@architec",
    "`@architec`",
    "rob@architec",
    "@archit3ct",
    "x",
    "@",
    "@securty",
    "@Securityy",
    "İ",
    "@İarchitec",
    "@pragmatis",
]


def _oracle(line: str, subject: str) -> tuple[int, int]:
    """The columns as `check` found them before: a search of the whole line per subject."""
    at = line.lower().find(subject.lower()) if subject else -1
    return (at + 1, at + 1 + len(subject)) if at >= 0 else (0, 0)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), max_size=4))
def test_columns_are_where_each_subject_first_stands(
    isolated: Path, lines: list[list[str]]
) -> None:
    path = isolated / "discussions" / "many.md"
    if not path.exists():
        assert code(run("new", "Many")) == 0
    base = path.read_text(encoding="utf-8").split("\n---\n\nName: Rob")[0]
    body = "\n".join(" ".join(words) for words in lines)
    path.write_text(base + "\n---\n\nName: Rob\n\n" + body + "\n", encoding="utf-8")
    d = Discussion(path)
    text_lines = d.text.split("\n")
    for p in problems_in(d, "many.md"):
        if p.line == 0 or p.line > len(text_lines):
            continue
        w = next(w for w in d.warnings if w.line == p.line and w.message == p.message)
        subject = w.subject or ""
        if not subject:
            continue
        assert (p.column, p.end_column) == _oracle(text_lines[p.line - 1], subject)


def test_thousands_of_distinct_unknown_mentions_on_one_line_each_get_their_column(
    isolated: Path,
) -> None:
    assert code(run("new", "Crowd")) == 0
    path = isolated / "discussions" / "crowd.md"
    line = " ".join(f"@architect{i}" for i in range(3000))
    with path.open("a", encoding="utf-8") as f:
        f.write("\n---\n\nName: Rob\n\n" + line + "\n")
    found = [p for p in problems_in(Discussion(path), "crowd.md") if p.code == "mention-typo"]
    assert len(found) > 1000
    for p in found:
        subject = p.message.split()[0]
        assert (p.column, p.end_column) == _oracle(line, subject)
