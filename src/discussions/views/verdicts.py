"""How the honest verdicts show (`model.verdicts`): the positions grid, the flips citing
nothing new and the debate delta, as status lines, JSON and HTML (a table drawn without
scripts, every text escaped)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..derive.positions import Positions
from ..model.discussion import Discussion
from ..model.verdicts import debate_delta

GRID_ROUNDS = 12
"""The rounds of each author's positions `status` shows, the latest (`status --json` has all)."""


def _worth_showing(p: Positions) -> bool:
    """Whether the grid says more than the votes do: someone took a second position, or the
    positions span more than one round."""
    return len(p.rounds) > 1 or len(p.stances) > len(p.grid)


def verdict_texts(d: Discussion) -> list[tuple[str, str]]:
    """(text, tone) lines for `status`: the debate delta, the positions by round, the flips
    citing nothing new."""
    out: list[tuple[str, str]] = []
    delta = debate_delta(d)
    if delta is not None:
        out += [("", ""), (delta.text(), "warning" if delta.changed else "")]
    p = d.positions
    if _worth_showing(p):
        out += [("", ""), ("Positions by round:", "")]
        out += [(f"  {line}", "") for line in p.grid_lines(last=GRID_ROUNDS)]
    unexplained = p.unexplained
    if unexplained:
        out += [("", ""), (f"Flips citing nothing new ({len(unexplained)}):", "warning")]
        out += [(f"  {f.text()}", "") for f in unexplained]
    return out


def verdict_data(d: Discussion) -> dict[str, Any]:
    """What `status --json` adds: ``positions`` (rounds, grid, flips) and
    ``debate_delta`` (None unless the phase is ``vote_first``)."""
    delta = debate_delta(d)
    return {
        "positions": d.positions.to_dict(),
        "debate_delta": delta.to_dict() if delta is not None else None,
    }


def _cell(value: str | None, flipped: bool, escape: Callable[[object], str]) -> str:
    if value is None:
        return "<td></td>"
    kind = value.lower() if value.isalpha() else "score"
    mark = ' class="flip" title="moved citing nothing new"' if flipped else ""
    return f'<td{mark}><span class="vote vote-{escape(kind)}">{escape(value)}</span></td>'


def positions_html(
    d: Discussion,
    section: Callable[[str, str, list[str]], str],
    escape: Callable[[object], str],
) -> str:
    """The panel's "Positions" section (made by `section`, every text through `escape`): a
    participant x round table (flips citing nothing new marked), the debate delta under it;
    empty when the grid adds nothing."""
    p = d.positions
    delta = debate_delta(d)
    if not _worth_showing(p) and delta is None:
        return ""
    round_at = {s.line: s.round for s in p.stances}
    flipped = {(f.author, round_at[f.line]) for f in p.unexplained if f.line in round_at}
    head = "".join(f"<th>R{r}</th>" for r in p.rounds)
    rows = [
        f"<tr><th>{escape(author)}</th>"
        + "".join(_cell(row.get(r), (author, r) in flipped, escape) for r in p.rounds)
        + "</tr>"
        for author, row in p.grid.items()
    ]
    table = f'<table class="positions"><tr><th></th>{head}</tr>{"".join(rows)}</table>'
    out = [f'<div class="positions-scroll">{table}</div>']  # scrolls within the panel
    if p.unexplained:
        items = "".join(f"<li>{escape(f.text())}</li>" for f in p.unexplained)
        out.append(f'<ul class="flips">{items}</ul>')
    if delta is not None:
        out.append(f'<p class="muted debate-delta">{escape(delta.text())}</p>')
    return section("positions", "Positions by round", out)
