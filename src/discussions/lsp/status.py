"""The ``discussions/status`` notification: what an extension shows in its status area."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .buffer import Buffer


STATUS_METHOD = "discussions/status"
"""The custom notification the server sends after each look at an open discussion."""


def status_params(uri: str, b: Buffer) -> dict[str, Any]:
    """The parameters of ``discussions/status`` for the buffer `b` of document `uri`:
    ``uri``, ``title``, ``phase``, ``status``, ``consensus`` (a few words), ``reached``,
    ``waiting_for`` (voters without a vote), ``pending`` (mentioned, not answered: alias,
    by, line), ``problems`` (counts by severity) and ``text`` (one line to show as it is)."""
    d = b.discussion
    result = d.consensus_result
    pending = [p.to_dict() for p in d.pending_mentions]
    counts = {"error": 0, "warning": 0, "hint": 0}
    for p in b.problems:
        counts[p.severity] = counts.get(p.severity, 0) + 1
    text = f"{d.phase} · {result.summary}"
    if pending:
        text += " · waiting for " + ", ".join(f"@{p['alias']}" for p in pending)
    return {
        "uri": uri,
        "title": d.title,
        "phase": d.phase,
        "status": d.status,
        "consensus": result.summary,
        "reached": result.reached,
        "waiting_for": list(result.waiting_for),
        "pending": pending,
        "problems": counts,
        "text": text,
    }
