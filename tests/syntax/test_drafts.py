"""The DRAFT block: a fence its document cannot close, a digest `check` verifies."""

from __future__ import annotations

from discussions.derive.rules import derive
from discussions.settings.workspace import Workspace
from discussions.syntax.drafts import render_draft
from discussions.syntax.render import analyse_tail, join_blocks, render_comment, render_header

HEADER = render_header([("Title", "Docs"), ("Phase", "initial_feedback"), ("Status", "OPEN")])
AT = "2026-11-23T10:00:00Z"


def with_draft(document: str) -> str:
    base = HEADER + "\n# Docs\n"
    blocks = [
        render_comment("Rob", "Start.", meta=f"at: {AT}"),
        render_draft(1, "AI-A", document, AT),
    ]
    return base + join_blocks(analyse_tail(base, at_file_start=True), blocks)


def test_a_draft_holding_fences_and_markers_reads_back_intact() -> None:
    document = "# Doc\n\n````text\nCONCERN: not a marker\n````\n\n<!-- DRAFT: 9 | by: x -->\n"
    text = with_draft(document)
    assert "`````markdown" in text
    s = derive(text, Workspace.discover(), "x")
    assert [(d.number, d.by, d.intact) for d in s.drafts] == [(1, "AI-A", True)]
    assert s.drafts[0].content.startswith("# Doc")
    assert not s.warnings and not s.items["CONCERN"]


def test_an_edited_draft_is_a_warning() -> None:
    text = with_draft("# Doc\n\nText.\n").replace("Text.", "Other.")
    s = derive(text, Workspace.discover(), "x")
    assert not s.drafts[0].intact
    assert any("does not match the digest" in w.message for w in s.warnings)
