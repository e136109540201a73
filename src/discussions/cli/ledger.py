"""Commands on the project's decisions and memory: decisions, chronicle, adr, memory."""

from __future__ import annotations

import functools
from pathlib import Path

import click

from ..derive.applies import Implementation
from ..model import adr, chronicle, ledger, memory
from ..model.discussion import Discussion
from ..settings.workspace import Workspace
from .common import display_path, echo_json, resolve_discussion, say, workspace
from .options import dir_option, json_option

_DIR_OPTION = dir_option("Folder of discussions (default: output.directory, ./discussions).")


def _shown(path: Path) -> str:
    """`display_path` of a file in a scanned folder, without resolving the file itself (it
    may be a link to nowhere, and there may be thousands)."""
    folder = _shown_folder(path.parent)
    return path.name if folder == "." else f"{folder}/{path.name}"


@functools.lru_cache(maxsize=64)
def _shown_folder(folder: Path) -> str:
    return display_path(folder)


def _folder(directory: Path | None, ws: Workspace) -> Path:
    """The folder to scan, relative to the current folder when under it (for messages)."""
    return directory or Path(display_path(ws.config.output_directory))


def _notes(found: ledger.Ledger) -> None:
    for s in found.skipped:
        say(f"Skipped {_shown(s.file)}: {s.reason}", err=True)


def _implementation(i: Implementation) -> str:
    commit = i.commits[-1][:7]
    if i.implemented is None:
        return f"; applied in {commit}"
    return f"; implemented by {commit}" if i.implemented else f"; applied in {commit}, not accepted"


@click.command("decisions")
@click.option("--status", "status_filter", help="Only decisions of discussions with this status.")
@_DIR_OPTION
@click.option(
    "--flipped", is_flag=True, help="Only decisions whose re-trial found votes that would flip."
)
@json_option("Print a JSON list.")
def decisions_command(
    status_filter: str | None, directory: Path | None, as_json: bool, flipped: bool = False
) -> None:
    """List every DECISION: across the project's discussions, oldest first.

    Each line shows the date, the discussion's status, FILE:LINE, the decision, who wrote it
    and the discussion's title. The date is when the comment was written (its `at:`), else
    the discussion's Created header; the list is in the order of the discussions' dates.

    \b
    Examples:
      discussions decisions
      discussions decisions --status decided
      discussions decisions --dir docs/decisions --json | jq '.[].text'
      discussions decisions --flipped
    """
    ws = workspace()
    found = ledger.scan(ws, _folder(directory, ws), status_filter)
    _notes(found)
    if flipped:  # a re-trial (`discussions retrial`) found votes that would flip
        from ..model.flipped import flipped_entries

        found.entries = flipped_entries(found, ws, status_filter)
    if as_json:
        echo_json([{**e.to_dict(), "file": _shown(e.file)} for e in found.entries])
        return
    if not found.entries:
        where = display_path(found.folder)
        if flipped:
            say(f"No decisions in {where} whose re-trial found a vote that would flip.")
        elif status_filter:
            say(f"No decisions in {where} with status {status_filter.upper()}.")
        else:
            say(f"No decisions in {where}. Record one with a `DECISION:` line in a comment.")
        _revisits(ws, found.folder)
        return
    width = max(len(e.status) for e in found.entries)
    for n, e in enumerate(found.entries):
        date = (e.written or e.date)[:10] or "-" * 10
        done = "".join(_implementation(i) for i in e.implemented_by)
        say(
            f"{date}  {e.status:<{width}}  {_shown(e.file)}:{e.line}  "
            f"{e.text}  ({e.author}; {e.title}{done})"
        )
        following = found.entries[n + 1].file if n + 1 < len(found.entries) else None
        if e.settled and e.dissent and following != e.file:  # once, under its last
            say(f"{' ' * 12}{e.dissent.headline()}")
        if following != e.file:
            for r in e.retrials:
                say(f"{' ' * 12}{r.headline()}")
    _revisits(ws, found.folder)


def _revisits(ws: Workspace, folder: Path) -> None:
    """The REVISIT-WHEN: conditions that a later discussion mentions, after the decisions."""
    found = memory.triggered_revisits(ws, folder)
    if found:
        say("")
    for r in found:
        say(
            f"{_shown(r.file)}:{r.line}  revisit when {r.text}  ({r.author}; mentioned by "
            f"{_shown(r.mentioned_by)})"
        )


