"""The council-memory command (`ops.council_memory`)."""

from __future__ import annotations

import click

from ..model.council import entry_lines
from .common import display_path, echo_json, say, workspace
from .options import json_option


@click.command("council-memory")
@json_option("Print the council's memory as JSON.")
@click.option(
    "--write",
    "write_files",
    is_flag=True,
    help="Also bring memory/COUNCIL.md and memory/COUNCIL.json up to date (the discussions "
    "changed since are derived again).",
)
@click.option("--rebuild", is_flag=True, help="Write both files from scratch.")
def council_memory_command(as_json: bool, write_files: bool, rebuild: bool) -> None:
    """Show what the council decided across the project's discussions and how its votes went.

    Derived from the discussions folder: each settled discussion that decided or voted on
    something, newest first, with its tally, who voted what, its decisions, motions and
    dissent. Every prompt shows the newest memory.council_discussions (default 25) of them
    within memory.council_chars; the files keep them all. Once the files exist, every turn,
    close and reopen keeps them up to date.

    \b
    Examples:
      discussions council-memory
      discussions council-memory --json
      discussions council-memory --write
      discussions council-memory --rebuild
    """
    from ..ops.council_memory import council_memory

    found = council_memory(workspace(), write=write_files, rebuild=rebuild)
    if as_json:
        echo_json(found.to_dict())
        return
    say(f"The council's memory: {len(found.entries)} discussion(s), newest first.")
    if not found.entries:
        say("Nothing yet: no settled discussion decided or voted on anything.")
    for e in found.entries:
        say("")
        say(f"{e.title} ({e.status}{', ' + e.date[:10] if e.date else ''}): {e.file}")
        for line in entry_lines(e):
            say("  " + line)
    if len(found.entries) > found.limit:
        left = len(found.entries) - found.limit
        say(f"Prompts show the newest {found.limit}; {left} older fade from them.")
    if found.written is not None:
        say(f"Wrote {display_path(found.written)}/COUNCIL.md and COUNCIL.json.")
