"""Commands on discussion files: new, list, comment, advance, close, reopen, summary (`status`
has a module of its own)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .. import ops
from ..errors import EmptyComment
from ..model.catalog import list_discussions
from ..model.discussion import Discussion
from .common import (
    display_path,
    echo_json,
    read_text_arg,
    resolve_discussion,
    say,
    workspace,
)
from .options import dir_option, json_option

if TYPE_CHECKING:
    from ..ops.lifecycle import StatusChanged


@click.command("new")
@click.argument("title")
@click.option("-t", "--template", help="Template name (default: default_template, 'feature').")
@click.option("--context", help="Context text for the discussion; '-' reads standard input.")
@click.option(
    "--participants",
    help="Comma-separated aliases (default: default_participants in discussions.yaml, "
    "else the template's).",
)
@click.option(
    "-f",
    "--file",
    "file_name",
    help="File name to create (default: made from the title), in the discussions folder.",
)
@click.option(
    "--files",
    "attach_files",
    multiple=True,
    help="Attach files as evidence (a glob from the project root, '**' crosses folders); "
    "repeatable.",
)
@click.option(
    "--language",
    help="The language participants answer in: a code (nl, de) or a name (default: the "
    "language setting). Markers and votes stay in English.",
)
@dir_option("Folder to create the file in (default: output.directory, ./discussions).")
@json_option("Print the created discussion as JSON.")
def new_command(
    title: str,
    template: str | None,
    context: str | None,
    participants: str | None,
    directory: Path | None,
    file_name: str | None,
    as_json: bool,
    attach_files: tuple[str, ...] = (),
    language: str | None = None,
) -> None:
    """Create a discussion file from a template.

    \b
    Examples:
      discussions new "Add user authentication"
      discussions new "API redesign" --template adr --participants architect,pragmatist
      git diff | discussions new "Review: retry logic" -t code-review --context -
      discussions new "Überprüfung der Änderungen" --file review-2026-11.md
      discussions new "Auth review" --files 'src/auth/**' --files README.md
      discussions new "Inlogbeveiliging" --language nl
    """
    made = ops.create(
        workspace(),
        title,
        template=template,
        context=read_text_arg(context),
        participants=participants.split(",") if participants else None,
        directory=directory,
        file_name=file_name,
        attach=list(attach_files),
        language=language,
    )
    if as_json:
        echo_json(made.to_dict())
        return
    d = made.discussion
    say(f"Created: {display_path(d.path)}")
    for line in made.attached:
        say(line)
    info = d.phase_info
    say(
        f"Template: {d.template.name if d.template else '?'}; phase: {d.phase}"
        + (f" ({info.title})" if info else "")
    )
    if d.participants:
        say(f"Participants: {', '.join('@' + a for a in d.participants)}")
        say(f"Next: discussions turn {display_path(d.path)}  (asks every participant)")


@click.command("list")
@click.option(
    "--status",
    "status_filter",
    help="Only discussions with this status; 'open': every one not finished (OPEN, PROPOSED...).",
)
@dir_option("Folder to list (default: output.directory, ./discussions).")
@json_option("Print a JSON list.")
def list_command(status_filter: str | None, directory: Path | None, as_json: bool) -> None:
    """List the discussions in the discussions folder.

    \b
    Examples:
      discussions list
      discussions list --status open
      discussions list --dir docs/decisions --json
    """
    ws = workspace()
    rows, skipped = list_discussions(ws, directory, status_filter)
    for line in skipped:
        say(f"Skipped {line}", err=True)
    if as_json:
        echo_json(rows)
        return
    if not rows:
        say("No discussions found." if not status_filter else "No matching discussions.")
        return
    width = max(len("STATUS"), *(len(r["status"]) for r in rows))
    pwidth = max(len("PHASE"), *(len(r["phase"]) for r in rows))
    fwidth = max(len("FILE"), *(len(r["file"]) for r in rows))
    say(f"{'STATUS':<{width}}  {'PHASE':<{pwidth}}  COMMENTS  {'FILE':<{fwidth}}  TITLE")
    for r in rows:
        say(
            f"{r['status']:<{width}}  {r['phase']:<{pwidth}}  {r['comments']:>8}  "
            f"{r['file']:<{fwidth}}  {r['title']}"
        )


@click.command("comment")
@click.argument("file")
@click.argument("text", required=False)
@click.option("--vote", help="READY, CHANGES or REJECT (any case).")
@click.option(
    "-a",
    "--author",
    "--as",
    "author",
    help="Name to sign with (default: git user.name, else OS user).",
)
@click.option("--motion", help="Move a motion (MOTION: text): the discussion pauses to second it.")
@click.option(
    "--second",
    type=click.Choice(["yes", "no"], case_sensitive=False),
    help="Second the open motion, or decline to (SECOND: yes|no).",
)
@click.option(
    "--ballot",
    type=click.Choice(["YES", "NO", "ABSTAIN"], case_sensitive=False),
    help="Your ballot on the seconded motion (BALLOT: YES|NO|ABSTAIN).",
)
@json_option("Print what was added as JSON.")
def comment_command(
    file: str,
    text: str | None,
    vote: str | None,
    author: str | None,
    motion: str | None = None,
    second: str | None = None,
    ballot: str | None = None,
    as_json: bool = False,
) -> None:
    """Append a comment (and optionally a vote) as a human participant.

    TEXT may be '-' to read the comment from standard input.

    \b
    Examples:
      discussions comment feature-x.md "I agree with the architect's concerns."
      discussions comment feature-x.md --vote READY "Looks good to me."
      discussions comment feature-x.md --vote changes --author Rob
      cat notes.md | discussions comment feature-x.md -
      discussions comment feature-x.md --motion "Adopt JWT with 1h expiry"
      discussions comment feature-x.md --ballot yes --author Rob
      discussions comment feature-x.md "Agreed." --json
    """
    ws = workspace()
    path = resolve_discussion(file, ws)
    body = read_text_arg(text) or ""
    try:
        posted = ops.comment(
            ws, path, author, body, vote=vote, motion=motion, second=second, ballot=ballot
        )
    except EmptyComment:
        raise click.UsageError(
            "give comment TEXT ('-' reads standard input), --vote, or both"
        ) from None
    if as_json:
        echo_json(posted.to_dict())
        return
    suffix = f" with VOTE: {posted.vote}" if posted.vote else ""
    say(f"Added comment from {posted.author}{suffix}.")
    warn_notices(posted.notices)
    for m in posted.motions:
        say(f"Motion of line {m.line} {m.result}.")
    if posted.council_note:
        say(posted.council_note, err=True)
    for typo, close in posted.typos:
        say(f"Note: @{typo} matches no participant; did you mean @{close}?", err=True)


@click.command("advance")
@click.argument("file")
@click.option("--to", "target", help="Phase to move to (default: the current phase's next).")
@json_option("Print the new phase as JSON.")
def advance_command(file: str, target: str | None, as_json: bool) -> None:
    """Move a discussion to its next phase (votes restart in the new phase).

    \b
    Examples:
      discussions advance feature-x.md
      discussions advance feature-x.md --to consensus_vote
      discussions advance feature-x.md --json
    """
    ws = workspace()
    done = ops.advance(ws, resolve_discussion(file, ws), target)
    if as_json:
        echo_json(done.to_dict())
        return
    say(f"Advanced to phase: {done.phase}")
    warn_notices(done.notices)


def warn_notices(notices: list[str]) -> None:
    """What an append noticed (`Discussion.notices`), as warnings on standard error."""
    for notice in notices:
        say(f"Warning: {notice}", err=True)


@click.command("close")
@click.argument("file")
@click.option(
    "--status",
    "new_status",
    default="CLOSED",
    show_default=True,
    help="Status to record (e.g. DECIDED, REJECTED, ABANDONED; an unknown one lists them).",
)
@json_option("Print the new status as JSON.")
def close_command(file: str, new_status: str, as_json: bool) -> None:
    """Close a discussion by hand: record a status change in the file.

    
    Examples:
      discussions close feature-x.md
      discussions close feature-x.md --status DECIDED
      discussions close feature-x.md --status abandoned --json
    """
    ws = workspace()
    _status_changed(ops.close(ws, resolve_discussion(file, ws), new_status), as_json)


def _status_changed(done: StatusChanged, as_json: bool) -> None:
    if as_json:
        echo_json(done.to_dict())
        return
    say(f"Status changed to: {done.status}")
    warn_notices(done.notices)


@click.command("reopen")
@click.argument("file")
@json_option("Print the new status as JSON.")
def reopen_command(file: str, as_json: bool) -> None:
    """Reopen a closed or decided discussion (records a status change to OPEN).

    
    Examples:
      discussions reopen feature-x.md
      discussions reopen feature-x.md --json
    """
    ws = workspace()
    _status_changed(ops.reopen(ws, resolve_discussion(file, ws)), as_json)


@click.command("summary")
@click.argument("file")
@click.option("--ai", "use_ai", is_flag=True, help="Add a narrative summary written by an AI.")
@click.option("-p", "--provider", help="Provider for the narrative (default: the chain).")
@click.option(
    "--participant",
    "alias",
    default="moderator",
    show_default=True,
    help="Who writes the narrative.",
)
@click.option("--stdout", "to_stdout", is_flag=True, help="Print instead of writing the file.")
def summary_command(
    file: str, use_ai: bool, provider: str | None, alias: str, to_stdout: bool
) -> None:
    """Write FILE's summary to a .sum.md next to it (rebuilt from the file).

    Lists phase, votes and consensus, open questions, decisions, TODOs,
    assignments, done items and concerns, each linked to its line.

    \b
    Examples:
      discussions summary feature-x.md
      discussions summary feature-x.md --ai
      discussions summary feature-x.md --ai --provider claude-haiku --stdout
    """
    from ..model.summary import render_summary, write_summary

    ws = workspace()
    d = Discussion.load(resolve_discussion(file, ws), ws)
    narrative, narrator = None, ""
    if use_ai:
        from ..engine.council.narration import narrate
        from ..engine.runner import Runner

        narrative, narrator = narrate(Runner(ws), d, alias, provider)
    if to_stdout:
        say(render_summary(d, narrative, narrator), nl=False)
        return
    path = write_summary(d, narrative, narrator)
    say(f"Wrote {display_path(path)}")
