"""Run a discussion to a decision: rounds of turns until a stop condition (``discussions run``).

A round is one turn of the chosen participants. Between rounds the phase rules apply (automatic
transitions, a decided status). The run stops on the first of:

* ``consensus``   the discussion is decided: consensus in its terminal phase changed the status;
* ``rejected``    every expected voter rejects (or, in score mode, scores 3 or less);
* ``all_passed``  every participant of a round had nothing to add;
* ``escalated``   a human is required (``human_required``) where the AIs would agree;
* ``max_rounds``  the round limit (``--rounds``, or the phase's ``max_rounds``) is used up
  without consensus; the engine then appends an escalation that states each participant's
  position and asks the humans to decide;
* ``interrupted`` Ctrl-C (the run stops between writes; finished answers stay);
* ``ballots``     a motion waits for people (``consensus.human_required``): a second, or ballots.
* ``no_answers``  every call of a round failed (each participant's ``FAILED`` block says from
  which providers and why): the round moved nothing, so nothing moves (no phase, no
  escalation) and the command exits non-zero;
* ``budget``      the next call would go past the budget (`budget.Budget`); the turn writes the
  ``RUN-STOP: budget`` block with the reason;
* ``error``       an unexpected error (the error is raised after the stop is written).
* ``reviewed``    no round was run: the discussion's applied change waited for its review
  (a template or ``discussions.yaml`` with ``apply: review: true``), and the council reviewed
  it, its lead revising on the blockers (`conformance`).

A run is numbered in its file (run 1, 2, ...) and every ``ROUND`` and ``RUN-STOP`` it writes
carries its identity (`runlog.identity`): rounds are numbered within a run, and a reader sees
"Run 2, round 1". A run killed outright writes no stop; the next run on the same machine
records that run's end (``RUN-STOP: interrupted``) before its own first round, and `status`
tells a run that is still going from one whose process is gone (`runlog.run_state`).

A phase's ``max_rounds`` used up in a phase that is not a voting phase and has a next phase moves
the discussion on (the way a chair moves from discussion to the vote); anywhere else it ends the
run with an escalation. Every round, stop and escalation is written into the file as an engine
block (an HTML comment the parser reads back, and a visible line for a reader), so `status`
shows them and nothing lives elsewhere.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...derive.runlog import RunRecord, identity, interrupted_runs, next_number
from ...model.budget import render_budget_stop
from ...model.discussion import Discussion
from ...syntax.render import neutralise
from ..turn import phases
from ..turn.asking import TurnAsker
from ..turn.outcomes import TurnResult
from ..turn.routing import select_participants
from . import chair, documentation

_STOP_REASONS = (
    "consensus",
    "max_rounds",
    "escalated",
    "all_passed",
    "rejected",
    "interrupted",
    "ballots",
    "budget",
    "error",
    "no_answers",
    "reviewed",
)
_GRAPH_STOP_REASONS = ("ended", "max_transitions")  # the phase graph (`chair`)
_DEFAULT_MAX_ROUNDS = 5
_STOP_TEXT = {
    "consensus": "the discussion is decided",
    "max_rounds": "the round limit was reached without consensus",
    "escalated": "a human has to decide",
    "all_passed": "every participant had nothing to add",
    "rejected": "every participant rejects the proposal",
    "interrupted": "interrupted",
    "ended": "the phase's fallback ends the run",
    "max_transitions": "the phase transition limit was reached",
    "ballots": "a motion waits for the humans (a second, or their ballots)",
    "budget": "the budget is used up",
    "error": "an error ended it",
    "no_answers": "no participant got an answer, every call failed",
    "reviewed": "the applied change was reviewed",
}


@dataclass(slots=True)
class RoundEvent:
    """Progress of a run, reported between rounds."""

    kind: str
    """``round`` (a round starts) or ``stop``."""
    round: int
    phase: str
    order: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass(slots=True)
class RunResult:
    """The result of `run_discussion`."""

    file: str
    rounds: int = 0
    """Rounds run (a round interrupted half-way counts)."""
    stopped: str = ""
    """One of `_STOP_REASONS` or `_GRAPH_STOP_REASONS`."""
    phase: str = ""
    status: str = ""
    consensus: dict[str, Any] = field(default_factory=dict)
    turns: list[TurnResult] = field(default_factory=list)
    seed: int = 0
    """Seed of the speaking-order shuffle (sequential runs)."""
    escalation: list[str] = field(default_factory=list)
    """The positions stated in the escalation, if one was written."""
    budget_stop: str | None = None
    """Why the budget stopped the run (``stopped == "budget"``)."""
    documentation: dict[str, Any] | None = None
    """The documentation loop the decision started (a template with ``output``)."""
    review: dict[str, Any] | None = None
    """The review of an applied change the run made instead of rounds (``reviewed``)."""
    notes: list[str] = field(default_factory=list)
    """What a person should know about the run (a review that could not run here)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "rounds": self.rounds,
            "stopped": self.stopped,
            "phase": self.phase,
            "status": self.status,
            "consensus": dict(self.consensus),
            "seed": self.seed,
            "escalation": list(self.escalation),
            "budget_stop": self.budget_stop,
            "documentation": self.documentation,
            "review": self.review,
            "notes": list(self.notes),
            "turns": [t.to_dict() for t in self.turns],
        }


