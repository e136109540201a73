"""`discussions turn`: invoke AI participants, show their progress, sum up the turn."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from ..engine.runner import Runner
from ..engine.turn.outcomes import TurnResult
from ..engine.turn.routing import select_participants
from ..model.discussion import Discussion
from .common import echo_json, report_problems, resolve_discussion, say, workspace
from .options import ai_options, json_option
from .progress import Progress

if TYPE_CHECKING:
    from ..engine.turn.outcomes import MotionOutcome


def live_display(as_json: bool, no_progress: bool = False) -> bool:
    """Whether the turn's progress redraws in place: a terminal that understands cursor
    movement (``TERM`` is not ``dumb``) on standard error, no ``--json`` and no
    ``--no-progress``. ``NO_COLOR`` only turns colours off."""
    if as_json or no_progress:
        return False
    return sys.stderr.isatty() and os.environ.get("TERM", "") != "dumb"


@click.command("turn")
@click.argument("file")
@click.argument("aliases", nargs=-1)
@ai_options
@json_option("Print the turn's result as JSON.")
def turn_command(
    file: str,
    aliases: tuple[str, ...],
    callout: str | None,
    provider: str | None,
    sequential: bool,
    timeout: float | None,
    no_progress: bool,
    as_json: bool,
) -> None:
    """Invoke AI participants and append their comments and votes.

    With no @alias: the participants mentioned and not yet answered, else the
    discussion's participants. @all means all of the discussion's participants.

    \b
    Examples:
      discussions turn feature-x.md @architect @security
      discussions turn feature-x.md @all --callout "Review the updated proposal."
      discussions turn feature-x.md                # answer pending @mentions
      discussions turn feature-x.md @pragmatist --provider mock
      discussions turn feature-x.md @all --sequential --json
    """
    ws = workspace(warn=False)
    d = Discussion.load(resolve_discussion(file, ws), ws)
    report_problems(ws.problems, as_json)  # a persona file skipped: say so before the turn
    expected = [(p.alias, p.name) for p in select_participants(d, aliases)]
    live = live_display(as_json, no_progress)
    stream = sys.stderr if (live or as_json) else sys.stdout
    say_preflight(d, err=stream is sys.stderr)
    with Progress(stream, live, expected, forced=provider) as progress:
        runner = Runner(ws, timeout=timeout, on_event=progress)
        result = runner.run_turn(
            d, list(aliases), callout, provider=provider, sequential=sequential
        )
    if as_json:
        echo_json(result.to_dict())  # its warnings in it
    else:
        _summary(result)
        for warning in result.warnings:
            say(f"Warning: {warning}", err=True)
    if result.budget_stop:
        say(f"Budget: stopped before the next call: {result.budget_stop}", err=True)
    if result.failed:
        if as_json:
            names = ", ".join(o.name for o in result.failed)
            say(f"Error: no answer from {names}", err=True)
        else:
            for o in result.failed:
                say(f"Error: {o.name} got no answer: {o.error}", err=True)
        sys.exit(1)


def say_preflight(d: Discussion, *, err: bool) -> None:
    """Say, before any call, what the evidence of `d` lacks (an attached file gone)."""
    from ..engine.evidence.turn import preflight_notes

    for note in preflight_notes(d):
        say(f"Note: {note}", err=err)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{v}: {counts.get(v, 0)}" for v in ("READY", "CHANGES", "REJECT"))


def _consensus(consensus: dict[str, object], phase: str = "") -> str:
    reached = "reached" if consensus.get("reached") else "not reached"
    reason = consensus.get("reason")
    where = f" in {phase}" if phase else ""
    return f"Consensus{where}: {reached}" + (f" ({reason})" if reason else "")


def _motion_line(m: MotionOutcome) -> str:
    """One line on what the council did with the open motion."""
    head = f"Motion of line {m.line}: "
    if m.stage == "lapsed":
        return head + "lapsed (nobody seconded it)."
    if m.stage == "waiting":
        return head + "seconded; sealed ballots wait for " + ", ".join(m.waiting_for) + "."
    c = m.counts
    tail = f" (advanced to {m.advanced_to})" if m.advanced_to else ""
    return head + (
        f"{m.stage}: YES {c.get('YES', 0)}, NO {c.get('NO', 0)}, "
        f"ABSTAIN {c.get('ABSTAIN', 0)}{tail}."
    )


def _summary(result: TurnResult) -> None:
    """What the turn changed: comments, votes, notes, phase or status changes, consensus.

    When the rules moved the discussion to a new phase, the votes counted now are the new
    phase's (a phase change resets them), so the votes this turn cast are shown first and the
    reset is said in words rather than shown as a bare "READY: 0"."""
    n = len(result.posted)
    say("")
    say(f"Discussion updated with {n} new comment{'s' if n != 1 else ''}.")
    counts = result.consensus.get("counts", {})
    moved = [c for c in result.changes if c.kind == "phase"]
    if moved:
        cast: dict[str, int] = {}
        for o in result.posted:
            if o.vote:
                cast[o.vote] = cast.get(o.vote, 0) + 1
        say(f"Votes cast this turn: {_counts(cast)}")
    else:
        say(f"Votes: {_counts(counts)}")
    from ..engine.turn.failures import answered_line  # loaded while the providers thought

    say("Who answered:")
    for o in result.outcomes:
        say(f"  {answered_line(o)}")
    for o in result.outcomes:
        for note in o.notes:
            say(f"Note: {o.name}: {note}")
    for b in result.evidence:
        why = f": {b['reason']}" if b.get("reason") else ""
        say(f"Evidence {b['number']} for {b['by']}: {b['request']} ({b['status']}{why})")
    if result.follow_ups:
        say("Asked again with the evidence: " + ", ".join("@" + a for a in result.follow_ups))
    if result.motion is not None:
        say(_motion_line(result.motion))
    for c in result.changes:
        if c.kind == "phase":
            say(f"Advanced to phase: {c.target} ({c.reason})")
        else:
            say(f"Status changed to: {c.target} ({c.reason})")
    if moved:
        now = f"so far {_counts(counts)}" if sum(counts.values()) else "none cast yet"
        say(f"The phase moved to {result.phase}, so votes restart there ({now}).")
    say(_consensus(result.consensus, result.phase if moved else ""))
