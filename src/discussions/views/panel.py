"""The side panel of a discussion's page (the export and the live view): phase, status, votes
and consensus, positions, the minority report, the item sections, pending mentions, warnings;
each item links to the comment it came from."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from ..derive.state import Comment, Item
from ..model.discussion import Discussion
from ..model.sections import BY_KEY, SECTIONS
from .markup import css_class, esc, section, vote_badge
from .status import sources_text
from .verdicts import positions_html


class Anchors:
    """The comment a line belongs to, as a fragment: items link to their comment. A comment
    before line `shown_from` is not on the page: its link goes to `elsewhere` (the page with
    every comment) and the fragment."""

    def __init__(
        self, comments: Sequence[Comment], shown_from: int = 0, elsewhere: str = ""
    ) -> None:
        self._lines = [c.line for c in comments]
        self._shown_from = shown_from
        self._elsewhere = elsewhere

    def __call__(self, line: int) -> str:
        i = bisect.bisect_right(self._lines, line) - 1
        if i < 0:
            return "#preamble"
        target = self._lines[i]
        return f"{self._elsewhere if target < self._shown_from else ''}#L{target}"


_TODO_GROUP = ("todos", "assigned", "done")
"""Sections the panel shows together, under the TODOs heading."""


def _item_sections(d: Discussion, anchor: Anchors) -> list[str]:
    """The panel's item sections (`sections.SECTIONS`): each one that has items, with the
    TODOs, assigned and done items as groups of one section; a decision whose governed code
    changed since it carries its drift note (`Discussion.drift`)."""
    drift = dict(d.drift or ())
    parts: list[str] = []
    groups: list[str] = []
    for s in SECTIONS:
        items = d.items_of(s)
        if s.key in _TODO_GROUP:
            if items:
                groups.append(
                    f"<h3>{esc(s.heading)} ({len(items)})</h3>{_item_list(items, anchor)}"
                )
            if s.key == _TODO_GROUP[-1] and groups:
                parts.append(section("todos", BY_KEY["todos"].heading, groups))
        elif items:
            shown = _item_list(items, anchor, drift if s.key == "decisions" else {})
            parts.append(section(s.key, f"{s.heading} ({len(items)})", [shown]))
    return parts


def _item_list(items: Sequence[Item], anchor: Anchors, drift: dict[int, str] | None = None) -> str:
    notes = drift or {}
    rows = (
        f'<li data-line="{i.line}"><a href="{anchor(i.line)}">{esc(i.text)}</a> '
        f'<span class="by">— {esc(i.author)}{esc("; " + i.restaters if i.restated else "")}'
        f"</span>{_drift_note(notes.get(i.line))}</li>"
        for i in items
    )
    return f"<ul>{''.join(rows)}</ul>"


def _drift_note(note: str | None) -> str:
    """A decision's drift (`ops.drift`), under it: what changed its governed code since."""
    return f'<p class="drift">{esc(note)}</p>' if note else ""


def _votes_section(d: Discussion, anchor: Anchors) -> str:
    result = d.consensus_result
    out: list[str] = []
    scored = d.consensus_mode == "score"
    values: dict[str, Any] = dict(d.scores) if scored else dict(d.votes)
    if values:
        latest = {c.author: c.line for c in d.comments if scored or c.vote}
        sources = {} if scored else d.vote_sources
        rows = (
            f'<tr><td><a href="{anchor(latest.get(who, 0))}">{esc(who)}</a></td>'
            f"<td>{vote_badge(v) if isinstance(v, str) else esc(v)}</td>"
            f'<td class="by">{esc(sources[who].label() if who in sources else "")}</td></tr>'
            for who, v in values.items()
        )
        out.append(f'<table class="votes">{"".join(rows)}</table>')
    else:
        out.append('<p class="muted">No votes yet.</p>')
    if said := ("" if scored else sources_text(d)):
        out.append(f'<p class="sources">Sources: {esc(said)}</p>')
    reached = "reached" if result.reached else "not reached"
    out.append(
        f'<p id="consensus" class="consensus consensus-{reached.replace(" ", "-")}">'
        f"Consensus {reached}: {esc(result.reason)}</p>"
    )
    for label, names in (
        ("Blocking", result.blocked_by),
        ("Waiting for", result.waiting_for),
        ("Failed seats, abstaining", result.abstained),
        ("Failed seats, left out", result.excluded),
    ):
        if names:
            out.append(f'<p class="muted">{label}: {esc(", ".join(names))}</p>')
    return section("votes", "Votes", out)


def panel_html(d: Discussion, shown_from: int = 0, elsewhere: str = "") -> str:
    """The side panel's inner HTML: phase, status, votes and consensus, then whichever of
    questions, decisions, TODOs, concerns, pending mentions and warnings the file has. Links
    to comments before line `shown_from` (not on the page) go to the page `elsewhere`."""
    anchor = Anchors(d.comments, shown_from, elsewhere)
    info = d.phase_info
    phase = f"<strong>{esc(d.phase)}</strong>" + (f" — {esc(info.title)}" if info else "")
    status = f'<span class="status status-{css_class(d.status)}">{esc(d.status)}</span>'
    parts = [
        section("phase", "Phase", [f"<p>{phase}</p>"]),
        section("status", "Status", [f"<p>{status}</p>"]),
        _votes_section(d, anchor),
        positions_html(d, section, esc),
    ]
    parts += _dissent_section(d, anchor)
    parts += _item_sections(d, anchor)
    pending = d.pending_mentions
    if pending:
        rows = (
            f'<li><a href="{anchor(p.line)}">@{esc(p.alias)}</a> '
            f'<span class="by">mentioned by {esc(p.by)}</span></li>'
            for p in pending
        )
        parts.append(section("mentions", "Waiting for", [f"<ul>{''.join(rows)}</ul>"]))
    warnings = d.warnings
    if warnings:
        rows = (
            f'<li><a href="{anchor(w.line)}">line {w.line}</a>: {esc(w.message)}</li>'
            if w.line
            else f"<li>{esc(w.message)}</li>"
            for w in warnings
        )
        parts.append(
            section("warnings", f"Warnings ({len(warnings)})", [f"<ul>{''.join(rows)}</ul>"])
        )
    return "".join(parts)


def dissent_line(d: Discussion) -> list[str]:
    """The header's line saying a decision was recorded over dissent (`Dissent.headline`)."""
    if not d.decisions or not (dissent := d.dissent):
        return []
    return [f'<p id="dissent" class="dissent">{esc(dissent.headline())}</p>']


def _dissent_section(d: Discussion, anchor: Anchors) -> list[str]:
    """The panel's minority report: the votes against, their last reason, concerns unanswered."""
    if not d.decisions or not (dissent := d.dissent):
        return []
    rows = [
        f'<li><a href="{anchor(v.line)}">{esc(v.name)}</a> {vote_badge(v.vote)} '
        f'<span class="by">{esc(v.reason)}</span></li>'
        for v in dissent.votes
    ]
    rows += [
        f'<li data-line="{c.line}"><a href="{anchor(c.line)}">{esc(c.text)}</a> '
        f'<span class="by">— {esc(c.by)}, never answered</span></li>'
        for c in dissent.concerns
    ]
    rows += [
        f'<li class="reservation" data-line="{c.line}"><a href="{anchor(c.line)}">'
        f'{esc(c.text)}</a> <span class="by">— {esc(c.by)}, a reservation beside READY</span></li>'
        for c in dissent.reservations
    ]
    return [section("dissent", "Minority report", [f"<ul>{''.join(rows)}</ul>"])]
