"""Architecture decision records: a numbered record (Michael Nygard's form, numbered
``NNNN-slug.md`` like adr-tools) written from one discussion's decisions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import atomic
from ..errors import DiscussionExists, DiscussionNotFound, DiscussionsError
from ..settings.templates import OPEN_STATUSES
from ..syntax.parse import first_heading, parse_document
from ..syntax.text import normalise_newlines, slugify
from . import storage
from .discussion import Discussion, Item
from .ledger import counted, link_target, link_text, one_line, relative_path

__all__ = [
    "AdrRecord",
    "adr_status",
    "context_text",
    "duplicate_numbers",
    "render_adr",
    "renumber_adr",
    "write_adr",
]

_ADR_NAME = re.compile(r"^(\d{4})-.*\.md$")
# A line that is only a template placeholder: ``[Requirement 1]``, ``- [ ] [Question 1]``,
# ``- Pros: ...``, ``[To be determined]``.
_PLACEHOLDER = re.compile(
    r"^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(?:\[[ xX]\][ \t]+)?"
    r"(?:\[[^\]\n]*\]|[^\s:]+:[ \t]*(?:\.\.\.|…)|\.\.\.|…)[ \t]*$"
)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_RULE = re.compile(r"^[ \t]*(?:-[ \t]*){3,}$|^[ \t]*(?:\*[ \t]*){3,}$|^[ \t]*(?:_[ \t]*){3,}$")
_ITALIC_NOTE = re.compile(r"^[ \t]*\*[^*\n].*\*[ \t]*$")
_HTML_COMMENT = re.compile(r"^[ \t]*<!--.*-->[ \t]*$")
"""A line that is only an HTML comment (an engine marker, a note): nothing a reader sees."""
_TITLE_PREFIX = re.compile(r"^(?:ADR|Architecture Decision(?: Record)?)\s*:\s*", re.I)
_GENERATED_SECTIONS = {"status", "decision", "consequences"}
_ACCEPTED = frozenset({"DECIDED", "ACCEPTED", "CLOSED", "APPROVED", "DONE", "RESOLVED"})


@dataclass(slots=True)
class AdrRecord:
    """An architecture decision record written by `write_adr`."""

    number: int
    """Its number (``0007-...`` is 7)."""
    path: Path
    """The record file."""
    title: str
    """Its title (the discussion's, without an ``ADR:`` prefix)."""
    status: str
    """``Accepted``, ``Proposed``, ``Rejected``... (from the discussion's status)."""
    decisions: int
    """How many decisions it records."""
    supersedes: Path | None = None
    """The record it supersedes (which now says so), if any."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "file": str(self.path),
            "title": self.title,
            "status": self.status,
            "decisions": self.decisions,
            "supersedes": str(self.supersedes) if self.supersedes else None,
        }


def adr_status(status: str) -> str:
    """The record's status for a discussion status: Accepted once decided (``DECIDED``,
    ``ACCEPTED``, ``CLOSED``...), Proposed while open, else the status in words."""
    s = status.strip().upper()
    if s in _ACCEPTED:
        return "Accepted"
    if not s or s in OPEN_STATUSES:
        return "Proposed"
    return s.replace("_", " ").capitalize()


def _records(folder: Path) -> dict[int, Path]:
    found: dict[int, Path] = {}
    if not folder.is_dir():
        return found
    for p in sorted(folder.iterdir()):
        m = _ADR_NAME.match(p.name)
        if m:
            found.setdefault(int(m.group(1)), p)
    return found


def _record_title(path: Path, number: int) -> str:
    """``3. Use JWT`` from a record's first heading (else its number)."""
    try:
        heading = first_heading(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        heading = None
    return heading or str(number)


def context_text(preamble: str) -> str:
    """The discussion's preamble as an ADR context: without the title heading, the template's
    placeholder lines (``[Requirement 1]``), its closing note (``*Discussion begins below*``),
    lines that are only an HTML comment (engine markers), sections left empty, and the
    sections the record writes itself (Status, Decision, Consequences). Other headings move
    one level down, under ``## Context``."""
    lines = normalise_newlines(preamble).split("\n")
    kept: list[str] = []
    title_seen = False
    for raw in lines:
        h = _HEADING.match(raw)
        if h and len(h.group(1)) == 1 and not title_seen:
            title_seen = True
            continue
        if any(p.match(raw) for p in (_PLACEHOLDER, _RULE, _ITALIC_NOTE, _HTML_COMMENT)):
            continue
        kept.append(raw.rstrip())
    # Split into sections by headings; drop the empty ones and the generated ones.
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    for raw in kept:
        h = _HEADING.match(raw)
        if h:
            sections.append((raw, []))
        else:
            sections[-1][1].append(raw)
    out: list[str] = []
    for heading, body in sections:
        text = "\n".join(body).strip("\n")
        if not text.strip():
            continue
        if heading is not None:
            h = _HEADING.match(heading)
            assert h is not None
            name = h.group(2).strip()
            if name.lower() in _GENERATED_SECTIONS:
                continue
            if name.lower() != "context":
                level = min(len(h.group(1)) + 1, 6)
                out += ["#" * level + " " + name, ""]
        out += [text, ""]
    return "\n".join(out).strip("\n")


def _proposal(text: str) -> str:
    """The preamble of a discussion's `text` up to its first engine block: a run's first
    ``ROUND`` block (its marker, its visible line) stands before the first comment."""
    doc = parse_document(text)
    start = doc.preamble_line
    cut = min((m.line for m in doc.engine_markers if m.line >= start), default=None)
    if cut is None:
        return doc.preamble
    return "\n".join(doc.preamble.split("\n")[: cut - start])


def _who(item: Item) -> str:
    """Who said an item, and who restated it (a restated item is one line)."""
    who = one_line(item.author)
    return f"{who}; {one_line(item.restaters)}" if item.restated else who


def render_adr(
    d: Discussion,
    number: int,
    record_folder: Path,
    today: str,
    supersedes: tuple[int, Path] | None = None,
) -> str:
    """The record's markdown (Nygard's form: title, date, status, context, decision,
    consequences) for discussion `d`."""
    title = _TITLE_PREFIX.sub("", one_line(d.title)) or d.path.stem
    source = relative_path(d.path, record_folder)
    lines = [f"# {number}. {title}", "", f"Date: {today}", "", "## Status", ""]
    lines.append(adr_status(d.status))
    dissent = d.dissent
    if dissent:
        lines += ["", dissent.headline()]
    if supersedes is not None:
        old_number, old_path = supersedes
        lines += [
            "",
            f"Supersedes [{link_text(_record_title(old_path, old_number))}]"
            f"({link_target(old_path.name)})",
        ]
    lines += ["", "## Context", ""]
    context = context_text(_proposal(d.text))
    lines.append(context or "The discussion gives no context beyond its title.")
    lines += ["", "## Decision", ""]
    for item in d.decisions:
        lines.append(f"- {one_line(item.text)} ({_who(item)})")
    lines += ["", "## Consequences", ""]
    concerns, todos = d.concerns, d.todos
    if not concerns and not todos and not dissent:
        lines.append("None recorded in the discussion.")
    if concerns:
        lines += ["Risks and concerns raised:", ""]
        lines += [f"- {one_line(i.text)} ({_who(i)})" for i in concerns]
        lines.append("")
    if todos:
        lines += ["Follow-up work:", ""]
        lines += [f"- {one_line(i.text)} ({_who(i)})" for i in todos]
        lines.append("")
    if dissent:
        lines += [
            "Minority report (the votes against at the end, the concerns never answered, the "
            "reservations of READY voters):"
        ]
        lines += ["", *dissent.lines(), ""]
    lines += [
        "",
        f"Discussed in [{link_text(one_line(d.title))}]({link_target(source)}) "
        f"(status {d.status}, {counted(len(d.comments), 'comment')}).",
    ]
    return "\n".join(lines).replace("\n\n\n", "\n\n").rstrip("\n") + "\n"


def write_adr(
    d: Discussion,
    folder: Path,
    supersedes: int | None = None,
    *,
    now: datetime | None = None,
) -> AdrRecord:
    """Write the next numbered record (``NNNN-slug.md``, one more than the highest in `folder`)
    for `d`, never over an existing file. With `supersedes`, record ``N`` must exist; it gets a
    ``Superseded by`` line in its Status section.

    Raises `DiscussionsError` when `d` has no decisions, `DiscussionNotFound` when record
    `supersedes` does not exist, `DiscussionExists` when the file appeared meanwhile."""
    decisions = d.decisions
    if not decisions:
        raise DiscussionsError(
            f"{d.path.name} has no decisions to record; add a `DECISION:` line to a comment "
            f'(`discussions comment {d.path.name} "DECISION: ..."`), then run adr again'
        )
    records = _records(folder)
    old: tuple[int, Path] | None = None
    if supersedes is not None:
        if supersedes not in records:
            raise DiscussionNotFound(
                f"no record {supersedes:04d} to supersede in {folder} "
                f"(records there: {', '.join(f'{n:04d}' for n in sorted(records)) or 'none'})"
            )
        old = (supersedes, records[supersedes])
    number = max(records, default=0) + 1
    today = (now or datetime.now(UTC)).strftime("%Y-%m-%d")
    title = _TITLE_PREFIX.sub("", one_line(d.title)) or d.path.stem
    path = folder / f"{number:04d}-{slugify(title)[:50].strip('-')}.md"
    text = render_adr(d, number, folder, today, old)
    if path.exists() or path.is_symlink():
        raise DiscussionExists(f"{path} already exists; it was not overwritten")
    try:
        storage.create(path, text, root=d.workspace.config.base_dir)
    except DiscussionExists:
        raise DiscussionExists(f"{path} already exists; it was not overwritten") from None
    if old is not None:
        _mark_superseded(
            old[1], f"Superseded by [{number}. {link_text(title)}]({link_target(path.name)})"
        )
    return AdrRecord(
        number, path, title, adr_status(d.status), len(decisions), old[1] if old else None
    )


def _mark_superseded(path: Path, line: str) -> None:
    """Add `line` at the end of `path`'s Status section (else at the end of the file)."""
    try:
        text = normalise_newlines(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise DiscussionsError(f"cannot update the superseded record {path}: {exc}") from None
    lines = text.split("\n")
    start = next(
        (i for i, raw in enumerate(lines) if re.match(r"^##[ \t]+Status\b", raw, re.I)), None
    )
    if start is None:
        new = text.rstrip("\n") + "\n\n" + line + "\n"
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].startswith("#")), len(lines)
        )
        last = end - 1
        while last > start and not lines[last].strip():
            last -= 1
        lines[last + 1 : last + 1] = ["", line]
        new = "\n".join(lines)
    atomic.replace_file(path, new, new_mode=0o644)


