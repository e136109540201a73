"""A `---` right below a line of text renders as a heading on GitHub: the parser's hint is
given exactly where cmark-gfm (GitHub's renderer) draws a heading instead of a separator, for
a comment's opening separator and for the last comment's closing one typed by hand."""

from __future__ import annotations

import cmarkgfm
import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.syntax.parse import parse_document

START = "<!-- DISCUSSION -->\n<!-- Title: T -->\n\n# T\n\n---\n\nName: Rob\n\nHi.\n\n"
HINT = "`---` directly under a text line renders as a heading on GitHub"

ABOVE = [
    "My point, typed by hand.",
    "- a list item",
    "1. a numbered item",
    "## a heading",
    "> a quote",
    "| a | table |",
    "| a |\n|---|\n| b |",
    "<!-- at: 2026-11-27T10:00:00Z -->",
    "<details>",
    "<span>inline</span> html",
    "*Phase changed: a → b*",
    "VOTE: READY",
    "    indented code",
    "***",
    "Name: Ann",
    "```\ncode\n```",
    "Typed by hand,\n    indented: it goes on the paragraph",
    "Typed by hand,\n\tindented: it goes on the paragraph",
    "Typed by hand, then\n2. is no list (only 1. starts one under text)",
    "| a |\n| b | (no delimiter row: a paragraph)",
    "- a list item\n  continued",
    "> a quote\nlazily continued",
]


def headings(text: str) -> int:
    return cmarkgfm.github_flavored_markdown_to_html(text).count("<h2>")


@pytest.mark.parametrize("closing", [False, True], ids=["opening", "closing"])
@pytest.mark.parametrize("above", ABOVE)
def test_hinted_exactly_where_github_draws_a_heading(above: str, closing: bool) -> None:
    after = "" if closing else "\nName: Zed\n\nNext.\n\n---\n"
    text = START + f"{above}\n---\n{after}"
    fixed = START + f"{above}\n\n---\n{after}"
    line = START.count("\n") + above.count("\n") + 2
    heading = headings(text) > headings(fixed)
    hints = [w.line for w in parse_document(text).warnings if w.message.startswith(HINT)]
    assert hints == ([line] if heading else [])
    assert not any(w.message.startswith(HINT) for w in parse_document(fixed).warnings)


def test_check_reports_a_closing_separator_typed_under_text(isolated) -> None:  # type: ignore[no-untyped-def]
    path = isolated / "d.md"
    path.write_text(START + "Typed by hand.\n---\n")
    result = CliRunner().invoke(cli, ["check", str(path)])
    assert result.exit_code == 1
    assert f"d.md:{START.count(chr(10)) + 2}: {HINT}" in result.output
