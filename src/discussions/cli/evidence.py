"""The `evidence` command: fulfil a discussion's pending evidence requests by hand."""

from __future__ import annotations

import click

from .. import ops
from .common import echo_json, resolve_discussion, say, workspace
from .options import json_option


@click.command("evidence")
@click.argument("file")
@json_option("Print the blocks written as JSON.")
def evidence_command(file: str, as_json: bool) -> None:
    """Fulfil the pending EVIDENCE: requests of a discussion now.

    Each request (`EVIDENCE: read PATH[:START-END]`, `grep TEXT [in GLOB]`,
    `list DIR`, `git log|show|diff|blame ARGS`, `run NAME`) is read from the
    project, confined to it, and appended as an evidence block; a request
    that may not be fulfilled is recorded as refused, with the reason.
    `turn` and `run` do this after every turn.

    \b
    Examples:
      discussions evidence feature-x.md
      discussions evidence feature-x.md --json
    """
    ws = workspace()
    done = ops.evidence(ws, resolve_discussion(file, ws))
    if as_json:
        echo_json(done.to_dict())
        return
    if not done.blocks:
        say("No evidence request is pending.")
        return
    for line in done.lines():
        say(line)
