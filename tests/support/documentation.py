"""The documentation loop's scenario: a docs template whose drafts the stand-in
tests/scripts/doc_loop.py writes and reviews (it records every prompt it receives)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from ..conftest import code, run, script_command, write

Loop = Callable[..., Path]
"""loop(plan, revisions=2, decided=True) -> the discussion's path."""

TEMPLATE = """
name: docs
participants: [architect, security, pragmatist]
consensus_status: DECIDED
output: {{type: documentation, leader: architect, max_revisions: {revisions}, path: docs/out.md}}
phases:
  - id: review
    title: Review
    voting_mode: true
    auto_trigger: consensus
"""


def loop_maker(isolated: Path, providers_file: Callable[..., Path], memory: Path) -> Loop:
    """loop(plan, revisions=2, decided=True): a discussion 'plan.md' with the docs template,
    the stand-in answering by `plan` (recording into `memory`), closed as DECIDED unless
    `decided` is False (`draft` documents decided discussions only)."""

    def make(plan: dict[str, object], revisions: int = 2, decided: bool = True) -> Path:
        write(isolated / "templates" / "docs.yaml", TEMPLATE.format(revisions=revisions))
        providers_file({"standin": script_command("doc_loop.py", json.dumps(plan), str(memory))})
        write(isolated / "discussions.yaml", "providers:\n  default: standin\n  detect: false\n")
        assert code(run("new", "Plan", "--template", "docs")) == 0
        if decided:
            assert code(run("close", "plan.md", "--status", "DECIDED")) == 0
        return isolated / "discussions" / "plan.md"

    return make
