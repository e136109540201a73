"""`discussions recheck`: the council votes whether the code a discussion's decisions govern,
as it is now, still conforms to them (`ops.drift.recheck`)."""

from __future__ import annotations

import sys

import click

from ..ops.drift import recheck
from .common import echo_json, resolve_discussion, say, workspace
from .options import json_option


@click.command("recheck")
@click.argument("file")
@click.option(
    "--since",
    metavar="REV",
    help="Show the changes since REV (default: since the decisions were recorded or "
    "implemented, as `discussions drift` counts).",
)
@click.option("-p", "--provider", metavar="NAME", help="Ask every voter through this provider.")
@json_option("Print what the recheck came to as JSON.")
def recheck_command(file: str, since: str | None, provider: str | None, as_json: bool) -> None:
    """Ask the council whether the governed code, as it is now, still conforms to the decision.

    Every voting participant is shown the decisions and the changes to the
    code they govern (their GOVERNS: paths, and what their applies changed)
    since REV, and votes as in the review of an applied change: READY if the
    code still conforms, CHANGES with a CONCERN: line per departure. A
    RECHECK block records the result: conforms (consensus) or departs (with
    the blockers). A missing vote records nothing: run it again.

    Exit status: 0 when the code conforms, 1 otherwise (or on an error).

    \b
    Examples:
      discussions drift                                  # which decisions drifted
      discussions recheck auth-tokens.md
      discussions recheck auth-tokens.md --since origin/main --json
    """
    ws = workspace()
    path = resolve_discussion(file, ws)
    step = None if as_json else (lambda text: say(text, err=True))
    outcome = recheck(ws, path, since, provider=provider, on_step=step)
    if as_json:
        echo_json(outcome.to_dict())
    else:
        say(f"Recheck of the code at {outcome.commit[:7]}: {outcome.stage}.")
        for b in outcome.blockers if outcome.stage == "departs" else []:
            say(f"  {b.by}: {b.text}")
        if outcome.line:
            say(f"Recorded at {file}:{outcome.line}.")
    if outcome.stage != "conforms":
        sys.exit(1)
