"""Code found by lines where lines tell (`code.top_fences`, `code.CodeLines`, `open_fence`)
agrees with the markdown parse of each comment it replaces (issue 36): on generated bodies
of nested lists, quotes, fences at every indent, indented code, HTML and engine markers,
every line is code for one exactly when it is for the other, and the open fence at the end
is the same. The oracles are the functions as they were, kept here."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discussions.syntax.code import (
    _NEEDS_MARKDOWN,
    CodeLines,
    block_parser,
    fence_closer,
    fenced_line_ranges,
    in_ranges,
    open_fence,
    open_fence_at_end,
)
from discussions.syntax.code import _indented as indented
from discussions.syntax.markers import extract
from discussions.syntax.parse import parse_document


def old_code_line_ranges(text: str) -> list[tuple[int, int]]:
    """`code_line_ranges` as every comment was read before: a markdown parse of the comment
    whenever it has indented lines, indented fences or HTML."""
    if indented(text) or (("```" in text or "~~~" in text) and _NEEDS_MARKDOWN.search(text)):
        ranges = [
            (t.map[0], t.map[1] - 1)
            for t in block_parser().parse(text)
            if t.type in ("fence", "code_block") and t.map is not None
        ]
        ranges.sort()
        return ranges
    if "```" in text or "~~~" in text:
        return fenced_line_ranges(text)
    return []


def old_open_fence(text: str) -> tuple[str, int] | None:
    """`open_fence` as it was: a markdown parse whenever the text has indented fences or HTML."""
    if "```" not in text and "~~~" not in text:
        return None
    if not _NEEDS_MARKDOWN.search(text):
        run = open_fence_at_end(text)
        if run is None:
            return None
        ranges = fenced_line_ranges(text)
        return run[0] * len(run), ranges[-1][0] if ranges else 0
    lines = text.split("\n")
    found: tuple[str, int] | None = None
    for t in block_parser().parse(text):
        if t.type == "fence" and t.level == 0 and t.map is not None:
            a, b = t.map
            closer = fence_closer(t.markup, lines, a, b) if b >= len(lines) - 1 else ""
            found = (closer, a) if closer else None
    return found


LINES = [
    "```",
    "```python",
    "~~~",
    "````",
    "~~~~",
    " ```",
    "  ```",
    "   ```",
    "    ```",
    "      ```",
    "```a`b",
    "- ```",
    "1. ```",
    "> ```",
    "- item",
    "* item",
    "+ item",
    "  - nested",
    "    - deeper",
    "        - deepest",
    "1. one",
    "2) two",
    "10. ten",
    "   3. three",
    "    indented code",
    "        more code",
    "\tcode",
    "\t- tab item",
    "> quote",
    ">",
    "> > deep",
    "text",
    "more text",
    "VOTE: READY",
    "  VOTE: READY",
    "VOTE: READY\r",
    "```\r",
    "\r",
    "- VOTE: CHANGES",
    "    VOTE: REJECT",
    "Q: why?",
    "DECISION: keep it",
    "@rob hi",
    "  @ines there",
    "- @rob look",
    "`code` @rob",
    "<!-- ROUND: 2 | phase: p | order: a -->",
    "   <!-- VOTE-RESET: p -->",
    "<!-- provider: x | digest: 0 -->",
    "<!--",
    "-->",
    "<!-- open",
    "<div>",
    "</div>",
    "<details>",
    "  <!-- x -->",
    "- <!-- y -->",
    "<br/>",
    "<?php",
    "",
    "",
    "",
    " ",
    "   ",
    "---",
    "***",
    "- - -",
    "===",
    "# head",
    "## head ##",
    "| a | b |",
    "|---|---|",
    "[ref]: /url",
    "[ref]:",
    "  'title'",
    "-",
    "1.",
    "*",
    "``",
    "` x `",
    "- - - - - - - - x",
    ">>>>>>>>>> q",
    "                    - far",
]


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=40), st.booleans())
def test_lines_alone_agree_with_the_markdown_parse(lines: list[str], newline: bool) -> None:
    body = "\n".join(lines) + ("\n" if newline else "")
    old = old_code_line_ranges(body)
    code = CodeLines(body)
    start = 0
    for n, line in enumerate(body.split("\n")):
        assert code.has(n, start) == in_ranges(n, old), (n, body)
        start += len(line) + 1
    assert open_fence(body) == old_open_fence(body), body
    # As the parse asks it, with the comment's `CodeLines` (fresh, or asked already): the same.
    assert open_fence(body, CodeLines(body)) == old_open_fence(body), body
    assert open_fence(body, code) == old_open_fence(body), body
    shared = CodeLines(body)
    open_fence(body, shared)
    assert extract(body, 1, shared) == extract(body, 1), body


AI_ANSWER = [
    "Comment: the trade-offs around caching @architect `ttl`.",
    "",
    "1. **Interface**",
    "    - keep the cache behind one function",
    "    - name the expiry",
    "2. **Failure modes**, with the retry loop:",
    "",
    "    ```python",
    "    for attempt in range(3):",
    "        fetch()",
    "    ```",
    "",
    "Q: what happens when a node restarts?",
    "",
    "VOTE: READY",
]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*LINES, *AI_ANSWER]), max_size=30), st.integers(1, 4))
def test_markers_and_engine_markers_are_found_as_by_the_parse_of_each_comment(
    lines: list[str], comments: int
) -> None:
    body = "\n".join([*AI_ANSWER, *lines, *AI_ANSWER])
    doc = "<!-- DISCUSSION -->\n\n# T\n\n" + "".join(
        f"---\n\nName: AI-A{i}\n\n{body}\n\n" for i in range(comments)
    )
    # The markers: what `extract` finds outside code, against the old code lines.
    found = extract(body, 1)
    old = old_code_line_ranges(body)
    for m in found.markers:
        assert not in_ranges(m.line - 1, old), (m, body)
    # Each engine marker kept by the parse is outside the comment's code for the old reading.
    parsed = parse_document(doc)
    for c in parsed.comments:
        ranges = old_code_line_ranges(c.body)
        for e in parsed.engine_markers:
            if c.body_line <= e.line <= c.end_line:
                assert not in_ranges(e.line - c.body_line, ranges), (e, body)
