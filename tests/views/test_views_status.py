"""`views.status`: what `discussions status` shows, as lines with tones and as JSON, from the
derived state of a real file; the command prints exactly these."""

from __future__ import annotations

import json
from pathlib import Path

from discussions import Discussion
from discussions.views.status import Span, author_votes, status_lines, status_of

from ..conftest import out, run, write_signed

HEADER = """\
<!-- DISCUSSION -->
<!-- Title: Token expiry -->
<!-- Phase: initial_feedback -->
<!-- Status: OPEN -->
<!-- Template: feature -->
<!-- Participants: architect, security -->

# Token expiry
"""

BODY = """
---

Name: Rob

Q: how long should a token live?
VOTE: REJECT

---

<!-- PHASE-TRANSITION: initial_feedback -> detailed_review -->

---

Name: AI-Architect

One hour is enough. @security?
DECISION: tokens expire after an hour
TODO: write the refresh flow
VOTE: READY

---

Name: Ann

CONCERN: clock skew

---

<!-- ESCALATION: max_rounds -->
"""


def make(tmp: Path, body: str = BODY, title: str = "Token expiry") -> Discussion:
    text = HEADER.replace("Title: Token expiry", f"Title: {title}") + body
    return Discussion.load(write_signed(tmp / "discussions" / "d.md", text))


def texts(d: Discussion, verbose: bool = False) -> list[str]:
    return [line.text for line in status_lines(d, verbose=verbose)]


def test_author_votes_come_from_the_derived_votes(isolated: Path) -> None:
    """A vote from before the phase began is shown as such, not counted; the vote held in
    this phase is `Discussion.votes`."""
    d = make(isolated)
    assert d.votes == {"AI-Architect": "READY"}
    assert author_votes(d) == {
        "Rob": (
            "no vote in detailed_review (voted REJECT before)",
            "Q: how long should a token live?",
        ),
        "AI-Architect": ("READY", "One hour is enough. @security?"),
        "Ann": (None, "CONCERN: clock skew"),
    }


def test_lines_say_phase_votes_consensus_and_items(isolated: Path) -> None:
    lines = texts(make(isolated))
    assert lines[0].startswith("Escalation (line ")
    assert lines[0].endswith(
        "the participants did not agree (max_rounds); a human has to decide: vote, "
        "write DECISION:, advance or close."
    )
    assert lines[1:8] == [
        "Discussion: Token expiry",
        "File: discussions/d.md",
        "Phase: detailed_review (Detailed Review)",
        "Status: OPEN",
        "Participants: architect, security",
        "",
        "Comments: 3 from 3 author(s)",
    ]
    assert (
        "  Rob: no vote in detailed_review (voted REJECT before) - Q: how long should a token live?"
        in lines
    )
    assert "  Ann: no vote - CONCERN: clock skew" in lines
    assert "Votes: READY: 1, CHANGES: 0, REJECT: 0" in lines
    assert any(t.startswith("Consensus: not reached (") for t in lines)
    assert "Open questions (1):" in lines
    assert "Decisions (1):" in lines
    assert "  CONCERN: clock skew (Ann, line 34)" in lines
    assert "Waiting for (1):" in lines
    # TODOs and every comment only with verbose.
    assert "TODOs (1):" not in lines and "All comments:" not in lines
    verbose = texts(make(isolated), verbose=True)
    assert "TODOs (1):" in verbose
    assert "  line 23: AI-Architect [mock] VOTE: READY" in verbose


def test_tones_mark_what_an_interface_may_colour(isolated: Path) -> None:
    lines = status_lines(make(isolated, title="Token expiry"))
    assert lines[0].spans[0] == Span("Escalation", "alert")
    assert lines[1].spans == [Span("Discussion: "), Span("Token expiry", "strong")]
    consensus = next(line for line in lines if line.text.startswith("Consensus:"))
    assert consensus.spans[1] == Span("not reached")
    reached = make(
        isolated, "\n---\nName: AI-Architect\nVOTE: READY\n---\nName: AI-Security\nVOTE: READY\n"
    )
    consensus = next(line for line in status_lines(reached) if line.text.startswith("Consensus:"))
    assert consensus.spans[1] == Span("reached", "good")
    warned = make(isolated, "\n---\nName: Rob\nHello @securty.\n")
    spans = [s for line in status_lines(warned) for s in line.spans]
    assert Span("Warnings (1):", "warning") in spans


def test_an_empty_discussion_has_no_sections(isolated: Path) -> None:
    lines = texts(make(isolated, body=""))
    assert lines == [
        "Discussion: Token expiry",
        "File: discussions/d.md",
        "Phase: initial_feedback (Initial Feedback)",
        "Status: OPEN",
        "Participants: architect, security",
        "",
        "Comments: 0 from 0 author(s)",
        "",
        "Votes: READY: 0, CHANGES: 0, REJECT: 0",
        "Consensus: not reached (no votes yet)",
    ]


def test_the_command_prints_the_view(isolated: Path) -> None:
    """`status` prints the lines, `status --json` the object: no logic of its own."""
    make(isolated, title="Token \x1b[31mexpiry")
    d = Discussion.load("discussions/d.md")  # as the command names it
    for args, verbose in (([], False), (["-v"], True)):
        r = run("status", "discussions/d.md", *args)
        assert r.exit_code == 0, out(r)  # type: ignore[attr-defined]
        shown = "".join(f"{t}\n" for t in texts(d, verbose=verbose))
        assert out(r) == shown.replace("\x1b", "\\x1b")
    r = run("status", "discussions/d.md", "--json")
    assert json.loads(out(r)) == json.loads(json.dumps(status_of(d)))
    assert status_of(d)["usage"]["calls"] == 1  # type: ignore[index]  # AI-Architect, signed
