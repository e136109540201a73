"""What `check` notes about a discussion's council as a whole (`settings.shape`): an even
number of voting members where a phase counts votes.

The council design seats odd-member councils: where votes are counted (a phase whose
``consensus_mode`` is ``votes`` or ``vote_first``, `derive.voting.calculate_consensus`; a
motion's ballot, `derive.motions`), an even council can split evenly, and a tie decides
nothing. A ``score`` phase asks every scorer for the threshold (unanimity), where the number
does not matter. An even council is not an error in the file, so this is a note: printed as a
warning, at the ``Participants:`` header line, and the check still passes."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..model.discussion import Discussion

__all__ = ["COUNTED_MODES", "council_notes"]

COUNTED_MODES = ("votes", "vote_first")
"""The consensus modes that count votes (a tie is possible), as templates name them."""
_PARTICIPANTS = re.compile(r"^<!--\s*participants\s*:", re.I)


def council_notes(d: Discussion) -> list[tuple[int, str]]:
    """The even-council note of `d` (module docstring) as (line, message); empty for an odd
    council or one that never counts votes. `check` reports it as a warning that does not
    fail (a note)."""
    voters = d.expected_voters
    if len(voters) < 2 or len(voters) % 2:
        return []
    t = d.template
    counted = [
        p.id for p in (t.phases if t else []) if p.voting_mode and p.consensus_mode in COUNTED_MODES
    ]
    if not counted:
        return []
    message = (
        f"an even council: {len(voters)} voting members ({', '.join(voters)}) in phases that "
        f"count votes ({', '.join(counted)}), where a vote can tie; seat an odd number "
        "(add or drop a voting member, or make one `type: background`)"
    )
    return [(_participants_line(d), message)]


def _participants_line(d: Discussion) -> int:
    """The line of the ``Participants:`` header field (1 when the header has none)."""
    for i, line in enumerate(d.text.split("\n", 40)[:40], 1):
        if _PARTICIPANTS.match(line):
            return i
    return 1
