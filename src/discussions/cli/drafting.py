"""`discussions draft`: run or resume a discussion's documentation loop
(`engine.council.documentation`)."""

from __future__ import annotations

import sys

import click

from .. import ops
from ..engine.turn.failures import answered_line
from .common import echo_json, resolve_discussion, say, workspace
from .options import json_option


@click.command("draft")
@click.argument("file")
@click.option("--leader", metavar="ALIAS", help="Who drafts (default: the template's leader).")
@click.option(
    "--force",
    is_flag=True,
    help="Replace an existing file at the document's path; with --reason, draft an undecided "
    "discussion.",
)
@click.option("--reason", metavar="TEXT", help="Why --force on an undecided discussion: recorded.")
@click.option(
    "-p", "--provider", metavar="NAME", help="Ask every participant through this provider."
)
@json_option("Print the loop's result as JSON.")
def draft_command(
    file: str,
    leader: str | None,
    force: bool,
    reason: str | None,
    provider: str | None,
    as_json: bool,
) -> None:
    """Draft the document that records a decided discussion, and have the council approve it.

    The leader drafts, the voting participants vote READY or CHANGES with CONCERN: lines,
    the leader revises (up to the template's output.max_revisions). Every draft and vote is
    appended to the discussion; run it again after an interruption and it resumes from the
    file. The discussion must be decided (a finished status or a passed motion), as for
    `apply`; `--force --reason TEXT` drafts it anyway and records why.

    \b
    Examples:
      discussions draft auth.md
      discussions draft auth.md --leader architect --force
      discussions draft spike.md --force --reason "a write-up before the vote"
    """
    ops.check_forced(force, reason)  # a usage error before the file is looked for
    ws = workspace(warn=False)
    result = ops.draft(
        ws, resolve_discussion(file, ws), leader=leader, force=force, reason=reason,
        provider=provider,
    )  # fmt: skip
    if as_json:
        echo_json(result.to_dict())
    else:
        for o in result.asked:
            say(f"  {answered_line(o)}")
        say(f"Documentation: {result.stage} at draft {result.version}.")
        if result.written:
            say(f"Written: {result.written}")
        for b in result.blockers if result.stage != "approved" else []:
            say(f"Blocker: {b.by}: {b.text} (line {b.line})")
        if result.note:
            say(f"Note: {result.note}")
    if result.stage == "waiting":
        sys.exit(1)
