"""Pathological inputs of moderate size parse at all (issues 7-9).

Each case ran for minutes (quadratic or cubic backtracking, scans from the start per hit)
before the parsing paths were made linear; linear, each takes milliseconds. Nothing here
measures speed (benchmarks/parsing.py prints the ratios): a case runs in a child process and
only a catastrophe, minutes where milliseconds are expected, trips the generous guard.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

GUARD_SECONDS = 60  # a linear path needs well under a second for any of these

CASES = {
    "answer: lines of ```a": "parse_response('```a\\n' * 64_000)",
    "header: <!-- and spaces (cubic)": "parse_document('<!-- ' + ' ' * 20_000 + 'x\\n')",
    "header: key and spaces": "parse_document('<!-- Title' + ' ' * 200_000 + 'x -->\\n')",
    "engine marker: spaces in the arguments": (
        "parse_document('---\\nName: A\\n\\n<!-- PHASE-TRANSITION: a' + ' ' * 200_000 + 'b -->\\n')"
    ),
    "engine markers among many fences": (
        "parse_document('---\\nName: A\\n' + '```\\nx\\n```\\n<!-- VOTE-RESET: a -->\\n' * 40_000)"
    ),
    "marker line ending in spaces": "extract('Q: x' + ' ' * 200_000 + 'y\\n')",
    "many mentions on one line": "extract('@rob ' * 200_000)",
    "a line of spaces before a backtick": "extract('Q: x\\n' + ' ' * 200_000 + '\\n`x`\\n')",
    "many code spans and markers": "extract('`a` Q: x @rob\\n' * 50_000)",
    "indented code and markers": "extract('t\\n\\n    code\\n\\nQ: x\\n' * 40_000)",
    # Not slow before (neutralise was a few regexes); guards its markdown-aware rounds now.
    "neutralise: nested HTML comments": "neutralise('<!--\\n' * 50_000)",
    "neutralise: list markers before a rule": "neutralise('- ' * 100_000 + 'x')",
}

PRELUDE = (
    "from discussions.syntax.parse import parse_document\n"
    "from discussions.syntax.render import neutralise\n"
    "from discussions.syntax.markers import extract\n"
    "from discussions.syntax.answers import parse_response\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("call", list(CASES.values()), ids=list(CASES))
def test_pathological_input_parses(call: str) -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", PRELUDE + call],
            capture_output=True,
            text=True,
            timeout=GUARD_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{call} still running after {GUARD_SECONDS} s: superlinear again")
    assert done.returncode == 0, done.stderr


def test_results_of_pathological_inputs() -> None:
    """The linear rewrites find what the old patterns found."""
    from discussions.syntax.markers import extract
    from discussions.syntax.parse import parse_document

    doc = parse_document("<!-- Title" + " " * 1000 + ": x -->\n<!-- " + " " * 500 + "y\n")
    assert doc.header == {"title": "x"}
    found = extract("Q: x" + " " * 1000 + "\n@rob @rob `@no` @amy\n")
    assert [(m.kind, m.text) for m in found.markers] == [("Q", "x")]
    assert [m.alias for m in found.mentions] == ["rob", "rob", "amy"]
    doc = parse_document("---\nName: A\n\n<!-- PHASE-TRANSITION: a" + " " * 1000 + "-> b -->\n")
    assert [(m.source, m.target) for m in doc.engine_markers] == [("a", "b")]
