"""Resolving a discussion's citations before it is shown or counted (`git.grounding`): the
one call `status`, `check`, the web view and the servers make. git runs only for a file that
cites something, once per (commit, path)."""

from __future__ import annotations

from ..derive.governs import governs_code
from ..model.discussion import Discussion


def resolve(d: Discussion) -> Discussion:
    """`d` with its citations' verdicts set (`Discussion.grounding`) and its decisions' drift
    (`Discussion.drift`, `ops.drift.drifted`); a file without citations, and without a
    decision that governs code, runs no git at all."""
    if d.grounding is None and any(c.citations for c in d.comments):
        from ..git.grounding import ground

        ground(d)
    if d.drift is None:
        d.drift = []
        if governs_code(d.decisions, d.applies):
            from .drift import drifted

            d.drift = [(x.line, x.note()) for x in drifted(d)]
    return d
