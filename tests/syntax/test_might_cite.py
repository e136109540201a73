"""`citations.might_cite` of a whole body answers for its first lines too: the derivation
skips a comment whose body cannot cite before cutting it at an engine block
(`derive.citations.rule_citations`), so the cut must never hold a citation the whole did not
let through."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from discussions.syntax.citations import find_citations, might_cite

PIECES = [
    "src/net.py",
    "net.py",
    ":12",
    "-30",
    "e.g.",
    "v1.2",
    "a.b",
    ".",
    ".py",
    "x.",
    "Py",
    "`retry()` in ",
    "`",
    " ",
    "\n",
    "\n\n",
    "> ",
    "<!-- ",
    "-->",
    "    ",
    "```\n",
    "word",
    "http://x.io/a.py",
    "@a.py",
]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=25))
def test_no_first_lines_cite_where_the_body_cannot(pieces: list[str]) -> None:
    body = "".join(pieces)
    lines = body.split("\n")
    if might_cite(body):
        return
    for k in range(len(lines) + 1):
        assert find_citations("\n".join(lines[:k])) == [], (k, body)
