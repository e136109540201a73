"""What each vote rests on (`Discussion.grounds`): the latest vote a voter holds since the
votes restarted, voters in the order they first cast the vote they hold, found however many
votes each cast before (the scan stops once every voter is found, from each end)."""

from __future__ import annotations

from pathlib import Path

from discussions.model.discussion import Discussion
from tests.conftest import write

HEAD = """<!-- DISCUSSION -->
<!-- Title: Grounds -->
<!-- Phase: initial_feedback -->
<!-- Status: OPEN -->

# Grounds
"""

COMMENTS = [
    ("Ada", ["CHANGES"]),
    ("Rob", ["READY"]),
    ("Ada", ["READY"]),
    ("Zoë", ["REJECT"]),
    ("Rob", ["READY", "CHANGES", "READY"]),  # the last of them in one comment
    ("Ada", ["READY"]),
    ("Kim", ["READY", "CHANGES"]),
]


def test_each_voter_rests_on_its_latest_held_vote_in_first_cast_order(isolated: Path) -> None:
    lines = HEAD.splitlines()
    cast: list[tuple[str, str, int]] = []  # (voter, value, line), in file order
    for author, values in COMMENTS:
        lines += ["", "---", "", f"Name: {author}", "A thought.", ""]
        for value in values:
            lines += [f"VOTE: {value}", ""]
            cast.append((author, value, len(lines) - 1))
    d = Discussion.load(write(isolated / "discussions" / "g.md", "\n".join(lines) + "\n"))
    votes, _ = d.grounds()

    assert d.votes == {"Ada": "READY", "Rob": "READY", "Zoë": "REJECT", "Kim": "CHANGES"}
    assert list(votes) == ["Rob", "Ada", "Zoë", "Kim"]  # Ada's first READY after Rob's
    latest = {who: line for who, value, line in cast if d.votes[who] == value}
    assert {w: (b.value, b.line) for w, b in votes.items()} == {
        w: (v, latest[w]) for w, v in d.votes.items()
    }