@click.command("chronicle")
@_DIR_OPTION
@click.option("--stdout", "to_stdout", is_flag=True, help="Print instead of writing the file.")
def chronicle_command(directory: Path | None, to_stdout: bool) -> None:
    """Write CHRONICLE.md in the discussions folder: every decision, by discussion.

    The chronicle is derived from the DECISION: lines of the discussions and rebuilt from
    scratch each time; it is never the source of truth (change a decision in its
    discussion). Newest discussion first, each decision linked to its line.

    \b
    Examples:
      discussions chronicle
      discussions chronicle --stdout
      discussions chronicle --dir docs/decisions
    """
    ws = workspace()
    if to_stdout:
        found = ledger.scan(ws, _folder(directory, ws))
        _notes(found)
        say(chronicle.render_chronicle(found), nl=False)
        return
    path, found = chronicle.write_chronicle(ws, _folder(directory, ws))
    _notes(found)
    say(f"Wrote {display_path(path)} ({ledger.counted(len(found.entries), 'decision')}).")


@click.command("adr")
@click.argument("file")
@dir_option("Folder of the records (default: docs/adr in the project).")
@click.option(
    "--supersedes",
    type=click.IntRange(min=1),
    metavar="N",
    help="Number of the record this one replaces; that record gets a 'Superseded by' line.",
)
@click.option(
    "--renumber",
    is_flag=True,
    help="FILE is a record: give it the next free number (two branches each wrote one with "
    "the same number); its heading and other records' links to it follow.",
)
@json_option("Print the record written as JSON.")
def adr_command(
    file: str, directory: Path | None, supersedes: int | None, renumber: bool, as_json: bool
) -> None:
    """Write FILE's decisions as a numbered architecture decision record.

    The record (docs/adr/NNNN-title.md, the next free number) has Michael Nygard's
    sections: Status (Accepted once the discussion is decided, Proposed while open),
    Context (the discussion's introduction), Decision (its DECISION: lines), Consequences
    (its CONCERN: and TODO: lines), and a link back to the discussion. An existing record
    is never overwritten.

    \b
    Examples:
      discussions adr add-user-authentication.md
      discussions adr api.md --dir doc/architecture/decisions
      discussions adr sessions-to-jwt.md --supersedes 3
      discussions adr --renumber docs/adr/0004-use-jwt.md
    """
    if renumber:
        number, path = adr.renumber_adr(Path(file))
        if as_json:
            echo_json({"number": number, "file": display_path(path)})
        else:
            say(f"Renumbered {file} to {display_path(path)} (record {number}).")
        return
    ws = workspace()
    d = Discussion.load(resolve_discussion(file, ws), ws)
    folder = directory or Path(display_path(ws.config.base_dir / "docs" / "adr"))
    record = adr.write_adr(d, folder, supersedes)
    if as_json:
        data = record.to_dict()
        data["file"] = display_path(record.path)
        if record.supersedes:
            data["supersedes"] = display_path(record.supersedes)
        echo_json(data)
        return
    say(
        f"Wrote {display_path(record.path)} "
        f"({record.status}, {ledger.counted(record.decisions, 'decision')})."
    )
    if record.supersedes:
        say(f"Marked {display_path(record.supersedes)} as superseded by it.")


@click.command("memory")
@click.argument("alias")
@json_option("Print the reminder as JSON.")
@click.option("--write", "write_page", is_flag=True, help="Also write memory/ALIAS.md.")
def memory_command(alias: str, as_json: bool, write_page: bool) -> None:
    """Show what participant ALIAS is reminded of from its earlier discussions.

    Derived from the discussions folder: each discussion it wrote in, newest first, with the
    positions it took there (FILE:LINE), what was decided and whether it ended on the winning
    side; its REMEMBER: and REVISIT-WHEN: notes; its flip rate (changes of vote or score,
    and those citing nothing new). Its prompts show the newest
    memory.discussions (default 25) of them within memory.per_participant_chars.

    \b
    Examples:
      discussions memory architect
      discussions memory @security --json
      discussions memory architect --write
    """
    from ..ops.memory import memory, report_lines

    done = memory(workspace(), alias, write=write_page)
    if as_json:
        echo_json(done.to_dict(_shown))
        return
    for line in report_lines(done.reminder, done.participant, _shown):
        say(line)
    say(done.flips.text())
    if done.written is not None:
        say(f"Wrote {display_path(done.written)}.")
