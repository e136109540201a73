"""`discussions check`: report problems in discussion files (and, with --since, rewrites)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..engine.check import check_files
from ..errors import DiscussionsError
from ..settings.workspace import Workspace
from .common import display_path, echo_json, say, workspace
from .options import json_option


@click.command("check")
@click.argument("files", nargs=-1)
@click.option(
    "--since",
    "rev",
    metavar="REV",
    help="Also fail when a file changed bytes it had at git revision REV (not a pure "
    "append). Without FILE: every discussion file changed since REV.",
)
@json_option("Print problems as a JSON list.")
def check_command(files: tuple[str, ...], rev: str | None, as_json: bool) -> None:
    """Report problems in discussion files as FILE:LINE: message.

    Settings keys nobody reads (misspelt: "did you mean ...?") and persona or
    template files that cannot be used are problems too.

    Without FILE (and without --since): every discussion in the discussions
    folder. Exits 1 when any file has a problem, 0 when all are clean. With --since,
    a discussion file whose existing text was edited (not only appended to)
    since REV is a problem too; a file created after REV is fine.

    \b
    Examples:
      discussions check                      # every discussion in the folder
      discussions check discussions/*.md     # summaries and CHRONICLE.md are skipped
      discussions check feature-x.md --json
      discussions check --since origin/main          # in CI: append-only since the base
      discussions check --since HEAD discussions/feature-x.md
    """
    ws = workspace(warn=False)
    if not files and rev is None:
        files = _every_discussion(ws)
        if not files:
            say(f"No discussions in {display_path(ws.config.output_directory)}.")
            return
    report = check_files(ws, files, rev)
    _warn_driver(report.found)
    if as_json:
        echo_json([p.to_dict() for p in report.problems])
    else:
        for p in report.problems:
            say(f"{p.file}:{p.line}: {p.message}")
        files_with = len({p.file for p in report.problems})
        summary = (
            f"{len(report.problems)} problem(s) in {files_with} of {report.checked} file(s)"
            if report.problems
            else f"{report.checked} file(s) checked, no problems"
        )
        click.echo(summary, err=True)
    if report.problems:
        sys.exit(1)


def _every_discussion(ws: Workspace) -> tuple[str, ...]:
    """The discussions of the discussions folder (``output.directory``), as `check` names
    them."""
    from ..model.catalog import discussion_paths

    return tuple(display_path(p) for p in discussion_paths(ws))


def _warn_driver(paths: list[Path]) -> None:
    """Say once, on stderr, when this clone lacks the merge driver the repository asks for
    (a warning about the clone, not a problem in the files: it does not fail the check)."""
    if not paths:
        return
    from ..git.drivercheck import driver_warning

    try:
        message = driver_warning(paths[0])
    except DiscussionsError:
        return
    if message:
        click.echo(f"Warning: {message}", err=True)
