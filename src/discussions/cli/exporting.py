"""The export command: a discussion as an HTML page, a JSON document, a written post or the
hand-off of its decision."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..model.discussion import Discussion
from ..ops.export import (
    default_target,
    export_handoff,
    export_html,
    export_json,
    save_export,
    write_post,
)
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
    if kind != "post" and (provider or alias):
        raise click.UsageError("--provider and --participant apply to --format post only")
    if kind != "handoff" and allow_undecided:
        raise click.UsageError("--allow-undecided applies to --format handoff only")
    ws = workspace()
    d = Discussion.load(resolve_discussion(file, ws), ws)
    author = ""
    if kind == "html":
        text = export_html(d)
    elif kind == "json":
        text = json.dumps(export_json(d), indent=2, ensure_ascii=False) + "\n"
    elif kind == "handoff":
        data = export_handoff(d, allow_undecided=allow_undecided)
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    else:
        from ..engine.runner import Runner

        text, author = write_post(Runner(ws), d, alias or "moderator", provider)
    if out == "-":
        if kind == "post":
            say(text, nl=False)
        else:
            click.echo(text, nl=False)
        return
    target = Path(out) if out else default_target(d, kind)
    save_export(d, target, text)
    say(f"Wrote {display_path(target)}" + (f" (written by {author})" if author else ""))
