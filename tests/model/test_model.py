"""State reconstructed from the file, and changes made through the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from discussions import Discussion, DiscussionNotFound, InvalidVote, PhaseError

from ..conftest import sign_ai_comments, write

HEADER = """\
<!-- DISCUSSION -->
<!-- Title: Votes -->
<!-- Phase: initial_feedback -->
<!-- Status: OPEN -->
<!-- Template: feature -->
<!-- Participants: architect, security, researcher -->

# Votes
"""


def make(tmp: Path, body: str) -> Discussion:
    return Discussion.load(write(tmp / "d.md", sign_ai_comments(HEADER + body)))


def test_latest_vote_per_participant(isolated: Path) -> None:
    d = make(
        isolated,
        """
---
Name: AI-Architect
VOTE: CHANGES
---
Name: Rob
VOTE: READY
---
Name: AI-Architect
VOTE: READY
""",
    )
    assert d.votes == {"Rob": "READY", "AI-Architect": "READY"}
    assert d.has_consensus()


def test_transition_and_reset_restart_votes(isolated: Path) -> None:
    d = make(
        isolated,
        """
---
Name: AI-Architect
VOTE: REJECT
---

<!-- PHASE-TRANSITION: initial_feedback -> detailed_review -->

---
Name: Rob
VOTE: READY
""",
    )
    assert d.phase == "detailed_review"
    assert d.votes == {"Rob": "READY"}
    d2 = make(
        isolated,
        """
---
Name: Rob
VOTE: READY

<!-- VOTE-RESET: initial_feedback -->
""",
    )
    assert d2.phase == "initial_feedback"
    assert d2.votes == {}


def test_background_votes_do_not_count(isolated: Path) -> None:
    d = make(
        isolated, "\n---\nName: AI-Researcher\nVOTE: REJECT\n---\nName: AI-Architect\nVOTE: READY\n"
    )
    assert d.votes == {"AI-Architect": "READY"}
    assert d.comments[0].vote == "REJECT"  # still shown on the comment itself


def test_pending_mentions(isolated: Path) -> None:
    d = make(
        isolated,
        """
---
Name: Rob
@architect and @security, thoughts? Also @rob (myself) and @nobody.
---
Name: AI-Architect
Done.
---
Name: AI-Security
@architect one more thing
""",
    )
    assert [(p.alias, p.by) for p in d.pending_mentions] == [
        ("nobody", "Rob"),
        ("architect", "AI-Security"),
    ]


def test_at_all_expands_to_participants(isolated: Path) -> None:
    d = make(isolated, "\n---\nName: Rob\n@all please look\n---\nName: AI-Security\nok\n")
    assert [p.alias for p in d.pending_mentions] == ["architect", "researcher"]


def test_status_change_marker(isolated: Path) -> None:
    d = make(isolated, "\n<!-- STATUS-CHANGE: OPEN -> CLOSED -->\n")
    assert d.status == "CLOSED"


def test_title_falls_back_to_heading_then_file_name(isolated: Path) -> None:
    assert Discussion.load(write(isolated / "a.md", "# From heading\n")).title == "From heading"
    assert Discussion.load(write(isolated / "b-c.md", "no heading\n")).title == "b-c"


def test_unknown_phase_and_template_are_warnings(isolated: Path) -> None:
    d = Discussion.load(write(isolated / "a.md", "<!-- DISCUSSION -->\n<!-- Phase: nope -->\n"))
    assert any("nope" in w.message for w in d.warnings)
    d = Discussion.load(write(isolated / "b.md", "<!-- DISCUSSION -->\n<!-- Template: zzz -->\n"))
    assert any("unknown template 'zzz'" in w.message for w in d.warnings)
    d = Discussion.load(write(isolated / "c.md", "no header\n"))
    assert [w.message for w in d.warnings] == ["missing `<!-- DISCUSSION -->` header line"]


def test_load_missing_file(isolated: Path) -> None:
    with pytest.raises(DiscussionNotFound):
        Discussion.load(isolated / "nope.md")


def test_create_add_comment_advance_save(isolated: Path) -> None:
    d = Discussion.create("Feature X", template="feature", context="We need to implement...")
    assert d.path == isolated / "discussions" / "feature-x.md"
    assert d.title == "Feature X" and d.phase == "initial_feedback" and d.status == "OPEN"
    assert d.participants == ["architect", "security", "pragmatist"]
    d.save()
    before = d.path.read_bytes()
    d.add_comment(author="Rob", text="I agree with the security concerns.", vote="changes")
    assert d.votes == {"Rob": "CHANGES"}  # visible before saving
    d.save()
    assert d.path.read_bytes().startswith(before)
    assert d.advance() == "detailed_review"
    d.save()
    assert Discussion.load(d.path).phase == "detailed_review"
    assert Discussion.load(d.path).votes == {}


def test_create_refuses_to_overwrite(isolated: Path) -> None:
    Discussion.create("Same").save()
    from discussions import DiscussionExists

    with pytest.raises(DiscussionExists):
        Discussion.create("Same").save()


def test_invalid_inputs(isolated: Path) -> None:
    d = Discussion.create("X")
    d.save()
    with pytest.raises(InvalidVote):
        d.add_comment("Rob", "hi", vote="maybe")
    with pytest.raises(InvalidVote):
        d.add_comment("Rob", "   ")
    with pytest.raises(PhaseError):
        d.advance("nope")
    with pytest.raises(PhaseError):
        d.advance("initial_feedback")
    d.advance("consensus_vote")
    d.save()
    with pytest.raises(PhaseError, match="last phase"):
        Discussion.load(d.path).advance()


def test_adr_template_title_and_status(isolated: Path) -> None:
    d = Discussion.create("Use Postgres", template="architecture-decision")
    assert d.title == "ADR: Use Postgres"
    assert d.status == "PROPOSED"
    assert d.phase == "proposal"
