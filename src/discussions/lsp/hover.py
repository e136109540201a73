"""Hover: the tally on a ``VOTE:`` line, the persona behind a mention, what an engine line
records."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lsprotocol import types

from ..syntax.document import ENGINE_LINE
from ..syntax.kinds import ENGINE_BY_KIND

if TYPE_CHECKING:
    from .buffer import Buffer

_VOTE_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*)?VOTE(?:\*\*)?\s*:")
_MENTION = re.compile(r"(?<![\w@./\\:`-])@([^\W\d_][\w-]*)")


def hover(b: Buffer, line: int, character: int) -> types.Hover | None:
    """What to show for 0-based (`line`, `character`), or None."""
    text = b.line(line + 1)
    engine = ENGINE_LINE.match(text)
    if engine:
        says = ENGINE_BY_KIND[engine.group(1).lower()].says
        return _markdown(says.format(args=engine.group(2).strip()))
    for m in _MENTION.finditer(text):
        if m.start() <= character <= m.end():
            return _markdown(_mention(b, m.group(1).rstrip("-_").lower()))
    if _VOTE_LINE.match(text):
        return _markdown(_tally(b))
    return None


def _tally(b: Buffer) -> str:
    d = b.discussion
    result = d.consensus_result
    counts = ", ".join(f"{v}: {n}" for v, n in result.counts.items()) or "no votes yet"
    lines = [f"**Votes in phase {d.phase}**: {counts}", "", f"Consensus: {result.summary}"]
    if result.reason:
        lines[-1] += f" ({result.reason})"
    for voter, vote in d.votes.items():
        lines.append(f"- {voter}: {vote}")
    if result.waiting_for:
        lines += ["", "Waiting for: " + ", ".join(result.waiting_for)]
    return "\n".join(lines)


def _mention(b: Buffer, alias: str) -> str:
    d = b.discussion
    registry = d.workspace.participants
    pending = {p.alias for p in d.pending_mentions}
    answered = "waiting for an answer" if alias in pending else "has answered (or was not asked)"
    if alias in registry:
        p = registry.get(alias)
        role = f" · {p.role}" if p.role else ""
        return f"**{p.name}** (@{p.alias}){role}\n\n{p.type} participant; {answered}"
    typo = next((close for target, close, _ in d.mention_typos if target == alias), None)
    if typo:
        return f"@{alias} matches no participant; did you mean @{typo}?"
    return f"@{alias}: a person (no persona file); {answered}"


def _markdown(text: str) -> types.Hover:
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text))
