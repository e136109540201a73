"""Random edits of a discussion, as an editor makes them: the versions a language server
sees (`syntax.reparse`, `derive.readings` and the server's tests compare what is found in
each, kept from the version before, with what a reading of the whole text finds)."""

from __future__ import annotations

from hypothesis import strategies as st

HEAD = (
    "<!-- DISCUSSION -->\n<!-- Title: Cache -->\n<!-- Phase: initial_feedback -->\n"
    "<!-- Participants: security, architect -->\n\n# Cache\n\nContext.\n"
)
LINES = [
    "",
    "",
    "",
    "---",
    "---",
    "Name: Rob",
    "Name: AI-Security",
    "Name: Ines",
    " Name: quoted",
    "Name:",
    "text under",
    "Heading?",
    "```",
    "```python",
    "~~~",
    "    indented code",
    "<div>",
    "</div>",
    "<!--",
    "-->",
    "VOTE: READY",
    "VOTE: CHANGES",
    "Q: why?",
    "DECISION: keep it",
    "TODO: write it",
    "@securty look",
    "@security and @architect",
    "<!-- PHASE-TRANSITION: initial_feedback -> refinement -->",
    "<!-- VOTE-RESET: x -->",
    "<!-- ROUND: 2 | phase: initial_feedback | order: security -->",
    "<!-- ROUND: -->",
    "<!-- STATUS-CHANGE: OPEN -> CLOSED -->",
    "- item",
    "> quoted",
    "<<<<<<< HEAD",
    "=======",
    ">>>>>>> theirs",
    "bell \x07 here",
    "# Heading",
    "SCORE: 7",
    "PENDING: x",
    "\ufeffName: Rob",  # a byte-order mark at a line's start, and a carriage return:
    "carriage\r",  # the parser moves characters before counting lines
    "<!-- provider: mock | at: 2026-01-01T00:00:00Z -->",  # the engine's line, no digest
    "<!-- provider: mock | digest: 0123456789abcdef -->",  # a digest that does not match
    "<!-- at: 2026-01-01T00:00:00Z -->",
    "CONCERN: the cache can go stale",
    "see src/app.py:12 and `run()` in src/app.py",
    "GOVERNS: src/app.py",
]

lines = st.lists(st.sampled_from(LINES), min_size=0, max_size=6).map("\n".join)


@st.composite
def edited(draw: st.DrawFn) -> list[str]:
    """A discussion, then each version after a random edit: text typed or pasted at any
    offset (biased to the end, where people type), a range deleted, a range replaced."""
    comments = draw(st.lists(lines, min_size=0, max_size=6))
    text = HEAD + "".join(
        f"\n---\n\nName: {n}\n\n{body}\n"
        for n, body in zip(["Rob", "AI-Security", "Ines"] * 2, comments, strict=False)
    )
    versions = [text]
    for _ in range(draw(st.integers(1, 6))):
        n = len(text)
        at = draw(st.one_of(st.integers(0, n), st.integers(max(0, n - 40), n)))
        kind = draw(st.sampled_from(["insert", "insert", "delete", "replace"]))
        added = draw(st.one_of(lines.map(lambda s: s + "\n"), lines, st.text(max_size=3)))
        end = at if kind == "insert" else draw(st.integers(at, min(n, at + 200)))
        text = text[:at] + ("" if kind == "delete" else added) + text[end:]
        versions.append(text)
    return versions
