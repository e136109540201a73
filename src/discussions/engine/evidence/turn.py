"""Evidence around a turn: what to say before any token is spent (no real AI CLI, an attached
path gone), requests fulfilled before and after the answers, and the one follow-up call for a
participant whose request was fulfilled during the turn."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import DiscussionsError
from ...settings.evidence import evidence_settings
from .fulfil import Fulfilled, confinement_for, fulfil_pending

if TYPE_CHECKING:
    from ...model.discussion import Discussion
    from ...settings.participants import Participant


class _TurnNotes(Protocol):
    """What a turn's result holds of its evidence (`turn.outcomes.TurnResult` is one): the
    blocks written, the participants asked again, and the warnings."""

    warnings: list[str]
    evidence: list[dict[str, Any]]
    follow_ups: list[str]


def preflight_notes(d: Discussion) -> list[str]:
    """What a turn or run says before calling anyone: attached files that no longer exist.
    (That no AI CLI is installed, the runner says before the mock answers.)"""
    attached = [e for e in d.evidence if e.asked_line == 0 and e.status == "fulfilled"]
    if not attached:
        return []
    where = confinement_for(d, evidence_settings(d.workspace.config))
    notes: list[str] = []
    for e in attached:
        path = e.request.removeprefix("read ")
        if e.request.startswith("read ") and not (where.root / path).exists():
            notes.append(f"attached {path} (evidence {e.number}) no longer exists")
    return notes


def fulfil_quietly(
    d: Discussion, result: _TurnNotes, *, reload: bool = True, spent: Counter[str] | None = None
) -> Fulfilled:
    """`fulfil_pending`, its blocks recorded in `result`; a failure is a warning, not an
    error (the answers are in)."""
    try:
        done = fulfil_pending(d, reload=reload, spent=spent)
    except DiscussionsError as exc:
        result.warnings.append(f"evidence not fulfilled: {exc}")
        return Fulfilled()
    result.evidence.extend(done.to_dict()["blocks"])
    return done


def after_answers(
    d: Discussion,
    chosen: Sequence[Participant],
    result: _TurnNotes,
    ask_again: Callable[[list[Participant]], None],
) -> None:
    """Fulfil the requests the answers made; ask each participant whose request was fulfilled
    once more, with the evidence in its prompt (``evidence.follow_up``); fulfil what the
    follow-ups ask, without another round."""
    done = fulfil_quietly(d, result)
    if not done.blocks or not evidence_settings(d.workspace.config).follow_up:
        return
    again = [p for p in chosen if p.name in done.answered]
    if not again:
        return
    for p in again:
        result.follow_ups.append(p.alias)
    ask_again(again)
    fulfil_quietly(d, result, spent=done.spent())  # the limit is per turn
