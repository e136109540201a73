"""Commands on how decisions turned out: outcome (a person's verdict), retrial (the first
ballot asked again of another provider) and calibration (who was right, across a folder)."""

from __future__ import annotations

import pathlib
import sys
from typing import TYPE_CHECKING

import click

from ..settings.workspace import display_path
from .common import echo_json, resolve_discussion, say, workspace
from .options import json_option

if TYPE_CHECKING:
    from ..engine.council.retrial import RetrialDone


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
    "-a", "--author", "--as", "author", help="Name to sign with (default: git user.name)."
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
    from .files import warn_notices

    ws = workspace()
    posted = outcome(ws, resolve_discussion(file, ws), verdict, reason, author)
    if as_json:
        echo_json(posted.to_dict())
        return
    say(f"Recorded the outcome from {posted.author}: {verdict.lower()}.")
    warn_notices(posted.notices)


@click.command("retrial")
@click.argument("file")
@click.option("-p", "--provider", required=True, help="The provider to ask the ballot again.")
@click.option(
    "-m",
    "--model",
    default="",
    help="Another model (openai-compatible, anthropic, gemini providers).",
)
@click.option("--timeout", type=click.FloatRange(min=0.1), help="Seconds per provider call.")
@json_option("Print what the re-trial found as JSON.")
def retrial_command(
    file: str, provider: str, model: str, timeout: float | None, as_json: bool
) -> None:
    """Ask a decision's first ballot again of another provider or model, and record the flips.

    Each AI voter's first vote of the deciding phase is asked again, with the prompt rebuilt
    from the file as it stood when that vote was cast. A RETRIAL block records each answer:
    the votes that would flip and why; a failed call as failed.

    \b
    Examples:
      discussions retrial cache.md --provider claude
      discussions retrial cache.md --provider local --model qwen3-8b --json
    """
    from ..derive.retrials import FAILED
    from ..ops.retrial import retry

    ws = workspace()
    path = resolve_discussion(file, ws)
    tell = None if as_json else (lambda v: say(f"  {v.text()}"))
    done = retry(ws, path, provider, model, timeout=timeout, on_vote=tell)
    if as_json:
        echo_json(done.to_dict())
    else:
        _say_retried(done)
    if done.votes and all(v.now == FAILED for v in done.votes):
        sys.exit(1)  # no call got an answer (recorded all the same), as a turn says so


def _say_retried(done: RetrialDone) -> None:
    from ..derive.retrials import tally

    say(f"{tally(done.votes, named=False)} (RETRIAL block, line {done.line}).")
    if done.people:
        say(f"Not asked again (people): {', '.join(done.people)}.")


@click.command("calibration")
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=pathlib.Path))
@json_option("Print the scores as JSON.")
def calibration_command(folder: pathlib.Path | None, as_json: bool) -> None:
    """Score each persona and provider against how the folder's decisions turned out.

    Reads the discussions a person judged (OUTCOME:): per persona and per provider, the
    final votes on them, how often the vote agreed with the outcome, and the Brier score
    of the CONFIDENCE given with it; then how often a first-ballot majority that the
    debate overturned would have been right. FOLDER defaults to the discussions folder.

    \b
    Examples:
      discussions calibration
      discussions calibration docs/decisions --json | jq '.personas'
    """
    from ..model.calibration import calibrate
    from ..views.hindsight import calibration_lines

    ws = workspace()
    found = calibrate(ws, folder)
    data = found.to_dict()
    if as_json:
        echo_json({**data, "folder": display_path(found.folder)})
        return
    for line in calibration_lines(data, display_path(found.folder)):
        say(line)
