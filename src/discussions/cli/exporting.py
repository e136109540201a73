"""The export command: a discussion as an HTML page, a JSON document, a written post or the
hand-off of its decision."""

from __future__ import annotations

from pathlib import Path

import click

from .common import display_path, resolve_discussion, say, workspace


@click.command("export")
@click.argument("file")
@click.option(
    "--format",
    "kind",
    type=click.Choice(["html", "json", "post", "handoff"]),
    default="html",
    show_default=True,
    help="html: a page needing no script; json: the state and every comment; "
    "post: an article written by a participant; handoff: the decision's hand-off as JSON "
    "(decisions, TODOs, constraints, evidence, open questions, approval).",
)
@click.option(
    "-o",
    "--out",
    help="File to write (default: next to FILE, as FILE.html, .json, .post.md or "
    ".handoff.json); '-' prints.",
)
@click.option("-p", "--provider", help="Provider for the post (default: the chain).")
@click.option("--participant", "alias", help="Who writes the post (default: moderator).")
@click.option(
    "--allow-undecided",
    is_flag=True,
    help="With --format handoff: export the hand-off of a discussion that decided nothing "
    '(its "decided" is false) instead of refusing.',
)
def export_command(
    file: str,
    kind: str,
    out: str | None,
    provider: str | None,
    alias: str | None,
    allow_undecided: bool,
) -> None:
    """Export FILE as HTML, JSON, a written post or a hand-off; the discussion is not changed.

    The hand-off of a discussion that decided nothing is refused (exit code 1) unless
    --allow-undecided.

    \b
    Examples:
      discussions export feature-x.md
      discussions export feature-x.md --format json --out - | jq .consensus
      discussions export feature-x.md --format post --provider claude
      discussions export feature-x.md --format html --out site/feature-x.html
      discussions export feature-x.md --format handoff --out - | jq .decisions
    """
    from ..ops.export import export

    ws = workspace()
    done = export(
        ws, resolve_discussion(file, ws), kind, out=Path(out) if out and out != "-" else None,
        save=out != "-", participant=alias, provider=provider, allow_undecided=allow_undecided,
    )  # fmt: skip
    if done.written is None:
        if kind == "post":
            say(done.text, nl=False)
        else:
            click.echo(done.text, nl=False)
        return
    by = f" (written by {done.author})" if done.author else ""
    say(f"Wrote {display_path(done.written)}{by}")
