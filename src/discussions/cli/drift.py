"""`discussions drift`: the decisions whose governed code changed since them (`ops.drift`)."""

from __future__ import annotations

import sys

import click

from ..ops.drift import DecisionDrift, DriftReport, drift
from .common import echo_json, say, workspace
from .options import json_option


@click.command("drift")
@click.argument("files", nargs=-1)
@click.option(
    "--since", metavar="REV", help="Only the changes in REV..HEAD (what `check --since` sees)."
)
@json_option("Print every decision that governs code, drifted or not, as JSON.")
def drift_command(files: tuple[str, ...], since: str | None, as_json: bool) -> None:
    """List the decisions whose governed code changed since they were recorded or implemented.

    A decision governs the paths and globs of its `GOVERNS:` line and, once
    applied, the files its apply's commit changed. Its code drifted when a
    commit after the one that recorded the decision (or after its apply's
    commit, once that is in HEAD's history) changed one of them. Each such
    commit is listed with its author, date and the governed paths; `!` marks
    one that departs: it neither touches the discussion file nor names it
    (file name or path) in its message.

    Without FILE: every discussion in the discussions folder.

    Exit status: 0 when no decision's code changed by a departing commit,
    1 when one did (or on an error), 2 on a usage error.

    \b
    Examples:
      discussions drift
      discussions drift discussions/auth-tokens.md
      discussions drift --since origin/main
      discussions drift --json | jq '.decisions[] | select(.departures > 0)'
    """
    report = drift(workspace(), files, since)
    if as_json:
        echo_json(report.to_dict())
    else:
        _show(report)
    if report.departed:
        sys.exit(1)


def _show(report: DriftReport) -> None:
    for d in report.drifted:
        _show_decision(d)
    say(
        f"{len(report.decisions)} decision(s) govern code in {report.discussions} "
        f"discussion(s); {len(report.drifted)} drifted, {len(report.departed)} by a commit "
        "that neither touches nor names its discussion",
        err=True,
    )


def _show_decision(d: DecisionDrift) -> None:
    say(f"{d.file}:{d.line}: DECISION: {d.text}")
    governs = [*d.governs, *(f"{p} (applied)" for p in d.implemented)]
    say(f"  governs: {', '.join(governs)}")
    say(
        f"  {len(d.changes)} commit(s) since it was {d.counted_from} in {d.since[:7]}, "
        f"{len(d.departures)} departing:"
    )
    for c in d.changes:
        mark = "!" if c.departs else " "
        how = "" if c.departs else (" (touches it)" if c.touches else " (names it)")
        say(f"  {mark} {c.line()}{how}: {', '.join(c.paths)}")
