"""The one table of item sections (`model.sections.SECTIONS`): every view takes its headings
and markers from it, and a `Discussion` exposes each section under its key."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.model import sections, summary
from discussions.model.discussion import Discussion
from discussions.tui.data import side_panel
from discussions.views.panel import panel_html

BODY = """
---

Name: Ana
Q: which queue?
DECISION: use SQS
TODO: write the adapter
ASSIGNED: @bob review it
DONE: spike
CONCERN: cost at scale
"""


@pytest.fixture
def d(isolated: Path) -> Discussion:
    made = Discussion.create("Queues")
    made.save()
    with made.path.open("a", encoding="utf-8") as f:
        f.write(BODY)
    return Discussion.load(made.path)


def test_the_table_names_each_marker_once() -> None:
    keys = [s.key for s in sections.SECTIONS]
    markers = [s.marker for s in sections.SECTIONS]
    assert keys == ["questions", "decisions", "todos", "assigned", "done", "concerns"]
    assert markers == ["Q", "DECISION", "TODO", "ASSIGNED", "DONE", "CONCERN"]
    assert sections.BY_KEY["questions"].heading == "Open questions"
    assert sections.pick("concerns", "questions") == (
        sections.BY_KEY["questions"],
        sections.BY_KEY["concerns"],
    )
    with pytest.raises(KeyError):
        sections.pick("question")


def test_each_section_is_a_discussion_property_and_a_json_key(d: Discussion) -> None:
    data = d.to_dict()
    for s in sections.SECTIONS:
        items = d.items_of(s)
        assert len(items) == 1, s.key
        assert getattr(d, s.key) == items
        assert data[s.key] == [i.to_dict() for i in items]


def test_every_view_uses_the_same_headings(d: Discussion) -> None:
    status = CliRunner().invoke(cli, ["status", "-v", str(d.path)]).output
    written = summary.render_summary(d)
    html = panel_html(d)
    tui = side_panel(d)
    for s in sections.SECTIONS:
        assert f"{s.heading} (1):" in status
        assert f"  {s.marker}: " in status
        assert f"## {s.heading} (1)" in written
        assert f"{s.heading} (1)" in html
    for s in sections.pick("questions", "decisions", "todos", "concerns"):
        assert f"[b]{s.heading}[/b] (1)" in tui