def duplicate_numbers(folder: Path) -> dict[int, list[Path]]:
    """Numbers more than one record in `folder` carries, with those records (by name). Two
    branches that each ran `adr` number their records from what their clone saw, and git
    merges two ``000N`` files without a word: `check` reports them (`renumber_adr` fixes)."""
    found: dict[int, list[Path]] = {}
    if folder.is_dir():
        for p in sorted(folder.iterdir()):
            m = _ADR_NAME.match(p.name)
            if m:
                found.setdefault(int(m.group(1)), []).append(p)
    return {n: paths for n, paths in found.items() if len(paths) > 1}


def renumber_adr(path: Path) -> tuple[int, Path]:
    """Give record `path` the next free number in its folder: the file renamed, its heading
    (``# N. Title``) and the links other records there have to it (Supersedes, Superseded
    by) changed to match. Returns the new number and path."""
    m = _ADR_NAME.match(path.name)
    if m is None or not path.is_file():
        raise DiscussionNotFound(f"{path} is not an architecture decision record (NNNN-title.md)")
    old = int(m.group(1))
    number = max(_records(path.parent), default=0) + 1
    new = path.with_name(f"{number:04d}{path.name[4:]}")
    if new.exists() or new.is_symlink():
        raise DiscussionExists(f"{new} already exists; nothing was renumbered")
    text = normalise_newlines(path.read_text(encoding="utf-8"))
    text = re.sub(rf"^# {old}\. ", f"# {number}. ", text, count=1, flags=re.M)
    atomic.replace_file(path, text, new_mode=0o644)
    path.rename(new)
    for other in path.parent.iterdir():
        if other != new and _ADR_NAME.match(other.name):
            _relink(other, path.name, new.name, old, number)
    return number, new


def _relink(record: Path, old_name: str, new_name: str, old: int, number: int) -> None:
    """Point `record`'s links to ``old_name`` (``[3. Title](0003-title.md)``) at the record's
    new name and number."""
    text = record.read_text(encoding="utf-8")
    pattern = re.compile(rf"\[{old}\. ([^\]\n]*)\]\({re.escape(link_target(old_name))}\)")
    changed = pattern.sub(lambda m: f"[{number}. {m.group(1)}]({link_target(new_name)})", text)
    if changed != text:
        atomic.replace_file(record, changed, new_mode=0o644)
