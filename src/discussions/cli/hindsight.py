"""Commands on how decisions turned out: outcome (a person's verdict), retrial (the first
ballot asked again of another provider) and calibration (who was right, across a folder)."""

from __future__ import annotations

import click

from .common import echo_json, resolve_discussion, say, workspace
from .options import json_option


@click.command("outcome")
@click.argument("file")
@click.option(
    "--verdict",
    required=True,
    type=click.Choice(["right", "wrong", "partly"], case_sensitive=False),
    help="How the decision turned out.",
)
@click.option("--reason", required=True, help="Why: what happened since the decision.")
@click.option(
    "-a", "--as", "--author", "author", help="Name to sign with (default: git user.name)."
)
@json_option("Print what was added as JSON.")
def outcome_command(
    file: str, verdict: str, reason: str, author: str | None, as_json: bool
) -> None:
    """Record how a decision turned out: an OUTCOME: line in a comment of yours.

    The verdict is right, wrong or partly; `discussions calibration` scores the votes
    against it. A later outcome replaces an earlier one.

    \b
    Examples:
      discussions outcome cache.md --verdict wrong --reason "stale prices for a day"
      discussions outcome cache.md --verdict right --reason "held a year" --as Rob
    """
    from ..ops.outcomes import outcome

    ws = workspace()
    posted = outcome(ws, resolve_discussion(file, ws), verdict, reason, author)
    if as_json:
        echo_json(posted.to_dict())
        return
    say(f"Recorded the outcome from {posted.author}: {verdict.lower()}.")
