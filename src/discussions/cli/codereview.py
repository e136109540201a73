"""`discussions review`: the command around `ops.review.review` (a code-review discussion
from a git diff, and with @aliases their turn)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..ops.review import DEFAULT_BUDGET, review
from .common import display_path, echo_json, say, workspace
from .options import json_option

if TYPE_CHECKING:
    from ..engine.turn.outcomes import TurnResult
    from ..model.discussion import Discussion


@click.command("review")
@click.argument("args", nargs=-1, metavar="[REV-RANGE] [@ALIAS]...")
@click.option("--staged", is_flag=True, help="Review the staged changes (index against HEAD).")
@click.option("--title", help="Discussion title (default: from the branch and what is compared).")
@click.option(
    "--budget",
    type=click.IntRange(min=0),
    default=DEFAULT_BUDGET,
    show_default=True,
    help="Characters of diff to include; files beyond it are listed, not shown.",
)
@click.option(
    "--with-files",
    is_flag=True,
    help="Attach the current text of the changed files as evidence.",
)
@json_option("Print the created discussion as JSON.")
def review_command(
    args: tuple[str, ...],
    staged: bool,
    title: str | None,
    budget: int,
    as_json: bool,
    with_files: bool = False,
) -> None:
    """Open a code-review discussion from a git diff, and with @aliases run their turn.

    Default: the working tree against HEAD. The discussion lists the branch, the
    commits of a range, the changed files with +/- counts, and the diff as code.

    \b
    Examples:
      discussions review
      discussions review --staged @security
      discussions review main..HEAD @architect @security
      discussions review HEAD~3 --title "Retry logic" --budget 20000
      discussions review --with-files @security
    """
    aliases = [a for a in args if a.startswith("@")]
    revs = [a for a in args if not a.startswith("@")]
    if len(revs) > 1:
        raise click.UsageError(f"give at most one REV-RANGE (got: {' '.join(revs)})")
    done = review(
        workspace(),
        rev_range=revs[0] if revs else None,
        staged=staged,
        title=title,
        budget=budget,
        with_files=with_files,
        participants=aliases,
    )
    if as_json:
        echo_json(done.to_dict())
        return
    d = done.discussion
    click.echo(f"Created: {display_path(d.path)} ({done.changed} file(s) changed)")
    if done.omitted:
        click.echo(f"Diff of {len(done.omitted)} file(s) left out (--budget {budget}).")
    if done.refused:
        click.echo(f"Not shown, by the evidence rule: {', '.join(p for p, _ in done.refused)}")
    for line in done.attached:
        click.echo(line)
    _say_outcomes(done.turn, d)


def _say_outcomes(result: TurnResult | None, d: Discussion) -> None:
    """What the review's turn did, or how to ask for one."""
    if result is None:
        click.echo(f"Ask for a review: discussions turn {d.path.name} @all")
        return
    for o in result.outcomes:
        vote = f", VOTE: {o.vote}" if o.vote else ""
        state = f"posted via {o.provider}{vote}" if o.status == "posted" else o.status
        if o.status == "failed":
            state += f": {o.error}"
        say(f"  {o.name}: {state}")
