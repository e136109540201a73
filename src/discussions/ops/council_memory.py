"""The council-memory act (`council-memory`): what the council decided across the project's
discussions and how its votes went (`model.council`), and its files ``memory/COUNCIL.md`` and
``memory/COUNCIL.json`` written incrementally (`write`) or from scratch (`rebuild`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.prompt.council import DEFAULT_COUNCIL_DISCUSSIONS
from ..model.council import CouncilEntry, council_entries, update_council, write_council
from ..settings.workspace import Workspace, display_path

__all__ = ["CouncilMemory", "council_memory"]


@dataclass(slots=True)
class CouncilMemory:
    """The council's entries, newest first; how many prompts show; the folder written (None
    unless asked for)."""

    entries: list[CouncilEntry]
    limit: int
    written: Path | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "discussions": [e.to_dict() for e in self.entries],
            "shown_in_prompts": min(self.limit, len(self.entries)),
            "limit": self.limit,
            "written": display_path(self.written) if self.written else None,
        }


def _limit(ws: Workspace) -> int:
    try:
        value = ws.config.section("memory").get("council_discussions", DEFAULT_COUNCIL_DISCUSSIONS)
        return max(0, int(value))
    except (TypeError, ValueError):
        return DEFAULT_COUNCIL_DISCUSSIONS


def council_memory(ws: Workspace, *, write: bool = False, rebuild: bool = False) -> CouncilMemory:
    """The council's memory; with `write`, its files brought up to date (only the discussions
    whose bytes changed are derived again; made from scratch the first time); with
    `rebuild`, made from scratch."""
    written = None
    if rebuild:
        written = write_council(ws)
    elif write:
        written = update_council(ws) or write_council(ws)
    return CouncilMemory(council_entries(ws), _limit(ws), written)
