"""Phase rules: when a phase advances or a discussion is decided by itself.

* ``all_mentioned_responded``: every participant of the discussion has commented in this phase
  and no registered participant has an unanswered @mention. Then the phase moves to its next.
* ``consensus`` (in a voting phase): the votes reach consensus. Then the phase moves to its next.
* A terminal phase (no next) decides the discussion: in a voting phase, consensus changes the
  status to the template's ``consensus_status``; a non-voting terminal phase (``approved``) is an
  end state, so arriving in it does the same. A person can always `close` or `reopen` by hand;
  after a reopen, a non-voting end state does not close the discussion again by itself.

Changes are decided and written in one step under the file lock (`settle`), so concurrent turns
never write the same transition twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model.discussion import Discussion


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
    """What the rules call for now, if anything. Under ``consensus.grounded_votes`` the
    citations are resolved first (`git.grounding`), so the engine counts what `status` shows."""
    info = d.phase_info
    template = d.template
    if info is None or template is None:
        return None
    if d.workspace.config.grounded_votes and d.grounding is None:
        from ...git.grounding import ground

        ground(d)
    if info.next is None and info.transitions:
        return None  # the phase graph leads on from here (`chair`)
    if info.next is None:
        return _decided(d)
    if info.auto_trigger == "all_mentioned_responded" and all_mentioned_responded(d):
        return AutoAdvance("phase", info.next, "every participant has responded")
    if info.auto_trigger == "consensus" and info.diagnosis and d.diagnosis.converged:
        return AutoAdvance("phase", info.next, f"the diagnosis converged on '{d.diagnosis.key}'")
    if info.auto_trigger == "consensus" and info.voting_mode and d.has_consensus():
        return AutoAdvance("phase", info.next, f"consensus reached ({d.consensus_result.reason})")
    return None


def _decided(d: Discussion) -> AutoAdvance | None:
    """In a terminal phase: the status change that consensus (or arriving) calls for."""
    info = d.phase_info
    template = d.template
    assert info is not None and template is not None
    if d.status.upper() not in {"OPEN", template.status.upper()}:
        return None  # decided or closed already (by the rules or by hand)
    if d.status == template.consensus_status:
        return None
    if info.diagnosis and not info.voting_mode:  # decided when the diagnosis converges
        key = d.diagnosis.key
        if key is None:
            return None
        reason = f"the diagnosis converged on '{key}'"
        return AutoAdvance("status", template.consensus_status, reason)
    if info.voting_mode:
        if d.has_consensus():
            return AutoAdvance(
                "status",
                template.consensus_status,
                f"consensus reached ({d.consensus_result.reason})",
            )
        return None
    if d.phase_started_line > 0 and d.status_changed_line < d.phase_started_line:
        return AutoAdvance(
            "status", template.consensus_status, f"reached the final phase '{d.phase}'"
        )
    return None


def apply(d: Discussion, change: AutoAdvance) -> None:
    """Queue `change` on `d` (the caller saves). Dropped at save time if the file has moved on."""
    if change.kind == "phase":
        d.advance(change.target, strict=False)
    else:
        d.set_status(change.target, strict=False)


def settle(d: Discussion, limit: int = 3) -> list[AutoAdvance]:
    """Apply what the rules call for, each change decided and written under the file lock
    against the file as it is then. Returns the changes written.

    The file is read first without the lock: when the rules call for nothing there, no lock
    is taken (a process appending after this read settles its own append; whoever appends
    last reads everything). A change is only ever decided and written under the lock."""
    changes: list[AutoAdvance] = []

    def step(now: Discussion) -> AutoAdvance | None:
        change = auto_advance(now)
        if change is not None:
            apply(now, change)
        return change

    if d.unsaved:
        d.save()
    for _ in range(limit):
        d.reload()
        if auto_advance(d) is None:
            break
        change = d.transact(step)
        if change is None:
            break
        changes.append(change)
    return changes
