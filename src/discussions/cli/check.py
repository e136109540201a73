"""`discussions check`: report problems in discussion files (and, with --since, rewrites)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..errors import DiscussionsError
from ..model import Discussion
from ..storage import is_derived, lost_appends, require_discussion
from .common import display_path, echo_json, resolve_file, say, workspace
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

    Exits 1 when any file has a problem, 0 when all are clean. With --since,
    a discussion file whose existing text was edited (not only appended to)
    since REV is a problem too; a file created after REV is fine.

    \b
    Examples:
      discussions check discussions/*.md     # summaries and CHRONICLE.md are skipped
      discussions check feature-x.md --json
      discussions check --since origin/main          # in CI: append-only since the base
      discussions check --since HEAD discussions/feature-x.md
    """
    ws = workspace(warn=False)
    if not files and rev is None:
        raise click.UsageError("give FILE(s) to check, or --since REV")
    if files:
        paths: list[tuple[str, Path | None]] = [(name, None) for name in files]
    else:
        from ..gitops import changed_discussion_files

        paths = [(display_path(p), p) for p in changed_discussion_files(rev or "", Path.cwd())]
    problems: list[dict[str, object]] = []
    found: list[Path] = []
    for name, given in paths:
        try:
            path = given or resolve_file(name, ws)
            if is_derived(path):
                continue  # a summary or the chronicle, picked up by a glob: rebuilt, not checked
            require_discussion(path)
            found.append(path)
            d = Discussion.load(path, ws)
            warnings = d.warnings
        except DiscussionsError as exc:
            problems.append({"file": name, "line": 0, "message": str(exc)})
            continue
        if rev is not None:
            from ..gitops import append_only_violation

            try:
                violation = append_only_violation(path, rev)
            except DiscussionsError as exc:  # outside the repository, unknown revision
                problems.append({"file": name, "line": 0, "message": str(exc)})
                continue
            if violation is not None:
                problems.append(
                    {"file": name, "line": violation.line, "message": violation.message}
                )
        for w in warnings:
            problems.append({"file": name, "line": w.line, "message": w.message})
        for message in lost_appends(path):
            problems.append({"file": name, "line": 0, "message": message})
    _warn_driver(found)
    problems += [
        {"file": display_path(p.file), "line": p.line, "message": p.message}
        for p in ws.problems
    ]
    if as_json:
        echo_json(problems)
    else:
        for p in problems:
            say(f"{p['file']}:{p['line']}: {p['message']}")
        files_with = len({p["file"] for p in problems})
        summary = (
            f"{len(problems)} problem(s) in {files_with} file(s); {len(paths)} checked"
            if problems
            else f"{len(paths)} file(s) checked, no problems"
        )
        click.echo(summary, err=True)
    if problems:
        sys.exit(1)


def _warn_driver(paths: list[Path]) -> None:
    """Say once, on stderr, when this clone lacks the merge driver the repository asks for
    (a warning about the clone, not a problem in the files: it does not fail the check)."""
    if not paths:
        return
    from ..gitops import driver_warning

    try:
        message = driver_warning(paths[0])
    except DiscussionsError:
        return
    if message:
        click.echo(f"Warning: {message}", err=True)
