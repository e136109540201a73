"""`discussions check`: report problems in discussion files."""

from __future__ import annotations

import sys

import click

from ..errors import DiscussionsError
from ..model import Discussion
from .common import echo_json, resolve_file, workspace


@click.command("check")
@click.argument("files", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print problems as a JSON list.")
def check_command(files: tuple[str, ...], as_json: bool) -> None:
    """Report problems in discussion files as FILE:LINE: message.

    Exits 1 when any file has a problem, 0 when all are clean.

    \b
    Examples:
      discussions check discussions/*.md
      discussions check feature-x.md --json
    """
    ws = workspace()
    problems: list[dict[str, object]] = []
    for name in files:
        try:
            d = Discussion.load(resolve_file(name, ws), ws)
            warnings = d.warnings
        except DiscussionsError as exc:
            problems.append({"file": name, "line": 0, "message": str(exc)})
            continue
        for w in warnings:
            problems.append({"file": name, "line": w.line, "message": w.message})
    if as_json:
        echo_json(problems)
    else:
        for p in problems:
            click.echo(f"{p['file']}:{p['line']}: {p['message']}")
        files_with = len({p["file"] for p in problems})
        summary = (
            f"{len(problems)} problem(s) in {files_with} of {len(files)} file(s)"
            if problems
            else f"{len(files)} file(s) checked, no problems"
        )
        click.echo(summary, err=True)
    if problems:
        sys.exit(1)
