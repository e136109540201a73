"""What the screens show, computed without Textual (plain functions, easy to test)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import DiscussionsError
from ..model.catalog import Brief, brief, briefs, discussion_paths
from ..model.discussion import Discussion, Item
from ..model.filecache import Batch
from ..model.sections import pick
from ..model.storage import is_discussion_file
from ..settings.workspace import Workspace
from ..views.applies import applies_lines
from ..views.evidence import fold_evidence
from ..views.grounds import grounds_texts
from ..views.rendering import shown_time, visible_markdown
from ..views.status import sources_text


@dataclass(slots=True)
class Summary:
    """One row of the browser."""

    path: Path
    title: str
    phase: str
    status: str
    consensus: str
    questions: int
    mentions: int
    changed: float
    problem: str = ""

    def matches(self, text: str, status: str) -> bool:
        if status and self.status.upper() != status.upper():
            return False
        if not text:
            return True
        hay = f"{self.title} {self.path.name} {self.phase} {self.status}".lower()
        return all(word in hay for word in text.lower().split())


def consensus_text(d: Discussion) -> str:
    return d.consensus_result.summary


def summarise(path: Path, ws: Workspace, cache: Batch[Brief] | None = None) -> Summary | None:
    """The browser row for `path`; None when it is not a discussion. With `cache` (a
    `catalog.briefs` of its folder) what was derived before is not derived again."""
    if not is_discussion_file(path):
        return None
    if cache is None:
        with briefs(ws, path.parent) as own:
            return _summary(path, ws, own)
    return _summary(path, ws, cache)


def _summary(path: Path, ws: Workspace, cache: Batch[Brief]) -> Summary:
    try:
        changed = path.stat().st_mtime
        b = brief(cache, path, ws)
        return Summary(
            path,
            b.title,
            b.phase,
            b.status,
            b.consensus_summary,
            len(b.questions),
            b.mentions,
            changed,
        )
    except (DiscussionsError, OSError) as exc:
        return Summary(path, path.name, "?", "INVALID", "", 0, 0, 0.0, str(exc))


def discussion_files(folder: Path, ws: Workspace) -> list[Path]:
    return discussion_paths(ws, folder)


def ago(stamp: float, now: float | None = None) -> str:
    if not stamp:
        return "-"
    delta = max(0.0, (now or time.time()) - stamp)
    if delta < 90:
        return f"{int(delta)}s ago"
    if delta < 5400:
        return f"{int(delta // 60)}m ago"
    if delta < 36 * 3600:
        return f"{int(delta // 3600)}h ago"
    return time.strftime("%Y-%m-%d", time.localtime(stamp))


def comments_markdown(d: Discussion) -> str:
    """The comments as one markdown document: a heading per comment with author, vote,
    provider and when it was written. Read with `rendering.comment_parser` (line breaks kept,
    so every marker line shows)."""
    parts: list[str] = []
    if not d.comments:
        parts.append("*No comments yet. Press `c` to write one or `t` to run a turn.*")
    for c in d.comments:
        head = f"### {c.author}"
        if c.vote:
            head += f" — VOTE: {c.vote}"
        provider = c.meta.get("provider") if c.meta else None
        notes = [f"via {provider}"] if provider else []
        if c.at is not None:
            notes.append(shown_time(c.at))
        if notes:
            head += f"  *({' · '.join(notes)})*"
        parts += [head, "", visible_markdown(fold_evidence(c.body)).strip(), "", "---", ""]
    return "\n".join(parts)


def side_panel(d: Discussion) -> str:
    """Phase, votes, consensus, questions, decisions, TODOs, concerns, mentions, warnings."""
    lines: list[str] = []
    info = d.phase_info
    lines.append(f"[b]Phase[/b] {d.phase}" + (f" — {info.title}" if info else ""))
    lines.append(f"[b]Status[/b] {d.status}")
    if info and info.instructions.strip():
        lines += ["", escape(info.instructions.strip())]
    votes = d.votes
    lines += ["", "[b]Votes[/b]"]
    lines += [_vote_line(d, who, vote) for who, vote in votes.items()] or ["  none yet"]
    said = sources_text(d)
    if said:
        lines.append(f"  [dim]sources: {escape(said)}[/dim]")
    c = d.consensus_result
    lines += ["", f"[b]Consensus[/b] {consensus_text(d)}"]
    if c.reason:
        lines.append(f"  {escape(c.reason)}")
    if c.waiting_for:
        lines.append("  waiting for: " + escape(", ".join(c.waiting_for)))
    grounds = grounds_texts(d)  # what each vote rests on, when the file cites the code
    if grounds:
        lines += ["", "[b]Grounds[/b]", *(f"  {escape(text.strip())}" for text, _ in grounds[1:])]
    if c.abstained or c.excluded:
        how = "abstaining" if c.abstained else "left out"
        lines.append(f"  failed seats ({how}): " + escape(", ".join(c.abstained or c.excluded)))
    for section in pick("questions", "decisions", "todos", "concerns"):
        items = d.items_of(section)
        if items:
            lines += ["", f"[b]{section.heading}[/b] ({len(items)})"]
            lines += [f"  • {escape(i.text)} [dim]({escape(_who(i))})[/dim]" for i in items]
    dissent = d.dissent
    if d.decisions and dissent:  # the minority report (`derive.minority`)
        lines += ["", "[b]Minority report[/b]", f"  {escape(dissent.headline())}"]
        lines += [f"  • {escape(text.removeprefix('- '))}" for text in dissent.lines()]
    evidence = d.evidence
    if evidence:
        lines += ["", f"[b]Evidence[/b] ({len(evidence)}; [dim]v shows it[/dim])"]
        lines += [
            f"  {e.number or '-'} {escape(e.request)} [dim]({escape(e.by)}, {e.status})[/dim]"
            for e in evidence
        ]
    if d.applies:
        lines += ["", f"[b]Applies[/b] ({len(d.applies)})"]
        lines += [f"  {escape(text)}" for text in applies_lines(d)]
    mentions = d.pending_mentions
    if mentions:
        lines += ["", f"[b]Pending mentions[/b] ({len(mentions)})"]
        lines += [f"  @{escape(m.alias)} by {escape(m.by)}" for m in mentions]
    warnings = d.warnings
    if warnings:
        lines += ["", f"[b]Warnings[/b] ({len(warnings)})"]
        lines += [f"  line {w.line}: {escape(w.message)}" for w in warnings]
    return "\n".join(lines)


def _vote_line(d: Discussion, who: str, vote: str) -> str:
    """``  AI-Ada: READY (claude, model m, confidence 7)``: a vote and where it comes from."""
    source = d.vote_sources.get(who)
    label = source.label() if source is not None else ""
    return f"  {escape(who)}: {vote}" + (f" [dim]({escape(label)})[/dim]" if label else "")


def _who(item: Item) -> str:
    """Who said an item, and who restated it (a restated item is one line)."""
    return f"{item.author}; {item.restaters}" if item.restated else item.author


def escape(text: str) -> str:
    """`text` shown as it is in Textual markup: an opening bracket is not a style tag."""
    return text.replace("[", "\\[")
