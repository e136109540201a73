"""What `comment` tells of the file it appended to, asked of the bytes (`model.lastcomment`):
the number of comments and what `check` reports in the new comment are those of a
derivation of the whole file, on files with fences, separators in code, engine blocks and
every marker whose value can be wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discussions import Discussion
from discussions.model.lastcomment import last_comment_told
from discussions.ops.comments import comment
from discussions.settings.workspace import Workspace
from discussions.syntax.lastcomment import boundaries
from discussions.syntax.parse import parse_document

from ..conftest import write

HEADER = "<!-- DISCUSSION -->\n<!-- Participants: architect, security -->\n\n# D\n\n"

ABOVE = {
    "plain": "---\n\nName: Ann\nFirst.\n\nVOTE: READY\n",
    "separator in code": "---\n\nName: Ann\n```\n---\n\nName: Fake\n```\nAfter.\n",
    "unclosed fence": "---\n\nName: Ann\n~~~\ncode, never closed\n\n---\n\nName: Bo\nText.\n",
    "engine blocks": (
        "<!-- PHASE-TRANSITION: initial_feedback -> detailed_review -->\n\n"
        "---\n\nName: Ann\nMOTION: Adopt JWT\n\n---\n\nName: Bo\nSECOND: yes\n"
    ),
    "bare name line": "---\n\nName: Ann\nText.\nName: Bare\nMore.\n",
    "carriage returns": "---\r\n\r\nName: Ann\r\nText.\r\n",
    "no comment yet": "",
}

SAID = [
    "CONFIDENCE: 11",
    "ROOT-CAUSE: cache stale\nCONFIDENCE: 7",
    "OUTCOME: maybe",
    "OUTCOME: right",
    "SCORE: high",
    "SCORE: 8\nPENDING: the tests",
    "MOTION: Adopt JWT",
    "SECOND: yes",
    "BALLOT: YES",
    "GOVERNS: src/app.py",
    "DECISION: Use JWT\nGOVERNS: src/app.py",
    "BESLUIT: toch niet",
    "See src/app.py:10 and `src/app.py#L3`.",
    "```\nCONFIDENCE: 11\n---\n\nName: Inside\n```",
    "```\nnever closed",
    "@architekt please look",
    "<<<<<<< HEAD\nours",
]


def _derived(path: Path) -> tuple[int, list[str]]:
    """What a derivation of the whole file says: its comments, and the warnings at the
    lines of its last comment (as `comment` said them before it asked the bytes)."""
    d = Discussion.load(path)
    start = d.comments[-1].line if d.comments else 0
    return len(d.comments), [
        f"line {w.line}: {w.message}"
        for w in d.warnings
        if w.line >= start > 0 and w.severity in ("error", "warning") and w.code != "mention-typo"
    ]


@pytest.mark.parametrize("above", ABOVE, ids=list(ABOVE))
@pytest.mark.parametrize("said", SAID)
def test_comment_tells_what_the_whole_derivation_says(
    isolated: Path, above: str, said: str
) -> None:
    path = isolated / "discussions" / "d.md"
    path.parent.mkdir()
    newline = "\r\n" if "\r" in ABOVE[above] else "\n"
    path.write_bytes((HEADER.replace("\n", newline) + ABOVE[above]).encode())
    posted = comment(Workspace.discover(), path, "Rob", said, vote="READY")
    count, problems = _derived(path)
    assert posted.comments == count
    assert posted.notices == problems


def test_the_bytes_tell_a_plain_file_without_a_parse(isolated: Path) -> None:
    """The files of the test above that the bytes tell: not every one falls back."""
    data = (HEADER + ABOVE["separator in code"] + ABOVE["plain"]).encode()
    assert boundaries(data, 0, None).count == len(parse_document(data.decode()).comments) == 3
    for above in ("bare name line", "carriage returns"):
        assert boundaries((HEADER + ABOVE[above]).encode(), 0, None).count is None


def test_comment_after_comment_tells_what_the_whole_derivation_says(isolated: Path) -> None:
    """Each comment scans only what was appended since the last (`filefacts`): the counts
    added up over the appends are the whole file's, whatever the comments above end with."""
    path = isolated / "discussions" / "d.md"
    path.parent.mkdir()
    path.write_text(HEADER + ABOVE["separator in code"], encoding="utf-8")
    ws = Workspace.discover()
    for said in [*SAID, "Text.\n\n---", "```\n---\n\n", "CONFIDENCE: 11\n\n---\n\n---"]:
        posted = comment(ws, path, "Rob", said)
        assert (posted.comments, posted.notices) == _derived(path)


