"""`discussions run`: rounds of turns until the discussion is decided or a stop condition."""

from __future__ import annotations

import sys

import click

from ..deliberation import RoundEvent, run_discussion
from ..model import Discussion
from ..runner import Runner, TurnEvent
from .common import echo_json, resolve_file, say, workspace


@click.command("run")
@click.argument("file")
@click.argument("aliases", nargs=-1)
@click.option("--rounds", type=click.IntRange(min=1), help="Stop after N rounds (default: 5).")
@click.option("-s", "--sequential", is_flag=True, help="One after another, order shuffled.")
@click.option("--seed", type=int, help="Seed for the speaking order of sequential runs.")
@click.option("-c", "--callout", help="A specific question or request for every round.")
@click.option("-p", "--provider", help="Use this provider for every participant (no fallback).")
@click.option("--timeout", type=click.FloatRange(min=0.1), help="Seconds per provider call.")
@click.option("--json", "as_json", is_flag=True, help="Print the run's result as JSON.")
def run_command(
    file: str,
    aliases: tuple[str, ...],
    rounds: int | None,
    sequential: bool,
    seed: int | None,
    callout: str | None,
    provider: str | None,
    timeout: float | None,
    as_json: bool,
) -> None:
    """Run rounds until the discussion is decided or a stop condition is met.

    Each round is a turn of the participants (default: the discussion's). Between
    rounds the phase rules apply. The run stops on consensus in the final phase
    (the status changes), the round limit (--rounds, or the phase's max_rounds;
    then the humans are asked to decide), every participant passing, unanimous
    rejection, a human vote being required, or Ctrl-C. Every round, stop and
    escalation is recorded in the file.

    \b
    Examples:
      discussions run feature-x.md
      discussions run feature-x.md @architect @security --rounds 3
      discussions run plan.md --sequential --seed 7 --json
      discussions run plan.md --provider mock
    """
    ws = workspace()
    d = Discussion.load(resolve_file(file, ws), ws)
    stream = sys.stderr if as_json else sys.stdout

    def on_round(ev: RoundEvent) -> None:
        if ev.kind == "round":
            say(f"Round {ev.round} ({ev.phase}): {', '.join(ev.order)}", err=stream is sys.stderr)

    def on_turn(ev: TurnEvent) -> None:
        if ev.kind == "done" and ev.outcome is not None:
            o = ev.outcome
            if o.status == "posted":
                text = f"posted via {o.provider} in {o.duration:.1f}s"
                text += f", VOTE: {o.vote}" if o.vote else ""
            elif o.status == "no_response":
                text = "nothing to add"
            else:
                text = "failed: " + o.error
            say(f"  {o.name}: {text}", err=stream is sys.stderr)

    runner = Runner(ws, timeout=timeout, on_event=on_turn)
    result = run_discussion(
        runner,
        d,
        list(aliases),
        rounds=rounds,
        sequential=sequential,
        provider=provider,
        callout=callout,
        seed=seed,
        on_round=on_round,
    )
    if as_json:
        echo_json(
            {
                "rounds": result.rounds,
                "stopped": result.stopped,
                "phase": result.phase,
                "status": result.status,
                "consensus": result.consensus,
                "seed": result.seed,
                "escalation": result.escalation,
            }
        )
    else:
        say("")
        say(f"Stopped after {result.rounds} round(s): {result.stopped}.")
        say(f"Phase: {result.phase}; status: {result.status}")
        say(f"Consensus: {result.consensus.get('reason', '')}")
        if result.escalation:
            say("Escalated to the humans. Positions:")
            for line in result.escalation:
                say(f"  {line}")
    if result.stopped == "interrupted":
        sys.exit(130)
