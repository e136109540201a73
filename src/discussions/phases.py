"""Phase rules: when a phase advances by itself (seed 004, "Phases", auto_trigger).

* ``all_mentioned_responded``: every participant of the discussion has commented in this phase
  and no registered participant has an unanswered @mention. Then the phase moves to its next.
* ``consensus`` (in a voting phase): the votes reach consensus. Then the phase moves to its
  next, or, in the last phase, the status becomes the template's ``consensus_status``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Discussion


@dataclass(slots=True)
class AutoAdvance:
    """A change the rules call for."""

    kind: str
    """``phase`` or ``status``."""
    target: str
    """Phase id or status value."""
    reason: str
    """Why, in a few words."""


def all_mentioned_responded(d: Discussion) -> bool:
    registry = d.workspace.participants
    if any(p.alias in registry for p in d.pending_mentions):
        return False
    since = d.phase_started_line
    spoke = {registry.author_alias(c.author) for c in d.comments if c.line > since}
    return bool(d.participants) and all(alias in spoke for alias in d.participants)


def auto_advance(d: Discussion) -> AutoAdvance | None:
    """What the current phase's auto_trigger calls for now, if anything."""
    info = d.phase_info
    template = d.template
    if info is None or template is None or info.auto_trigger is None:
        return None
    if info.auto_trigger == "all_mentioned_responded":
        if info.next and all_mentioned_responded(d):
            return AutoAdvance("phase", info.next, "every participant has responded")
        return None
    if info.auto_trigger == "consensus" and info.voting_mode and d.has_consensus():
        reason = f"consensus reached ({d.consensus_result.reason})"
        if info.next:
            return AutoAdvance("phase", info.next, reason)
        if d.status != template.consensus_status:
            return AutoAdvance("status", template.consensus_status, reason)
    return None


def apply(d: Discussion, change: AutoAdvance) -> None:
    """Queue `change` on `d` (the caller saves)."""
    if change.kind == "phase":
        d.advance(change.target)
    else:
        d.set_status(change.target)
