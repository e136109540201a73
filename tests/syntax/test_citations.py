"""The citations reader (issue 37, grounded votes): the forms, and code and quotes left out."""

from __future__ import annotations

from pathlib import Path

from discussions.model.discussion import Discussion
from discussions.syntax.citations import find_citations

from ..conftest import signed


def _texts(body: str) -> list[str]:
    return [c.text for c in find_citations(body)]


def test_the_four_forms() -> None:
    body = (
        "The loop at src/net.py:12 retries forever; see src/net.py:20-24 too.\n"
        "The helper `retry()` in src/net.py has no cap, and net.py says so, as does docs/a/b.md."
    )
    assert _texts(body) == [
        "src/net.py:12",
        "src/net.py:20-24",
        "retry() in src/net.py",
        "net.py",
        "docs/a/b.md",
    ]


def test_a_code_span_after_a_citation_is_its_snippet() -> None:
    found = find_citations("At `src/net.py:12` `while True:` it spins; src/x.py:3: `x = 1`.")
    assert [(c.text, c.snippet) for c in found] == [
        ("src/net.py:12", "while True:"),
        ("src/x.py:3", "x = 1"),
    ]


def test_no_citation_in_code_quotes_urls_or_words_with_dots() -> None:
    body = (
        "> quoted src/q.py:1\n"
        "```\nsrc/fenced.py:3\n```\n"
        "    src/indented.py:4\n\n"
        "inline `x = src/y.py:4` is code, https://example.com/a/b.py a link, a@b.py an address,\n"
        "e.g. v1.2 and and/or and READY/REJECT are words."
    )
    assert _texts(body) == []


def test_lines_count_from_the_first_line_given() -> None:
    found = find_citations("one\ntwo src/a.py:2\n", first_line=40)
    assert [(c.path, c.start, c.line) for c in found] == [("src/a.py", 2, 41)]


def test_the_rule_attaches_citations_to_their_comment(isolated: Path) -> None:
    d = Discussion.create("Talk", directory=isolated / "discussions")
    d.add_block(signed("AI-Architect", "It breaks at src/net.py:12.", vote="CHANGES"))
    d.save()
    d = Discussion.load(d.path)
    (comment,) = d.comments
    text_line = d.text.split("\n").index("It breaks at src/net.py:12.") + 1
    assert [(c.text, c.line) for c in comment.citations] == [("src/net.py:12", text_line)]


def test_an_evidence_request_is_no_citation() -> None:
    assert _texts("EVIDENCE: read src/app.py:1-20\n- **EVIDENCE:** read src/b.py") == []


def test_a_governs_line_names_paths_it_does_not_cite() -> None:
    """The paths a decision governs may not exist yet: a ``GOVERNS:`` line is no citation."""
    body = "DECISION: keep auth in one place\nGOVERNS: src/auth/**, config/auth.yaml\n"
    assert _texts(body) == []
    assert _texts(body.replace("GOVERNS: ", "See ")) != []
