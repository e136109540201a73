"""What the tests of outcomes, re-trials and calibration share: the CLI as a real subprocess,
and a decided ``vote_first`` discussion in a git repository, run by stand-ins that vote by
plan and record their prompts (tests/scripts/ballot.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from discussions.derive.signatures import render_signed

from ..conftest import script_command, write
from ..support.git import commit_all
from ..support.vote_first import PLAN, VOTE_FIRST

OTHER_PLAN = "architect=CHANGES;security=CHANGES;pragmatist=READY"
"""The other provider: architect and pragmatist vote otherwise on the first ballot."""


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`discussions ARGS` as a real subprocess in the current folder (the test's project)."""
    proc = subprocess.run(
        [sys.executable, "-m", "discussions", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"discussions {' '.join(args)}: {proc.stdout}\n{proc.stderr}")
    return proc


def cli_json(*args: str) -> Any:
    return json.loads(cli(*args, "--json").stdout)


def decided_discussion(
    repo: Path,
    providers_file: Callable[..., Path],
    prompts: Path,
    others: dict[str, str],
    template: str = VOTE_FIRST,
    decision: bool = True,
) -> Path:
    """`init`, a ``vote_first`` discussion 'cache.md' with a person's DECISION: line (none
    without `decision`: decided by the consensus alone), run to its decision by the stand-in
    ``standin`` (recording prompts in `prompts`/first), and committed. `others`: more
    providers, name -> command. Returns the file."""
    entries = {"standin": script_command("ballot.py", str(prompts / "first"), PLAN), **others}
    providers_file(entries)
    write(repo / "templates" / "verdict.yaml", template)
    cli("init")
    write(repo / "discussions.yaml", "providers:\n  default: standin\n  detect: false\n")
    cli("new", "Cache", "--template", "verdict", "--context", "Cache prices for an hour.")
    path = repo / "discussions" / "cache.md"
    if decision:
        cli("comment", "cache.md", "DECISION: cache prices for an hour", "--author", "Rob")
    cli("run", "cache.md", "--rounds", "3")
    commit_all(repo, "decided")
    return path


HEAD = """\
<!-- DISCUSSION -->
<!-- Title: {title} -->
<!-- Phase: ballot -->
<!-- Status: CLOSED -->
<!-- Template: verdict -->
<!-- Participants: architect, security, pragmatist -->

# {title}

---
"""


def ai(author: str, vote: str, provider: str, confidence: int | None = None) -> str:
    """A participant's comment as the engine writes it, with its provider (and model)."""
    text = f"My reasons.\n\nCONFIDENCE: {confidence}" if confidence is not None else "Hm."
    meta = [f"provider: {provider.split('/')[0]}"]
    if "/" in provider:
        meta.append(f"model: {provider.split('/')[1]}")
    return render_signed(author, text, meta, vote) + "\n---\n"


def person(author: str, text: str) -> str:
    return f"\nName: {author}\n\n{text}\n\n---\n"
