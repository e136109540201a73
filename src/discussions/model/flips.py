"""A persona's flip rate: its changes of position over every discussion of the project, and
how many of them cited nothing new (the flip audit of `derive.positions`, counted per file in
the memory's cache, `memory.FileMemory.flips`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .memory import author_keys, read_folder

if TYPE_CHECKING:
    from pathlib import Path

    from ..settings.participants import Participant
    from ..settings.workspace import Workspace


@dataclass(slots=True)
class FlipRate:
    """How often a persona changed its position across the project's discussions."""

    discussions: int = 0
    """Discussions in which it took a position."""
    later: int = 0
    """Positions after its first one in each discussion: the chances to change."""
    flips: int = 0
    unexplained: int = 0
    """Flips citing nothing new."""

    def text(self) -> str:
        """``Flips: 2 of 5 later positions changed (40%), 1 citing nothing new (20%), ...``."""
        if not self.later:
            return f"Flips: none to count (positions in {self.discussions} discussion(s))."
        share = f"{self.flips / self.later:.0%}"
        bare = f"{self.unexplained / self.later:.0%}"
        return (
            f"Flips: {self.flips} of {self.later} later positions changed ({share}), "
            f"{self.unexplained} citing nothing new ({bare}), across {self.discussions} "
            "discussion(s)."
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "discussions": self.discussions,
            "later_positions": self.later,
            "flips": self.flips,
            "unexplained": self.unexplained,
            "flip_rate": round(self.flips / self.later, 3) if self.later else None,
            "unexplained_rate": round(self.unexplained / self.later, 3) if self.later else None,
        }


def flip_rate(
    workspace: Workspace, participant: Participant, folder: Path | None = None
) -> FlipRate:
    """`participant`'s flips over every discussion of `folder` (default: the discussions
    folder), through the memory's per-file cache (`memory.read_folder`)."""
    keys = author_keys(participant)
    out = FlipRate()
    for fm in read_folder(workspace, folder):
        found = next((fm.flips[k] for k in keys if k in fm.flips), None)
        if found is None:
            continue
        taken, flips, unexplained = found
        out.discussions += 1
        out.later += taken - 1
        out.flips += flips
        out.unexplained += unexplained
    return out
