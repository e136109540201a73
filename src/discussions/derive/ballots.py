"""The per-file state of honest verdicts, by rules: who is expected to vote, each voter's
first ballot in the current phase, every position round by round with its flips
(`positions.audit`), and the current phase's rules as they apply now.

* ``vote_first``: until every expected voter has voted in the phase (its first ballot), the
  phase is blind: each prompt holds the context and the participant's own comments only.
* ``flip_threshold: N``: once more than N flips of the discussion cite nothing new, the
  phase is anonymous from then on (other authors become "Participant A/B/...").

`model.verdicts` reads these for the debate delta and what a prompt says of the ballot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .positions import audit

if TYPE_CHECKING:
    from .state import State

VOTE_FIRST = "vote_first"


def rule_voters(s: State) -> None:
    """`State.expected_voters`: the display names of the participants whose votes count."""
    registry = s.registry
    for alias in s.participants:
        if alias in registry and (p := registry.get(alias)).votes:
            s.expected_voters.append(p.name)


def rule_first_ballot(s: State) -> None:
    """`State.first_ballot`: each voter's first vote in the current phase (vote, line)."""
    for c in s.comments:
        if c.vote and c.line > s.phase_line and c.author not in s.first_ballot:
            s.first_ballot[c.author] = (c.vote, c.line)


def rule_positions(s: State) -> None:
    """`State.positions`: every author's positions round by round and their flips."""
    s.positions = audit(s.comments, s.runs, s.evidence, s.items["DECISION"], s.registry)


def _first_ballot_open(s: State) -> bool:
    """Whether the current phase is ``vote_first`` and some expected voter has not cast its
    first ballot in it yet."""
    info = s.template.phase(s.phase) if s.template else None
    if info is None or info.consensus_mode != VOTE_FIRST:
        return False
    return any(name not in s.first_ballot for name in s.expected_voters)


def rule_phase_rules(s: State) -> None:
    """`State.phase_info`: the current phase's definition as its rules apply now: blind while
    a ``vote_first`` ballot is open, anonymous once the flips citing nothing new exceed
    ``flip_threshold``."""
    info = s.template.phase(s.phase) if s.template else None
    if info is None:
        return
    blind = info.consensus_mode == VOTE_FIRST and not info.blind and _first_ballot_open(s)
    anonymous = (
        info.flip_threshold is not None
        and not info.anonymous
        and len(s.positions.unexplained) > info.flip_threshold
    )
    if blind or anonymous:
        info = info.replaced(blind=info.blind or blind, anonymous=info.anonymous or anonymous)
    s.phase_info = info
