"""`discussions status`: a discussion's phase, votes, consensus and open items.

A module of its own: the command every editor integration and prompt line runs, so it loads
only what it shows (not the other file commands and their options).
"""

from __future__ import annotations

import click

from ..derive.rules import COLLECTOR_PAUSE
from ..model.discussion import Discussion
from .common import (
    echo_json,
    echo_lines,
    printable,
    report_problems,
    resolve_discussion,
    style,
    workspace,
)
from .options import json_option


@click.command("status")
@click.argument("file")
@click.option("-v", "--verbose", is_flag=True, help="Also list every comment and marker.")
@json_option("Print the full state as one JSON object.")
def status_command(file: str, verbose: bool, as_json: bool) -> None:
    """Show a discussion's phase, votes, consensus and open items.

    \b
    Examples:
      discussions status add-user-authentication.md
      discussions status discussions/api.md --verbose
      discussions status api.md --json | jq .consensus
    """
    from ..ops.grounds import resolve
    from ..views.status import status_lines, status_of

    ws = workspace(warn=False)
    # The collector would only walk a long file's state, freed (`del`) before it resumes: the
    # few cycles in it (a handful, however long the file) wait for its next pass.
    with COLLECTOR_PAUSE:
        d = resolve(Discussion.load(resolve_discussion(file, ws), ws))
        path = d.path
        if as_json:
            echo_json(status_of(d))
        else:
            echo_lines(status_lines(d, verbose=verbose))
        del d
    if not as_json:
        from ..git.drivercheck import driver_warning

        warning = driver_warning(path)
        if warning:
            click.echo(style(f"Warning: {printable(warning)}", fg="yellow"), err=True)
    report_problems(ws.problems, as_json)