# --------------------------------------------------------------------------- what is written


def render_round(
    n: int, phase: str, order: Sequence[str], seed: int | None, run: int | None = None
) -> str:
    args = f"{n} | phase: {phase} | order: {', '.join(order)}"
    if seed is not None:
        args += f" | seed: {seed}"
    label = f"Round {n}"
    if run is not None:
        args += f" | {identity(run)}"
        label = f"Run {run}, round {n}"
    return f"<!-- ROUND: {args} -->\n\n*{label} ({phase}): {', '.join(order)}*\n"


def render_stop(reason: str, rounds: int, run: int | None = None) -> str:
    plural = "s" if rounds != 1 else ""
    tag = f" | {identity(run)}" if run is not None else ""
    who = f"Run {run}" if run is not None else "Run"
    return (
        f"<!-- RUN-STOP: {reason} | rounds: {rounds}{tag} -->\n\n"
        f"*{who} stopped after {rounds} round{plural}: {_STOP_TEXT[reason]}.*\n"
    )


def _render_lost_stop(run: RunRecord, by: int) -> str:
    """The stop a run killed outright could not write, recorded by run `by` of this machine
    (with the killed run's own identity, so it reads as that run's stop)."""
    key = run.key or ("", "", "")
    n = len(run.rounds)
    return (
        f"<!-- RUN-STOP: interrupted | rounds: {n} | run: {key[0]} | host: {key[1]} "
        f"| pid: {key[2]} -->\n\n"
        f"*Run {run.number} stopped after {n} round{'s' if n != 1 else ''}: interrupted (its "
        f"process ended without recording a stop; noted by run {by}).*\n"
    )


def positions(d: Discussion) -> list[str]:
    """Each expected participant's current position, one line each (no markers, no mentions)."""
    registry = d.workspace.participants
    scores = d.scores
    votes = d.votes
    pending: dict[str, list[str]] = {}
    for item in d.pending_issues:
        pending.setdefault(item.author, []).append(item.text)
    diagnosed = {c.author: c for c in d.diagnosis.candidates}
    lines: list[str] = []
    names = [registry.get(a).name for a in d.participants if a in registry]
    names += [n for n in [*votes, *scores] if n not in names]
    for name in names:
        parts = []
        if name in votes:
            parts.append(f"vote {votes[name]}")
        if name in scores:
            parts.append(f"score {scores[name]}/10")
        if name in diagnosed:
            c = diagnosed[name]
            parts.append(f"root cause {c.key} (confidence {c.confidence})")
        if not parts:
            parts.append("no position yet")
        if pending.get(name):
            # `&#64;` shows as "@" but is no mention: the engine block sits, to the parser,
            # inside the comment before it.
            parts.append("pending: " + "; ".join(pending[name]).replace("@", "&#64;"))
        lines.append(f"- {name}: " + ", ".join(parts))
    return lines


def render_escalation(reason: str, text: str, lines: Sequence[str]) -> str:
    body = "\n".join(neutralise(line).rstrip("\n") for line in lines)
    return (
        f"<!-- ESCALATION: {reason} -->\n\n"
        f"**Escalation: {text}.** The humans in this discussion decide: vote with "
        "`discussions comment --vote`, write a decision line, advance or close.\n\n"
        f"{body}\n"
    )


# --------------------------------------------------------------------------- the loop


