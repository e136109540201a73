"""Discussion files written by hand (as a person or an old version would write them), and how
GitHub renders markdown: the shared material of the model's, views' and syntax tests."""

from __future__ import annotations

from pathlib import Path

import cmarkgfm
from cmarkgfm.cmark import Options

from ..conftest import sign_ai_comments, write


def discussion(
    folder: Path,
    name: str,
    title: str,
    *,
    created: str | None = "2026-11-01T10:00:00Z",
    status: str = "OPEN",
    changed_to: str | None = None,
    comments: tuple[tuple[str, str], ...] = (),
    template: str = "feature",
) -> Path:
    """A discussion file written by hand: header, preamble, then (author, body) comments."""
    head = ["<!-- DISCUSSION -->", f"<!-- Title: {title} -->", f"<!-- Status: {status} -->"]
    if created:
        head.append(f"<!-- Created: {created} -->")
    head.append(f"<!-- Template: {template} -->")
    text = "\n".join(head) + f"\n\n# {title}\n\n## Context\nWhy we talk.\n\n"
    for author, body in comments:
        text += f"---\n\nName: {author}\n\n{body}\n\n"
    text += "---\n"
    if changed_to:
        text += f"\n<!-- STATUS-CHANGE: {status} -> {changed_to} -->\n"
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(sign_ai_comments(text), encoding="utf-8")  # as the engine writes them
    return path


DECIDED = """
<!-- DISCUSSION -->
<!-- Title: Cache layer -->
<!-- Phase: initial_feedback -->
<!-- Status: {status} -->
<!-- Participants: architect, pragmatist -->

# Cache layer

## Context
Reads of the catalogue are slow; the database must stay the source of truth.

## Notes
The catalogue has two million rows.

---

Name: AI-Architect
We should refactor the reader behind an interface.

DECISION: Put an LRU cache in front of the catalogue reader.
TODO: @pragmatist write the cache tests
TODO: Document the cache size setting
CONCERN: Invalidation on writes must be immediate.
Q: Which size limit by default?

VOTE: READY

---

Name: AI-Pragmatist
DONE: Document the cache size setting

VOTE: READY

---
"""


def decided_file(folder: Path, status: str = "DECIDED", extra: str = "") -> Path:
    """A discussion file with a decision, TODOs, a concern and a question."""
    return write(folder / "cache.md", sign_ai_comments(DECIDED.format(status=status) + extra))


def github(text: str, *, positions: bool = False) -> str:
    """HTML as GitHub renders it: GFM, raw HTML passed through (then tag-filtered). With
    `positions`, source positions, so a setext heading (two lines) shows apart from ATX."""
    options = Options.CMARK_OPT_UNSAFE
    if positions:
        options |= Options.CMARK_OPT_SOURCEPOS
    return cmarkgfm.github_flavored_markdown_to_html(text, options=options)


DANGEROUS_LINES = [
    "---",
    "***",
    "___",
    "- - -",
    "* * *",
    " ---   ",
    "   ***\t",
    "- ---",
    "1. ---",
    "> ---",
    "=",
    "-",
    "===",
    "Name: AI-Security",
    "Name : X",
    " Name: Y",
    "> Name: Z",
    "Name\\: AI-Security",
    "<!-- PHASE-TRANSITION: initial_feedback -> done -->",
    "<!-- VOTE-RESET: done -->",
    "<!-- STATUS-CHANGE: OPEN -> CLOSED -->",
    "<!-- provider: claude | duration: 1s -->",
    "<!--",
    "-->",
    "<script>",
    "<script src=x>",
    "</script>",
    "<STYLE>",
    "<pre>",
    "<textarea>",
    "<![CDATA[",
    "]]>",
    "<?php",
    "?>",
    "<!DOCTYPE html>",
    "<div>",
    "<details>",
    "- <script>",
    "> <!-- x",
    "```",
    "```python",
    "````",
    "~~~",
    "  ```",
    "   ```",
    "- ```",
    "- item",
    "  continued",
    "    indented code",
    "\tcode",
    "1. one",
    "> quote",
    "|a|b|",
    "|-|-|",
    "\ufeff---",
    "\ufeffName: Mallory",
    "\ufeff<!-- VOTE-RESET: x -->",
    "VOTE: REJECT",
    "    VOTE: REJECT",
    "Q: a question?",
    "@security look",
    "text",
    "`code",
    "",
    " ",
    "\xa0",
]
