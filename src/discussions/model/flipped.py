"""`discussions decisions --flipped`: the decisions a re-trial would flip (docs/outcomes.md).

The ledger lists ``DECISION:`` lines; a discussion decided by its consensus alone has none, yet
its re-trial can find votes that would flip it all the same. Such a discussion (settled, with
a flipping ``RETRIAL`` block and no decision in the ledger) is listed with an entry standing
for its decision: its text says it was decided by consensus, its line is where the status
changed. Only these files are parsed in full, and only for ``--flipped``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import DiscussionsError
from .discussion import Discussion
from .folder import discussion_candidates
from .ledger import Ledger, LedgerEntry, is_settled

if TYPE_CHECKING:
    from ..settings.workspace import Workspace

CONSENSUS_TEXT = "decided by consensus, no DECISION: line"
"""The text of the entry standing for a discussion's decision that no line wrote."""
CONSENSUS_AUTHOR = "consensus"
"""Its author: the council's consensus, no one's comment."""


def flipped_entries(
    ledger: Ledger, workspace: Workspace, status: str | None = None
) -> list[LedgerEntry]:
    """The entries of `ledger` (scanned for `status`, when given) whose re-trial would flip,
    and one for each settled discussion of its folder with that status, decided without a
    ``DECISION:`` line, whose re-trial would flip; in the ledger's order (date, file, line)."""
    found = [e for e in ledger.entries if e.flipped]
    listed = {e.file for e in ledger.entries}
    wanted = status.strip().upper() if status else None
    for path in discussion_candidates(ledger.folder):
        entry = None if path in listed else _consensus_entry(path, workspace)
        if entry is not None and (wanted is None or entry.status.upper() == wanted):
            found.append(entry)
    return sorted(found, key=lambda e: (e.date, e.file.name, e.line))


def _consensus_entry(path: Path, workspace: Workspace) -> LedgerEntry | None:
    """The entry for `path` when it is a settled discussion with a re-trial that would flip
    (it holds no decision: the ledger listed none of it); else None."""
    try:
        if b"<!-- RETRIAL" not in path.read_bytes():
            return None
        d = Discussion.load(path, workspace)
        retrials = tuple(r for r in d.retrials if r.provider and r.votes)
        initial = d.template.status if d.template else "OPEN"
        if not any(r.flips for r in retrials) or not is_settled(d.status, initial):
            return None
        return LedgerEntry(
            CONSENSUS_TEXT,
            CONSENSUS_AUTHOR,
            path,
            d.status_changed_line or 1,
            d.title,
            d.status,
            d.header.get("created", ""),
            True,
            dissent=d.dissent,
            retrials=retrials,
        )
    except (DiscussionsError, OSError):
        return None