def run_discussion(
    runner: TurnAsker,
    d: Discussion,
    participants: Sequence[str] = (),
    *,
    rounds: int | None = None,
    sequential: bool = False,
    provider: str | None = None,
    callout: str | None = None,
    seed: int | None = None,
    on_round: Callable[[RoundEvent], None] | None = None,
) -> RunResult:
    """Run rounds on `d` until a stop condition (see the module docstring)."""
    if d.unsaved:
        d.save()
    d.adopt_workspace(runner.workspace)
    council = select_participants(d, participants or (), council=True)
    chosen = [p.alias for p in council]
    runner.check_providers(council, provider)  # a provider that cannot run: no round yet
    if documentation.output_of(d) is not None:
        documentation.check_output(d)  # its document's path too: before any AI is asked
    if "APPLY" in d.text:  # no apply anywhere (the common case): no parse needed
        from . import conformance

        if conformance.review_due(d):
            return _review(runner, d, provider)
        note = conformance.review_note(d)
    else:
        note = ""
    shuffle_seed = seed if seed is not None else int(time.time() * 1000) % 1_000_000
    result = RunResult(file=str(d.path), seed=shuffle_seed if sequential else 0)
    result.notes += [note] if note else []
    limit = rounds if rounds is not None else _config_rounds(d)
    run = _Rounds(
        runner,
        d,
        chosen,
        bool(participants),
        sequential,
        provider,
        callout,
        shuffle_seed,
        on_round,
        _start(d),
        result,
    )
    try:
        stop = _run_rounds(run, limit)
    except KeyboardInterrupt:
        stop = "interrupted"
    except BaseException:
        with contextlib.suppress(Exception):  # the error that ended the run is the one to see
            _record_stop(d, "error", result.rounds, run.number)
        raise
    _finish(run, stop)
    if stop == "consensus" and documentation.output_of(d) is not None:
        result.documentation = documentation.draft_document(runner, d, provider=provider).to_dict()
    return result


def _review(runner: TurnAsker, d: Discussion, provider: str | None) -> RunResult:
    """The review of the applied change that waits for one, in place of rounds. The lead
    does not revise here: `run` asks no one, and a write-mode run needs a person's consent
    (`discussions apply FILE --review` asks); the review stops at its blockers."""
    from . import conformance

    outcome = conformance.review_apply(runner, d, provider=provider)
    d.reload()
    result = RunResult(file=str(d.path), stopped="reviewed", phase=d.phase, status=d.status)
    result.consensus = d.consensus_result.to_dict()
    result.review = outcome.to_dict()
    result.turns = [r.turn for r in outcome.rounds if r.turn is not None]
    return result


@dataclass(slots=True)
class _Rounds:
    """What the rounds of one run share: its settings, its number and its progress so far."""

    runner: TurnAsker
    d: Discussion
    chosen: list[str]
    named: bool
    """Aliases were named to the run (else each round asks the council and the mentioned)."""
    sequential: bool
    provider: str | None
    callout: str | None
    shuffle_seed: int
    on_round: Callable[[RoundEvent], None] | None
    number: int
    result: RunResult
    in_phase: int = 0  # rounds finished in the current phase


def _run_rounds(run: _Rounds, limit: int) -> str:
    """Play rounds until one says to stop or `limit` rounds are done; the reason to stop."""
    while True:
        if run.result.rounds >= limit:
            return _escalate(run.d, "max_rounds", f"no consensus after {run.result.rounds} rounds")
        stop = _play_round(run)
        if stop is not None:
            return stop


def _round_order(run: _Rounds) -> list[str]:
    """Who speaks in the next round: the aliases named to `run`, or else the council and the
    participants mentioned since (asked again each round: a mention made in a round adds its
    participant to the next). Sequential rounds after the first are shuffled by seed."""
    if run.named:
        order = list(run.chosen)
    else:
        order = [p.alias for p in select_participants(run.d, council=True)]
    if run.sequential and run.result.rounds >= 1:
        random.Random(f"{run.shuffle_seed}:{run.result.rounds + 1}").shuffle(order)
    return order


def _play_round(run: _Rounds) -> str | None:
    """Write the next ROUND block and run its turn; the reason to stop after it, if any."""
    d, result = run.d, run.result
    order = _round_order(run)
    n = result.rounds + 1
    first = order[:1] if run.sequential else order
    if _budget_refuses(run.runner, d, first, run.provider, result, run.number):
        return "budget"  # no round that could not make its first calls
    seed_shown = run.shuffle_seed if run.sequential else None
    block = render_round(n, d.phase, order, seed_shown, run.number)
    result.rounds = n  # its block is written whatever happens next (here or by the turn)
    try:
        _emit(run.on_round, RoundEvent("round", n, d.phase, order))
    except BaseException:
        d.add_block(block)
        d.save()
        raise
    before = d.phase
    turn = run.runner.run_turn(
        d,
        order,
        run.callout,
        provider=run.provider,
        sequential=run.sequential,
        budget_rounds=n,
        run_tag=identity(run.number),
        preamble=[block],  # written while the providers think
    )
    result.turns.append(turn)
    if turn.budget_stop is not None:  # the turn wrote the RUN-STOP block
        result.budget_stop = turn.budget_stop  # a round stopped half-way counts
        return "budget"
    if turn.no_answer:  # a round without an answer moves nothing: no phase, no escalation
        return "no_answers"
    d.reload()
    run.in_phase = run.in_phase + 1 if d.phase == before else 0
    stop = _stop_after_round(d, turn, run.in_phase)
    if d.phase != before:
        run.in_phase = 0  # the chair moved the discussion on
    return stop


