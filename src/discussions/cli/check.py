"""`discussions check`: report problems in discussion files (and, with --since, rewrites)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..errors import DiscussionsError
from ..gitops import AppendViolation
from ..model import Discussion
from ..storage import is_derived
from .common import display_path, echo_json, resolve_file, say, workspace


@click.command("check")
@click.argument("files", nargs=-1)
@click.option(
    "--since",
    "rev",
    metavar="REV",
    help="Also fail when a file changed bytes it had at git revision REV (not a pure "
    "append). Without FILE: every discussion file changed since REV.",
)
@click.option("--json", "as_json", is_flag=True, help="Print problems as a JSON list.")
def check_command(files: tuple[str, ...], rev: str | None, as_json: bool) -> None:
    """Report problems in discussion files as FILE:LINE: message.

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
    ws = workspace()
    if not files and rev is None:
        raise click.UsageError("give FILE(s) to check, or --since REV")
    problems: list[dict[str, object]] = []
    paths: list[tuple[str, Path]] = []
    for name in files:
        try:
            paths.append((name, resolve_file(name, ws)))
        except DiscussionsError as exc:
            problems.append({"file": name, "line": 0, "message": str(exc)})
    paths = [(name, p) for name, p in paths if not is_derived(p)]  # summaries, the chronicle
    violations: dict[Path, list[AppendViolation]] = {}
    if rev is not None:
        from ..gitops import check_appends

        report = check_appends(rev, Path.cwd(), [p for _, p in paths] if files else None)
        if not files:
            paths = [(display_path(p), p) for p in report.files]
        for v in report.violations:
            violations.setdefault(v.path, []).append(v)
    shown = {p: name for name, p in paths}
    for path, found_here in violations.items():
        if path not in shown:  # deleted since REV
            problems += [
                {"file": display_path(path), "line": 0, "message": v.message} for v in found_here
            ]
    found: list[Path] = []
    for name, path in paths:
        found.append(path)
        for v in violations.get(path, []):
            problems.append({"file": name, "line": v.line, "message": v.message})
        try:
            warnings = Discussion.load(path, ws).warnings
        except DiscussionsError as exc:
            problems.append({"file": name, "line": 0, "message": str(exc)})
            continue
        for w in warnings:
            problems.append({"file": name, "line": w.line, "message": w.message})
    missing = len(files) - len(shown) if files else 0  # could not be resolved, or derived
    checked = len(paths) + missing + len([p for p in violations if p not in shown])
    _warn_driver(found)
    if as_json:
        echo_json(problems)
    else:
        for p in problems:
            say(f"{p['file']}:{p['line']}: {p['message']}")
        files_with = len({p["file"] for p in problems})
        summary = (
            f"{len(problems)} problem(s) in {files_with} of {checked} file(s)"
            if problems
            else f"{checked} file(s) checked, no problems"
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
