"""`discussions turn`: invoke AI participants, show their progress, sum up the turn."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from ..engine.turn.outcomes import TurnEvent, TurnResult
from ..model.discussion import Discussion
from .common import echo_json, report_problems, resolve_discussion, say, workspace
from .options import ai_options, json_option
from .progress import Progress

if TYPE_CHECKING:
    from ..engine.council.deliberation import RoundEvent
    from ..engine.turn.outcomes import MotionOutcome
    from ..settings.participants import Participant
    from ..settings.workspace import Workspace


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
    from ..ops.turns import turn

    ws = workspace(warn=False)
    display = TurnDisplay(ws, as_json, no_progress, provider)
    try:
        result = turn(
            ws,
            resolve_discussion(file, ws),
            aliases,
            callout=callout,
            provider=provider,
            sequential=sequential,
            timeout=timeout,
            on_event=display,
            ready=display.ready,
        )
    finally:
        display.close()
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


class TurnDisplay:
    """What `turn` and `run` show while the AI participants answer: the problems of the
    settings and what the evidence lacks once the discussion is loaded (`ready`), then one
    progress display (`Progress`) for the turn, or one per round of a run (`round`)."""

    def __init__(self, ws: Workspace, as_json: bool, no_progress: bool, forced: str | None):
        self.ws = ws
        self.as_json = as_json
        self.live = live_display(as_json, no_progress)
        self.stream = sys.stderr if (self.live or as_json) else sys.stdout
        self.forced = forced
        self.rounds = False
        """Whether a run's rounds draw the progress (`round`), rather than `ready`."""
        self.current: Progress | None = None
        self.said: set[str] = set()
        """Notes shown already: each is said once per run, not once per round."""

    def ready(self, d: Discussion, chosen: list[Participant]) -> None:
        report_problems(self.ws.problems, self.as_json)  # a persona file skipped: say so first
        say_preflight(d, err=self.stream is sys.stderr)
        if not self.rounds:
            self._start([(p.alias, p.name) for p in chosen])

    def round(self, ev: RoundEvent) -> None:
        self.close()
        if ev.kind != "round":
            return
        registry = self.ws.participants
        say(f"Round {ev.round} ({ev.phase})", err=self.stream is sys.stderr)
        self._start([(a, registry.get(a).name) for a in ev.order])

    def _start(self, expected: list[tuple[str, str]]) -> None:
        self.current = Progress(
            self.stream, self.live, expected, forced=self.forced, said=self.said
        )
        self.current.__enter__()

    def __call__(self, ev: TurnEvent) -> None:
        if self.current is not None:
            self.current(ev)

    def close(self) -> None:
        if self.current is not None:
            self.current.__exit__(None, None, None)
            self.current = None


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