def _finish(run: _Rounds, stop: str) -> None:
    """Record why the run stopped (a budget stop is already written) and fill in its result."""
    d, result = run.d, run.result
    d.reload()
    if stop != "budget":
        _record_stop(d, stop, result.rounds, run.number)
    elif d.unsaved:
        d.save()
    result.stopped = stop
    result.escalation = (
        positions(d) if stop in ("max_rounds", "escalated", "max_transitions") else []
    )
    result.phase = d.phase
    result.status = d.status
    result.consensus = d.consensus_result.to_dict()
    _emit(run.on_round, RoundEvent("stop", result.rounds, d.phase, reason=stop))


def _budget_refuses(
    runner: TurnAsker,
    d: Discussion,
    first: Sequence[str],
    provider: str | None,
    result: RunResult,
    number: int,
) -> bool:
    """Whether the budget refuses a round's first calls (for `first`); the stop is written."""
    upcoming = [d.workspace.participants.get(a) for a in first]
    refusal = runner.budget_refusal(d, upcoming, provider)
    if refusal is None:
        return False
    d.add_block(render_budget_stop(refusal, result.rounds, identity(number)))
    d.save()
    result.budget_stop = refusal
    return True


def _start(d: Discussion) -> int:
    """This run's number; first the stops of this machine's runs killed without one."""
    runs = d.runs
    number = next_number(runs)
    lost = interrupted_runs(runs)
    for run in lost:
        d.add_block(_render_lost_stop(run, number))
    if lost:
        d.save()
    return number


def _record_stop(d: Discussion, reason: str, rounds: int, number: int) -> None:
    d.reload()
    d.add_block(render_stop(reason, rounds, number))
    d.save()


def _stop_after_round(d: Discussion, turn: TurnResult, in_phase: int) -> str | None:
    """The stop a finished round calls for, if any; may advance or escalate on the way."""
    if any(c.kind == "status" for c in turn.changes) or _decided(d):
        return "consensus"
    if _unanimous_rejection(d):
        return "rejected"
    if turn.motion is not None and turn.motion.stage == "waiting":
        return "ballots"  # the council waits: people vote with `discussions comment --ballot`
    if turn.outcomes and all(o.status == "no_response" for o in turn.outcomes):
        return "all_passed"
    if _needs_human(d):
        return _escalate(d, "escalated", "the participants agree, but a human vote is required")
    step = chair.after_round(d, in_phase, _escalate)  # the phase graph, where there is one
    if step.handled:
        return step.stop
    info = d.phase_info
    if info is not None and info.max_rounds is not None and in_phase >= info.max_rounds:
        if not info.voting_mode and info.next is not None:
            d.advance(info.next, strict=False)  # the chair moves on to the next phase
            d.save()
            phases.settle(d)
            return None
        return _escalate(
            d, "max_rounds", f"no consensus after {info.max_rounds} rounds in '{d.phase}'"
        )
    return None


def _decided(d: Discussion) -> bool:
    t = d.template
    info = d.phase_info
    if t is None or info is None or info.next is not None:
        return False
    return d.status == t.consensus_status


def _unanimous_rejection(d: Discussion) -> bool:
    info = d.phase_info
    expected = d.expected_voters
    if not expected:
        return False
    if info is not None and info.consensus_mode == "score":
        scores = d.scores
        return all(name in scores and scores[name] <= 3 for name in expected)
    votes = d.votes
    return all(votes.get(name) == "REJECT" for name in expected)


def _needs_human(d: Discussion) -> bool:
    """Consensus is missing only because no human has said READY."""
    voting = d.workspace.config.voting
    if not voting.human_required or d.has_consensus():
        return False
    info = d.phase_info
    if info is None or not info.voting_mode:
        return False
    return d.consensus_without_humans().reached


def _escalate(d: Discussion, reason: str, text: str) -> str:
    """Queue the escalation block; it is written with the run's stop block, in one append
    (`_record_stop`: every stop is recorded, the error's too)."""
    d.add_block(render_escalation(reason, text, positions(d)))
    return reason


def _config_rounds(d: Discussion) -> int:
    value = d.workspace.config.section("run").get("max_rounds", _DEFAULT_MAX_ROUNDS)
    return value if isinstance(value, int) and value > 0 else _DEFAULT_MAX_ROUNDS


def _emit(hook: Callable[[RoundEvent], None] | None, event: RoundEvent) -> None:
    if hook is not None:
        hook(event)
