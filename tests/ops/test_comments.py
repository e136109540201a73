"""`ops.comments`: a person's comment as `discussions comment` posts it, called directly
(the command parses its options and prints what `comment` returns)."""

from __future__ import annotations

from pathlib import Path

import pytest

from discussions import Discussion, DiscussionsError
from discussions.derive.rules import strip_meta
from discussions.ops.comments import comment, council_lines
from discussions.settings.workspace import Workspace

from ..conftest import write
from ..support.council import people_motion


def test_council_lines() -> None:
    assert council_lines() == ""
    assert council_lines("  Adopt\n JWT  ", "YES", "abstain") == (
        "MOTION: Adopt JWT\nSECOND: yes\nBALLOT: ABSTAIN"
    )
    with pytest.raises(DiscussionsError, match="a motion needs text"):
        council_lines(" \n ")


def test_a_comment_with_a_vote_and_a_mistyped_mention(isolated: Path) -> None:
    path = write(
        isolated / "discussions" / "d.md",
        "<!-- DISCUSSION -->\n<!-- Participants: architect, security -->\n\n# D\n",
    )
    posted = comment(Workspace.discover(), path, "Rob", "Is @securty happy?\n\n", vote="ready")
    d = Discussion.load(path)
    assert strip_meta(d.comments[-1].body).strip() == "Is @securty happy?\n\nVOTE: READY"
    assert d.votes == {"Rob": "READY"}
    assert (posted.author, posted.vote, posted.motions) == ("Rob", "READY", [])
    assert posted.typos == [("securty", "security")]
    assert posted.council_note == ""
    assert posted.to_dict() == {
        "file": "discussions/d.md",
        "author": "Rob",
        "vote": "READY",
        "comments": 1,
        "motions": [],
        "unknown_mentions": [{"alias": "securty", "did_you_mean": "security"}],
        "council_note": "",
        "notices": [],
    }


def test_the_last_ballot_records_the_result(isolated: Path) -> None:
    path = people_motion(isolated, "two.md", ballot=True)
    comment(Workspace.discover(), path, "Ana", second="yes")
    assert comment(Workspace.discover(), path, "Rob", ballot="yes").motions == []  # Ana to vote
    posted = comment(Workspace.discover(), path, "Ana", "I am not convinced.", ballot="no")
    assert [(m.line, m.result) for m in posted.motions] == [(9, "failed")]
    assert posted.council_note == ""
    text = path.read_text()
    assert "I am not convinced.\n\nBALLOT: NO" in text
    assert "<!-- MOTION-RESULT: failed | yes: 1 | no: 1 | abstain: 0 | line: 9 -->" in text
    # Someone not on the council is told their ballot is not counted.
    posted = comment(Workspace.discover(), path, "Lee", ballot="yes")
    assert posted.council_note.startswith("Note: Lee is not on this discussion's council")


def test_what_check_would_report_in_the_new_comment_is_said_at_once(isolated: Path) -> None:
    path = write(
        isolated / "discussions" / "d.md",
        "<!-- DISCUSSION -->\n<!-- Participants: architect -->\n\n# D\n",
    )
    ws = Workspace.discover()
    posted = comment(ws, path, "Rob", "Fine.\n\nCONFIDENCE: 11", vote="READY")
    [notice] = posted.notices
    line = Discussion.load(path).text.split("\n").index("CONFIDENCE: 11") + 1
    assert notice.startswith(f"line {line}: ") and "11" in notice
    assert comment(ws, path, "Ann", "CONFIDENCE: 7", vote="READY").notices == []
