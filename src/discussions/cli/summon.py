"""`discussions summon`: the code comments that summon a council (``# @discuss: ...``), listed,
or with --start each one's discussion started or continued (`ops.summon`); --hook is what the
pre-commit hook runs."""

from __future__ import annotations

import click

from ..errors import DiscussionsError
from .common import echo_json, say, workspace
from .options import json_option


@click.command("summon")
@click.argument("paths", nargs=-1)
@click.option(
    "--start",
    is_flag=True,
    help="Start (or continue) a discussion for each comment, the code around it attached as "
    "evidence.",
)
@click.option(
    "--hook",
    is_flag=True,
    help="As the pre-commit hook runs it: list the comments in the staged files; always exits 0.",
)
@json_option("Print the comments (and with --start, what was done) as JSON.")
def summon_command(paths: tuple[str, ...], start: bool, hook: bool, as_json: bool) -> None:
    """List the code comments that summon a council (`# @discuss: QUESTION`).

    Any comment syntax counts (#, //, --, /* */, <!-- -->, ;), its prefix set by
    summon.prefix (default @discuss). Only files the evidence rule lets a
    participant read are looked at: no secret, nothing git ignores, nothing in
    evidence.exclude, not the discussions folder. With --start, each question gets
    a discussion (discussions/<question>.md) linking back to path:line, with
    summon.context lines (default 6) either side attached as evidence; run again,
    the code is attached again only if it changed. The source file is never edited.

    \b
    Examples:
      discussions summon
      discussions summon src/ --json
      discussions summon --start src/retry.py
      discussions summon --hook        # in .git/hooks/pre-commit (discussions init --hooks)
    """
    if hook:
        if paths or start or as_json:
            raise click.UsageError(
                "--hook lists the staged files' comments as the pre-commit hook does: "
                "it takes no PATHS, --start or --json"
            )
        _hook()
        return
    from ..ops.summon import find, shown, start_all

    ws = workspace()
    found = find(ws, list(paths))
    started = start_all(ws, found) if start else []
    if as_json:
        echo_json(
            {"summons": [f.to_dict() for f in found], "started": [s.to_dict() for s in started]}
        )
        return
    if not found:
        click.echo("No code comment summons a council here.")
    for f in found:
        say(f"{f.where}: {f.question}")
    for s in started:
        say(shown(s))
    if found and not start:
        click.echo("Start their discussions: discussions summon --start")


def _hook() -> None:
    """The pre-commit hook's listing: never an error that stops the commit."""
    try:
        from ..ops.summon import find

        found = find(workspace(warn=False), staged=True)
    except (DiscussionsError, OSError) as exc:
        say(f"discussions: could not look for @discuss comments ({exc})")
        return
    if not found:
        return
    say(f"discussions: {len(found)} code comment(s) in this commit summon a council:")
    for f in found:
        say(f"  {f.where}: {f.question}")
    say("  discussions summon --start   # to discuss them")
