"""`discussions check`: report problems in discussion files (and, with --since, rewrites)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..errors import DiscussionsError
from ..ops.check import CheckReport, Problem, check
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
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github"]),
    help="text (FILE:LINE: message, the default), json (as --json), or github: one GitHub "
    "Actions annotation per problem (::error file=...,line=...::message).",
)
def check_command(files: tuple[str, ...], rev: str | None, as_json: bool, fmt: str | None) -> None:
    """Report problems in discussion files as FILE:LINE: message.

    Settings keys nobody reads (misspelt: "did you mean ...?") and persona or
    template files that cannot be used are problems too.

    Without FILE (and without --since): every discussion in the discussions
    folder. Exits 1 when any file has a problem, 0 when all are clean. With --since,
    a discussion file whose existing text was edited (not only appended to)
    since REV is a problem too; a file created after REV is fine. So is, as
    a warning (an error under the drift.strict setting), a commit in
    REV..HEAD that changed code a decision governs (GOVERNS:, or what its
    apply changed) and neither touches nor names that decision's
    discussion: reported at the decision's line (see `discussions drift`).

    \b
    Examples:
      discussions check                      # every discussion in the folder
      discussions check discussions/*.md     # summaries and CHRONICLE.md are skipped
      discussions check feature-x.md --json
      discussions check --since origin/main          # in CI: append-only since the base
      discussions check --since HEAD discussions/feature-x.md
      discussions check --since "$BASE_SHA" --format github   # annotations on a pull request
    """
    ws = workspace(warn=False)
    report = check(ws, files, rev)
    if not report.checked and not files and rev is None:
        say(f"No discussions in {display_path(ws.config.output_directory)}.")
        return
    _warn_driver(report.found)
    for note in report.notes:  # not problems: on stderr, and the check still passes
        label = "Warning" if note.severity == "warning" else "Note"
        click.echo(f"{label}: {note.file}:{note.line}: {note.message}", err=True)
    if as_json or fmt == "json":
        echo_json([p.to_dict() for p in [*report.problems, *report.warnings]])
    else:
        for p in report.problems:
            if fmt == "github":
                click.echo(github_annotation(p))
            else:
                say(f"{p.file}:{p.line}: {p.message}")
        for p in report.warnings:  # shown, but the check passes (drift: see drift.strict)
            say(
                github_annotation(p)
                if fmt == "github"
                else f"{p.file}:{p.line}: warning: {p.message}"
            )
        click.echo(_summary(report), err=True)
    if report.problems:
        sys.exit(1)


def _summary(report: CheckReport) -> str:
    files_with = len({p.file for p in report.problems})
    warned = f"; {len(report.warnings)} warning(s)" if report.warnings else ""
    if report.problems:
        return (
            f"{len(report.problems)} problem(s) in {files_with} of {report.checked} file(s)"
            + warned
        )
    return f"{report.checked} file(s) checked, no problems{warned}"


_ANNOTATION_LEVEL = {"error": "error", "warning": "warning", "hint": "notice"}


def github_annotation(p: Problem) -> str:
    """`p` as a GitHub Actions workflow command, so a pull request shows it on its line: the
    level from the severity (a hint is a notice), ``line``/``col`` when known, and the text
    escaped as the runner's command parser expects (`%`, CR and LF in the message; `:` and
    `,` too in a property, where they would end it)."""
    props = [f"file={_escape(p.file, property=True)}"]
    if p.line:
        props.append(f"line={p.line}")
    if p.column:
        props.append(f"col={p.column}")
    level = _ANNOTATION_LEVEL.get(p.severity, "error")
    return f"::{level} {','.join(props)}::{_escape(p.message)}"


def _escape(text: str, *, property: bool = False) -> str:
    """GitHub's escaping of workflow command data (actions/toolkit, core/src/command.ts)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if property else text


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
