"""The chair of `discussions run`: after each round, follow the phase graph (see `graph`).

For a phase with ``transitions`` or a ``fallback``, after each round:

1. the first transition whose condition holds moves the discussion to its target (``consensus``:
   the phase's votes or scores reach consensus, or in a ``diagnosis`` phase the diagnosis
   converged; ``motion_passed``: a ``MOTION-RESULT: passed`` engine line since the phase
   started; ``rounds_exhausted``: the phase's ``max_rounds`` are used up);
2. else, with ``max_rounds`` used up, the fallback applies: ``end`` stops the run, ``escalate``
   asks the humans, ``next`` moves to the phase's ``next``. A ``FALLBACK`` engine block with the
   resolution text is written first.

A template's ``max_phase_transitions`` caps the phase transitions a discussion makes (every
``PHASE-TRANSITION`` in the file counts): at the cap, the run escalates instead of moving.
Phases without transitions or fallback keep the run's older rules (`deliberation`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ...model.discussion import Discussion
from ...syntax.render import neutralise
from ..turn import phases

_MOTION_PASSED = re.compile(r"^[ ]{0,3}<!--[ \t]*MOTION-RESULT[ \t]*:[ \t]*passed\b", re.M | re.I)

_Escalate = Callable[[Discussion, str, str], str]


@dataclass(slots=True)
class Step:
    """What the chair did after a round."""

    handled: bool
    """The graph decided (False: the run's older rules apply)."""
    stop: str | None = None
    """The stop reason, when the run ends."""


def render_fallback(phase: str, action: str, rounds: int, resolution: str) -> str:
    text = (
        f"Phase '{phase}' used its {rounds} round{'s' if rounds != 1 else ''}; fallback: {action}."
    )
    if resolution:
        text += " " + resolution
    body = neutralise(text).strip()
    return f"<!-- FALLBACK: {action} | phase: {phase} | rounds: {rounds} -->\n\n*{body}*\n"


def motion_passed(d: Discussion) -> bool:
    """A passed motion since the current phase started (the motions feature's engine line)."""
    text = d.text
    since = d.phase_started_line
    return any(text.count("\n", 0, m.start()) + 1 > since for m in _MOTION_PASSED.finditer(text))


def phase_consensus(d: Discussion) -> bool:
    """Consensus in the current phase: a converged diagnosis in a diagnosis phase, else the
    votes (or scores) of a voting phase."""
    info = d.phase_info
    if info is None:
        return False
    if info.diagnosis:
        return d.diagnosis.converged
    return info.voting_mode and d.has_consensus()


def after_round(d: Discussion, in_phase: int, escalate: _Escalate) -> Step:
    """Follow the graph after a round `in_phase` rounds into the current phase."""
    info = d.phase_info
    if info is None or not (info.transitions or info.fallback):
        return Step(False)
    exhausted = info.max_rounds is not None and in_phase >= info.max_rounds
    for t in info.transitions:
        if (
            (t.when == "consensus" and phase_consensus(d))
            or (t.when == "rounds_exhausted" and exhausted)
            or (t.when == "motion_passed" and motion_passed(d))
        ):
            return Step(True, move(d, t.to, escalate))
    if exhausted and info.fallback is not None and info.max_rounds is not None:
        fb = info.fallback
        d.add_block(render_fallback(d.phase, fb.action, info.max_rounds, fb.resolution))
        d.save()
        if fb.action == "end":
            return Step(True, "ended")
        if fb.action == "escalate":
            why = f"no way forward after {info.max_rounds} rounds in '{d.phase}'"
            return Step(True, escalate(d, "max_rounds", why))
        if info.next is not None:
            return Step(True, move(d, info.next, escalate))
    return Step(False)


def move(d: Discussion, to: str, escalate: _Escalate) -> str | None:
    """Move to phase `to` unless the template's transition cap is reached; settle the phase
    rules after. Returns a stop reason, or None to go on."""
    t = d.template
    cap = t.max_phase_transitions if t else None
    if cap is not None and d.phase_transitions >= cap:
        return escalate(d, "max_transitions", f"the limit of {cap} phase transitions is reached")
    status = d.status
    d.advance(to, strict=False)
    d.save()
    phases.settle(d)
    return "consensus" if d.status != status else None
