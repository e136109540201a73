"""Resolving a discussion's citations before it is shown or counted (`git.grounding`): the
one call `status`, `check`, the web view and the servers make. git runs only for a file that
cites something, once per (commit, path)."""

from __future__ import annotations

from ..model.discussion import Discussion


def resolve(d: Discussion) -> Discussion:
    """`d` with its citations' verdicts set (`Discussion.grounding`); a file without
    citations loads no git code at all."""
    if d.grounding is None and any(c.citations for c in d.comments):
        from ..git.grounding import ground

        ground(d)
    return d
