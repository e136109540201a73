"""`discussions run`: rounds of turns until the discussion is decided or a stop condition."""

from __future__ import annotations

import sys

import click

from ..engine.council.deliberation import RunResult
from ..engine.turn.failures import answered_summary
from .choice import offer
from .common import echo_json, resolve_discussion, say, workspace
from .options import ai_options, json_option
from .turns import TurnDisplay


@click.command("run")
@click.argument("file")
@click.argument("aliases", nargs=-1)
@click.option("--rounds", type=click.IntRange(min=1), help="Stop after N rounds (default: 5).")
@ai_options
@click.option("--seed", type=int, help="Seed for the speaking order of sequential runs.")
@click.option(
    "--max-cost",
    type=click.FloatRange(min=0),
    help="Stop before calls the dollars left cannot cover (estimated from the largest call "
    "reported in this discussion).",
)
@click.option(
    "--max-calls",
    type=click.IntRange(min=0),
    help="Stop before a call that would make more than N AI calls in this discussion.",
)
@click.option(
    "-y",
    "--yes",
    is_flag=True,
    help="Ask nothing at the end: no King's Choice after a consensus (for scripts).",
)
@json_option("Print the run's result as JSON.")
def run_command(
    file: str,
    aliases: tuple[str, ...],
    rounds: int | None,
    sequential: bool,
    seed: int | None,
    callout: str | None,
    provider: str | None,
    timeout: float | None,
    max_cost: float | None,
    max_calls: int | None,
    no_progress: bool,
    yes: bool,
    as_json: bool,
) -> None:
    """Run rounds until the discussion is decided or a stop condition is met.

    Each round is a turn of the participants (default: the discussion's). Between
    rounds the phase rules apply. The run stops on consensus in the final phase
    (the status changes), the round limit (--rounds, or the phase's max_rounds;
    then the humans are asked to decide), every participant passing, unanimous
    rejection, a human vote being required, or Ctrl-C. Every round, stop and
    escalation is recorded in the file.

    On a terminal, a consensus ends with the King's Choice (apply it now, leave
    it to a person, decide later), recorded in the file; not with --json or --yes.

    \b
    Examples:
      discussions run feature-x.md
      discussions run feature-x.md @architect @security --rounds 3
      discussions run plan.md --sequential --seed 7 --json
      discussions run plan.md --provider mock
      discussions run plan.md --max-cost 0.50 --max-calls 20
    """
    from ..ops.turns import run

    ws = workspace(warn=False)
    path = resolve_discussion(file, ws)
    display = TurnDisplay(ws, as_json, no_progress, provider)
    display.rounds = True
    try:
        result = run(
            ws, path, aliases, rounds=rounds, callout=callout, provider=provider,
            sequential=sequential, seed=seed, timeout=timeout, max_cost=max_cost,
            max_calls=max_calls, on_event=display, on_round=display.round, ready=display.ready,
        )  # fmt: skip
    finally:
        display.close()
    _print_result(result, as_json)
    _exit_for(result)
    offer(path, result.stopped, as_json, yes, provider)


def _exit_for(result: RunResult) -> None:
    """Exit 130 for an interrupted run, 1 for a round without an answer (saying who got none,
    as `turn` does); return otherwise."""
    if result.stopped == "interrupted":
        sys.exit(130)
    if result.stopped == "no_answers":
        last = result.turns[-1].outcomes if result.turns else []
        for o in last:
            say(f"Error: {o.name} got no answer: {o.error}", err=True)
        sys.exit(1)


def _print_result(result: RunResult, as_json: bool) -> None:
    if as_json:
        echo_json({k: v for k, v in result.to_dict().items() if k not in ("file", "turns")})
        return
    say("")
    say(f"Stopped after {result.rounds} round(s): {result.stopped}.")
    say(f"Phase: {result.phase}; status: {result.status}")
    say(f"Consensus: {result.consensus.get('reason', '')}")
    if result.budget_stop:
        say(f"Budget: {result.budget_stop}")

    answered = answered_summary([o for t in result.turns for o in t.outcomes])
    if answered:
        say("Who answered (provider, times):")
        for line in answered:
            say(f"  {line}")
    if result.review:
        from .reviewing import review_lines

        for line in review_lines(result.review):
            say(line)
    for note in result.notes:
        say(f"Note: {note}")
    for warning in dict.fromkeys(w for t in result.turns for w in t.warnings):
        say(f"Warning: {warning}", err=True)  # an AI CLI rewrote its project configuration
    if result.escalation:
        say("Escalated to the humans. Positions:")
        for line in result.escalation:
            say(f"  {line}")
