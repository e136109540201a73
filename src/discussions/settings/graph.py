"""The phase graph of a template: transitions, fallbacks, and their validation.

A phase may say where `discussions run` goes next, and when::

    phases:
      - id: diagnosis
        max_rounds: 2
        transitions:
          - {to: convergence, when: consensus}
          - {to: convergence, when: rounds_exhausted}
        fallback: {action: escalate, resolution: "The humans pick the root cause."}
    max_phase_transitions: 6      # required when the phases form a cycle

``when`` is one of:

* ``consensus``: the phase reached consensus (its votes or scores; in a ``diagnosis`` phase,
  the diagnosis converged);
* ``motion_passed``: a motion was passed in this phase (an engine line
  ``<!-- MOTION-RESULT: passed ... -->`` after the phase started, written by the motions
  feature);
* ``rounds_exhausted``: the phase's ``max_rounds`` are used up.

``fallback`` applies when ``max_rounds`` are used up and no transition fired: ``end`` stops the
run, ``escalate`` asks the humans to decide, ``next`` moves to the phase's ``next``. Its
``resolution`` text is written into the file when it applies.

Validation (errors name the file, the line and the key): unknown targets, phases no path from
the first phase reaches, and cycles (through ``next`` or transitions) in a template without
``max_phase_transitions``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..syntax.record import Record

if TYPE_CHECKING:
    from ..errors import TemplateError
    from .phases import Phase

WHEN = ("consensus", "motion_passed", "rounds_exhausted")
FALLBACK_ACTIONS = ("end", "escalate", "next")

Keys = tuple[str | int, ...]
Fail = Callable[[Keys, str], "TemplateError"]


class Transition(Record):
    """One edge of the graph: `to`, the target phase id; `when`, one of `WHEN`.
    (A slotted `Record`: making a dataclass costs start-up time on every command.)"""

    __slots__ = ("to", "when")

    def __init__(self, to: str, when: str) -> None:
        self.to = to
        self.when = when

    def to_dict(self) -> dict[str, Any]:
        return {"to": self.to, "when": self.when}


class Fallback(Record):
    """What happens when a phase's rounds are used up and no transition fired: `action`, one
    of `FALLBACK_ACTIONS`; `resolution`, text written into the file when the fallback applies.
    (A slotted `Record`: making a dataclass costs start-up time on every command.)"""

    __slots__ = ("action", "resolution")

    def __init__(self, action: str, resolution: str = "") -> None:
        self.action = action
        self.resolution = resolution

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "resolution": self.resolution}


def phase_options(p: dict[str, Any], at: Keys, fail: Fail) -> dict[str, Any]:
    """The graph keys of one phase mapping (``transitions``, ``fallback``, ``blind``,
    ``anonymous``, ``diagnosis``), already checked for keys and types against
    `templates.PHASE`; what the types cannot say is checked here, and `fail` makes the
    located error."""
    flags = ("blind", "anonymous", "diagnosis")
    out: dict[str, Any] = {key: bool(p.get(key, False)) for key in flags}
    transitions: list[Transition] = []
    for j, t in enumerate(p.get("transitions") or []):
        to, when = t["to"].strip(), t["when"]
        if not to:
            raise fail((*at, "transitions", j, "to"), "is required and must be a phase id")
        votes = p.get("voting_mode") or p.get("consensus_mode") == "vote_first"
        if when == "consensus" and not (votes or out["diagnosis"]):
            raise fail(
                (*at, "transitions", j, "when"),
                "is 'consensus' but the phase neither votes (voting_mode) nor diagnoses "
                "(diagnosis), so it could never fire",
            )
        transitions.append(Transition(to, when))
    out["transitions"] = transitions
    fb = p.get("fallback")
    out["fallback"] = None
    if fb is not None:
        action = fb["action"]
        if action == "next" and not (p.get("next") or "").strip():
            raise fail((*at, "fallback", "action"), "is 'next' but the phase has no 'next'")
        out["fallback"] = Fallback(action, " ".join((fb.get("resolution") or "").split()))
    return out


def _edges(phase: Phase) -> list[tuple[str, Keys]]:
    """(target, key within the phase) of every edge out of `phase`."""
    out: list[tuple[str, Keys]] = [
        (t.to, ("transitions", j, "to")) for j, t in enumerate(phase.transitions)
    ]
    if phase.next is not None:
        out.append((phase.next, ("next",)))
    return out


def check_graph(phases: Sequence[Phase], cap: Any, fail: Fail) -> int | None:
    """Check targets, reachability and cycles; return ``max_phase_transitions``."""
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
        raise fail(("max_phase_transitions",), "must be a whole number (1 or more)")
    index = {p.id: i for i, p in enumerate(phases)}
    for i, p in enumerate(phases):
        for target, key in _edges(p):
            if target not in index:
                known = ", ".join(index)
                raise fail(("phases", i, *key), f"names unknown phase '{target}' ({known})")
            if target == p.id:
                raise fail(("phases", i, *key), f"leads phase '{p.id}' to itself")
    seen = {phases[0].id}
    todo = [phases[0]]
    while todo:
        for target, _ in _edges(todo.pop()):
            if target not in seen:
                seen.add(target)
                todo.append(phases[index[target]])
    for i, p in enumerate(phases):
        if p.id not in seen:
            raise fail(
                ("phases", i, "id"),
                f"phase '{p.id}' is unreachable: no 'next' or transition from "
                f"'{phases[0].id}' leads to it",
            )
    if cap is None:
        back = _back_edge(phases, index)
        if back is not None:
            i, key, target = back
            raise fail(
                ("phases", i, *key),
                f"closes a cycle back to phase '{target}'; set 'max_phase_transitions' "
                "to limit how often a discussion may go round",
            )
    return cap if isinstance(cap, int) else None


def _back_edge(phases: Sequence[Phase], index: dict[str, int]) -> tuple[int, Keys, str] | None:
    """An edge that closes a cycle (depth-first, iterative), if any."""
    state = [0] * len(phases)  # 0 new, 1 on the path, 2 done
    for start in range(len(phases)):
        if state[start]:
            continue
        stack: list[tuple[int, int]] = [(start, 0)]
        state[start] = 1
        while stack:
            i, k = stack[-1]
            out = _edges(phases[i])
            if k >= len(out):
                state[i] = 2
                stack.pop()
                continue
            stack[-1] = (i, k + 1)
            target, key = out[k]
            j = index[target]
            if state[j] == 1:
                return i, key, target
            if state[j] == 0:
                state[j] = 1
                stack.append((j, 0))
    return None