_LINES = st.sampled_from(
    [
        "---",
        "---\n\nName: Ann",
        "---\nName: Rob",
        "",
        "  ",
        "Name: Ann",
        "```",
        "~~~",
        "    indented",
        "<div>",
        "</div>",
        "<!-- note -->",
        "- item",
        "Text.",
        "VOTE: READY",
        "VOTE: maybe",
        "CONFIDENCE: 12",
        "ROOT-CAUSE: x",
        "OUTCOME: perhaps",
        "SCORE: ten",
        "MOTION: m",
        "SECOND: yes",
        "BALLOT: NO",
        "GOVERNS: a.py",
        "EVIDENCE: 1",
        "<!-- VOTE-RESET: initial_feedback -->",
        "<!-- ROUND: 1 | of: 2 -->",
        "caf\udce9 (not UTF-8)",
    ]
)


_OPENINGS = st.sampled_from(
    ["---\n\nName: Ann", "---\nName: Rob", "---\n\n---\n\nName: Bo", "Text."]
)
_COMMENTS = st.lists(st.tuples(_OPENINGS, st.lists(_LINES, max_size=6)), max_size=8)


@settings(max_examples=300, deadline=None)
@given(_COMMENTS)
def test_the_bytes_say_what_the_whole_derivation_says(
    comments: list[tuple[str, list[str]]],
) -> None:
    """Random files: where the bytes tell (`last_comment`), the count and the last comment's
    warnings are the whole derivation's; elsewhere it is the whole derivation that answers."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder) / "d.md", HEADER)
        lines = [line for opening, body in comments for line in (opening, *body)]
        text = HEADER + "\n".join(lines) + "\n"
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        d = Discussion.load(path, Workspace.discover())
        count, warnings = last_comment_told(d)
        assert (count, [f"line {w.line}: {w.message}" for w in warnings]) == _all(path)


@settings(max_examples=300, deadline=None)
@given(_COMMENTS, st.sets(st.integers(0, 60)))
def test_boundaries_added_up_over_parts_are_those_of_the_whole(
    comments: list[tuple[str, list[str]]], cuts: set[int]
) -> None:
    """Cut before some ``\\nName:`` lines (as `filefacts` cuts), the parts' sum is the
    whole's, and where it tells, the count is the parse's."""
    lines = [line for opening, body in comments for line in (opening, *body)]
    data = (HEADER + "\n".join(lines) + "\n").encode("utf-8", "surrogateescape")
    names = [i for i in range(len(data)) if data.startswith(b"\nName:", i)]
    at, found = 0, None
    for cut in sorted({names[c % len(names)] for c in cuts} if names else set()):
        found = boundaries(data[at:cut], at, found) if cut > at else found
        at = cut
    whole, summed = boundaries(data, 0, None), boundaries(data[at:], at, found)
    assert summed.to_json()[:-1] == whole.to_json()[:-1] and summed.count == whole.count
    if whole.count is not None:  # then `last` is known (else it need not be)
        assert summed.last == whole.last
        doc = parse_document(data.decode("utf-8", errors="replace"))
        assert whole.count == len(doc.comments)
        last, line = doc.comments[-1], data.count(b"\n", 0, whole.last) + 1
        assert data.startswith(b"---", whole.last) and last.separator_line <= line < last.line


def _all(path: Path) -> tuple[int, list[str]]:
    d = Discussion.load(path)
    start = d.comments[-1].line if d.comments else 0
    return len(d.comments), [
        f"line {w.line}: {w.message}" for w in d.warnings if w.line >= start > 0
    ]
