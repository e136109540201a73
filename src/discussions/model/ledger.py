"""The decision ledger: every ``DECISION:`` across a project's discussions, derived from the files.

TheRoundtAIble keeps a hand-written ``chronicle.md`` as the project's memory; here it is derived
instead, so it can never disagree with the discussions:

* `scan` / `collect` list the decisions of every discussion in a folder (by default the
  discussions folder, ``output.directory``), with the discussion's title, status and date.
* `render_chronicle` / `write_chronicle` turn them into a readable ``CHRONICLE.md``, rebuilt from
  scratch each time (never the source of truth; it has no discussion header, so no command takes
  it for a discussion).
* `settled_decisions` gives the decisions of discussions that are no longer open to the prompt
  of another discussion (``prompts.py``), through a per-process cache keyed by each file's size
  and modification time, so a turn with several participants reads the folder once.
* `write_adr` writes a numbered architecture decision record (Michael Nygard's form, numbered
  ``NNNN-slug.md`` like adr-tools) from one discussion.

Dates: the engine does not timestamp comments, so a decision's date is the ``Created`` header of
its discussion (empty when the header has none).

Speed: most files hold no decision. A file is parsed in full (`Discussion`, code-aware markers)
only when it is a discussion and a line in it starts like a ``DECISION:`` marker; a
``DECISION:`` inside a code block is then found not to be one by the real parser.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from .. import atomic
from ..derive import rules as derive
from ..derive.state import State
from ..errors import DiscussionExists, DiscussionNotFound, DiscussionsError
from ..settings.templates import OPEN_STATUSES
from ..syntax import parse as fmt
from ..syntax.markers import extract
from . import storage
from .discussion import Discussion, Item, slugify

if TYPE_CHECKING:
    from ..settings.workspace import Workspace

__all__ = [
    "CHRONICLE_NAME",
    "AdrRecord",
    "Ledger",
    "LedgerEntry",
    "Skipped",
    "collect",
    "is_settled",
    "render_chronicle",
    "scan",
    "settled_decisions",
    "write_adr",
    "write_chronicle",
]

CHRONICLE_NAME = "CHRONICLE.md"

# Statuses under which a discussion has settled nothing (yet). Any other status (DECIDED,
# ACCEPTED, CLOSED, REJECTED, APPROVED...) means its decisions stand. A template's initial
# status (the adr template starts PROPOSED) also counts as open.
_UNSETTLED = frozenset({*OPEN_STATUSES, "ABANDONED", "WITHDRAWN"})

# Mirrors the marker rule in `markers` (start of line, optional bullet / task box / bold) for
# the cheap pre-check; whether the line is really a marker (not in code) is left to the parser.
_DECISION_LINE = re.compile(
    r"^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)?(?:\*\*|__)?DECISION"
    r"(?:\*\*|__)?[ \t]*:",
    re.M,
)


@dataclass(slots=True, frozen=True)
class LedgerEntry:
    """One ``DECISION:`` line of one discussion."""

    text: str
    """The decision: the text after ``DECISION:``."""
    author: str
    """Author of the comment it is in."""
    file: Path
    """The discussion file (as found in the folder scanned)."""
    line: int
    """1-based line number of the ``DECISION:`` line in `file`."""
    title: str
    """The discussion's title."""
    status: str
    """The discussion's current status (``OPEN``, ``DECIDED``, ``ACCEPTED``...)."""
    date: str
    """The discussion's ``Created`` header as written (comments carry no timestamp), or ``""``."""
    settled: bool = False
    """Whether the discussion is no longer open, so its decisions stand (see `is_settled`)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "author": self.author,
            "file": str(self.file),
            "line": self.line,
            "title": self.title,
            "status": self.status,
            "date": self.date,
            "settled": self.settled,
        }


@dataclass(slots=True)
class Skipped:
    """A file in the folder that was not read as a discussion, and why."""

    file: Path
    """The file."""
    reason: str
    """One line: unreadable (and why), or not a discussion although it has ``DECISION:`` lines."""


@dataclass(slots=True)
class Ledger:
    """What `scan` found in one folder."""

    folder: Path
    """The folder scanned."""
    entries: list[LedgerEntry] = field(default_factory=list)
    """Decisions, sorted by date, then file, then line."""
    skipped: list[Skipped] = field(default_factory=list)
    """Files passed over that someone may have meant to be read."""
    files: int = 0
    """Discussion files read."""


def is_settled(status: str, initial_status: str = "OPEN") -> bool:
    """Whether a discussion with `status` no longer argues its decisions: any status but an
    open one (``OPEN``, ``PROPOSED``, ``DRAFT``, its template's initial status) or an
    abandoned one (``ABANDONED``, ``WITHDRAWN``)."""
    s = status.strip().upper()
    return bool(s) and s not in _UNSETTLED and s != initial_status.strip().upper()


# --------------------------------------------------------------------------- scanning


def _folder(workspace: Workspace, folder: Path | None) -> Path:
    return Path(folder) if folder is not None else workspace.config.output_directory


_Read = tuple[list[LedgerEntry], Skipped | None, bool]
"""What one file gave: its decisions, why it was skipped (if it was), whether it is a
discussion."""


def _candidates(folder: Path) -> list[Path]:
    """The ``*.md`` files of `folder` that may be discussions, by name."""
    out: list[Path] = []
    with os.scandir(folder) as it:
        for e in it:
            name = e.name
            if not name.endswith(".md") or storage.is_derived(Path(name)):
                continue
            if name.startswith("."):  # editor and temporary files
                continue
            out.append(folder / name)
    out.sort()
    return out


def _read_file(path: Path, workspace: Workspace) -> _Read:
    """(decisions, why skipped, whether it is a discussion) for one file."""
    try:
        text, _ = fmt.decode(storage.read_bytes(path))
    except DiscussionNotFound:
        return [], None, False  # gone meanwhile, or not a regular file
    except DiscussionsError as exc:
        return [], Skipped(path, str(exc)), False
    has_decision = "DECISION" in text and _DECISION_LINE.search(text) is not None
    if not fmt.is_discussion_text(text):
        reason = (
            "not a discussion (no `<!-- DISCUSSION -->` header and no comments); its DECISION: "
            "lines are left out"
        )
        return [], (Skipped(path, reason) if has_decision else None), False
    if not has_decision and "ROOT-CAUSE" not in text:  # a converged diagnosis is a decision
        return [], None, True
    title, status, initial, date, items = _decisions_of(text, path, workspace)
    settled = is_settled(status, initial)
    return [_entry(i, path, title, status, date, settled) for i in items], None, True


# The rules of `derive` that give a discussion's title and status; the comments rule (markers of
# every comment, the costly part) is replaced by `extract` on the comments with a DECISION line.
_HEAD_RULES = ("template", "header_phase", "engine_markers", "title")


def _decisions_of(
    text: str, path: Path, workspace: Workspace
) -> tuple[str, str, str, str, list[Item]]:
    """(title, status, the template's initial status, Created, decisions) of a discussion's
    text: what `Discussion` derives, by the same parser and rules, without extracting the
    markers of comments that cannot hold a decision."""
    doc = fmt.parse_document(text)
    state = State(doc=doc, workspace=workspace, path_stem=path.stem)
    rules = dict(derive.RULES)
    for name in _HEAD_RULES:
        rules[name](state)
    items: list[Item] = []
    for block in doc.comments:
        if "DECISION" not in block.body or not _DECISION_LINE.search(block.body):
            continue
        for m in extract(block.body, block.body_line).markers:
            if m.kind == "DECISION":
                items.append(Item(m.kind, m.text, block.author, m.line))
    if "ROOT-CAUSE" in text:  # diagnostic mode: a converged diagnosis is a decision
        items += _diagnosis_items(text, path, workspace)
    initial = state.template.status if state.template else "OPEN"
    return state.title, state.status, initial, doc.header.get("created", ""), items


def _diagnosis_items(text: str, path: Path, workspace: Workspace) -> list[Item]:
    from ..derive.diagnosis import decision_text

    diag = derive.derive(text, workspace, path.stem).diagnosis
    decided = decision_text(diag)
    if decided is None:
        return []
    first = next(c for c in diag.candidates if c.author == diag.supporters[0])
    return [Item("DECISION", decided, first.author, first.line)]


def _entry(
    item: Item, path: Path, title: str, status: str, date: str, settled: bool
) -> LedgerEntry:
    return LedgerEntry(item.text, item.author, path, item.line, title, status, date, settled)


def _sort_key(e: LedgerEntry) -> tuple[str, str, int]:
    return (e.date, e.file.name, e.line)


def scan(
    workspace: Workspace,
    folder: Path | None = None,
    status: str | None = None,
    *,
    cached: bool = False,
) -> Ledger:
    """Every decision in the discussions of `folder` (default: ``output.directory``), sorted by
    date, file and line; only those of discussions with `status` (any case) when given.

    ``*.sum.md`` summaries, the chronicle, hidden files and files that are not discussions are
    passed over; unreadable files, and non-discussions with ``DECISION:`` lines, are listed in
    `Ledger.skipped`. With `cached`, files unchanged since an earlier cached scan in this
    process (same size, modification time and inode) are not read again.
    Raises `DiscussionNotFound` when `folder` is not a folder."""
    where = _folder(workspace, folder)
    if not where.is_dir():
        raise DiscussionNotFound(f"no discussions folder at {where}")
    ledger = Ledger(where)
    try:
        paths = _candidates(where)
    except OSError as exc:
        raise DiscussionsError(f"cannot list {where}: {exc.strerror or exc}") from None
    absolute = where.absolute()
    wanted = status.strip().upper() if status else None
    for path in paths:
        if cached:
            entries, skipped, is_discussion = _CACHE.read(path, absolute / path.name, workspace)
        else:
            entries, skipped, is_discussion = _read_file(path, workspace)
        ledger.files += is_discussion
        if skipped is not None:
            ledger.skipped.append(skipped)
        ledger.entries.extend(e for e in entries if not wanted or e.status.upper() == wanted)
    ledger.entries.sort(key=_sort_key)
    return ledger


def collect(
    workspace: Workspace, folder: Path | None = None, status: str | None = None
) -> list[LedgerEntry]:
    """The decisions of `scan` (sorted by date, then file, then line)."""
    return scan(workspace, folder, status).entries


class _FileCache:
    """Per-process cache of what `_read_file` found in each file, checked against the file's
    size, modification time and inode (an append changes the size; an editor's save replaces
    the inode). Entries are frozen, so they are shared safely. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: dict[tuple[Path, Path], tuple[tuple[int, int, int], _Read]] = {}

    def read(self, path: Path, absolute: Path, workspace: Workspace) -> _Read:
        """`_read_file(path)`, from the cache when the file is unchanged (`absolute` is its
        absolute path: a relative `path` means another file once the current folder moves)."""
        try:
            st = os.stat(path)
        except OSError:
            return [], None, False
        key = (absolute, path)
        signature = (st.st_size, st.st_mtime_ns, st.st_ino)
        with self._lock:
            hit = self._files.get(key)
        if hit is not None and hit[0] == signature:
            entries, skipped, is_discussion = hit[1]
            return list(entries), skipped, is_discussion
        result = _read_file(path, workspace)
        with self._lock:
            if len(self._files) > 20_000:
                self._files.clear()
            self._files[key] = (signature, result)
        return list(result[0]), result[1], result[2]

    def clear(self) -> None:
        with self._lock:
            self._files.clear()


_CACHE = _FileCache()


# --------------------------------------------------------------------------- project memory


def settled_decisions(d: Discussion, folder: Path | None = None) -> list[LedgerEntry]:
    """Decisions of the other discussions in `folder` (default: ``output.directory``) that are
    no longer open, newest first: the project's memory for a prompt in `d`. Empty when the
    folder does not exist. Uses the per-process cache (see `scan`)."""
    try:
        ledger = scan(d.workspace, folder, cached=True)
    except DiscussionsError:
        return []
    own = _resolved(d.path)
    mine = own.parent == _resolved(ledger.folder)
    out = [e for e in ledger.entries if e.settled and not (mine and e.file.name == own.name)]
    out.sort(key=lambda e: (e.date, e.file.name, -e.line), reverse=True)
    return out


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path.absolute()


# --------------------------------------------------------------------------- chronicle


def _link(path: str) -> str:
    """A relative link target for markdown (spaces and brackets escaped)."""
    return quote(path, safe="/#-._~")


def _escape_link_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def render_chronicle(ledger: Ledger) -> str:
    """``CHRONICLE.md`` for `ledger`: its decisions grouped by discussion, newest discussion
    first, each linking to its line. Deterministic (no timestamp), so rebuilding it changes
    nothing unless a discussion changed."""
    lines = [
        "# Chronicle of decisions",
        "",
        "<!-- Generated by `discussions chronicle`; rebuild it any time. Do not edit. -->",
        "",
        "*Derived from the `DECISION:` lines of the discussions in this folder, and rebuilt by "
        "`discussions chronicle`: it is never the source of truth. To change a decision, change "
        "the discussion. Dates are when each discussion was created (comments carry no "
        "timestamp).*",
        "",
    ]
    groups = entries_by_file(ledger.entries)
    if not groups:
        lines += ["No decisions yet. Record one with a `DECISION:` line in a comment.", ""]
        return "\n".join(lines).rstrip("\n") + "\n"
    count = len(ledger.entries)
    lines += [
        f"{_count(count, 'decision')} in {_count(len(groups), 'discussion')}, "
        "newest discussion first.",
        "",
    ]
    order = sorted(groups, key=lambda p: (groups[p][0].date, p.name), reverse=True)
    for path in order:
        entries = sorted(groups[path], key=lambda e: e.line)
        first = entries[0]
        target = _relative(path, ledger.folder)
        lines += [f"## [{_escape_link_text(_one_line(first.title))}]({_link(target)})", ""]
        when = f"created {first.date[:10]}" if first.date else "no creation date"
        lines += [f"*{first.status} · {when}*", ""]
        for e in entries:
            lines.append(
                f"- {_one_line(e.text)} — {_one_line(e.author)} "
                f"([line {e.line}]({_link(target)}#L{e.line}))"
            )
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _relative(path: Path, start: Path) -> str:
    try:
        rel = os.path.relpath(_resolved(path), _resolved(start))
    except ValueError:  # another drive (Windows)
        rel = str(_resolved(path))
    return Path(rel).as_posix()


def write_chronicle(workspace: Workspace, folder: Path | None = None) -> tuple[Path, Ledger]:
    """(Re)write ``CHRONICLE.md`` in `folder` (default: ``output.directory``) atomically: a
    temporary file in the same folder replaces it, so a failure leaves the previous chronicle
    as it was. Returns its path and the ledger it was built from."""
    ledger = scan(workspace, folder)
    target = ledger.folder / CHRONICLE_NAME
    storage.target_of(target, workspace.config.base_dir)
    atomic.replace_file(target, render_chronicle(ledger), new_mode=0o644)
    return target, ledger


# --------------------------------------------------------------------------- ADR

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
        heading = fmt.first_heading(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        heading = None
    return heading or str(number)


def context_text(preamble: str) -> str:
    """The discussion's preamble as an ADR context: without the title heading, the template's
    placeholder lines (``[Requirement 1]``), its closing note (``*Discussion begins below*``),
    sections left empty, and the sections the record writes itself (Status, Decision,
    Consequences). Other headings move one level down, under ``## Context``."""
    lines = fmt.normalise_newlines(preamble).split("\n")
    kept: list[str] = []
    title_seen = False
    for raw in lines:
        h = _HEADING.match(raw)
        if h and len(h.group(1)) == 1 and not title_seen:
            title_seen = True
            continue
        if _PLACEHOLDER.match(raw) or _RULE.match(raw) or _ITALIC_NOTE.match(raw):
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


def render_adr(
    d: Discussion,
    number: int,
    record_folder: Path,
    today: str,
    supersedes: tuple[int, Path] | None = None,
) -> str:
    """The record's markdown (Nygard's form: title, date, status, context, decision,
    consequences) for discussion `d`."""
    title = _TITLE_PREFIX.sub("", _one_line(d.title)) or d.path.stem
    source = _relative(d.path, record_folder)
    lines = [f"# {number}. {title}", "", f"Date: {today}", "", "## Status", ""]
    lines.append(adr_status(d.status))
    if supersedes is not None:
        old_number, old_path = supersedes
        lines += [
            "",
            f"Supersedes [{_escape_link_text(_record_title(old_path, old_number))}]"
            f"({_link(old_path.name)})",
        ]
    lines += ["", "## Context", ""]
    context = context_text(fmt.parse_document(d.text).preamble)
    lines.append(context or "The discussion gives no context beyond its title.")
    lines += ["", "## Decision", ""]
    for item in d.decisions:
        lines.append(f"- {_one_line(item.text)} ({_one_line(item.author)})")
    lines += ["", "## Consequences", ""]
    concerns, todos = d.concerns, d.todos
    if not concerns and not todos:
        lines.append("None recorded in the discussion.")
    if concerns:
        lines += ["Risks and concerns raised:", ""]
        lines += [f"- {_one_line(i.text)} ({_one_line(i.author)})" for i in concerns]
        lines.append("")
    if todos:
        lines += ["Follow-up work:", ""]
        lines += [f"- {_one_line(i.text)} ({_one_line(i.author)})" for i in todos]
        lines.append("")
    lines += [
        "",
        f"Discussed in [{_escape_link_text(_one_line(d.title))}]({_link(source)}) "
        f"(status {d.status}, {_count(len(d.comments), 'comment')}).",
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
    title = _TITLE_PREFIX.sub("", _one_line(d.title)) or d.path.stem
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
            old[1], f"Superseded by [{number}. {_escape_link_text(title)}]({_link(path.name)})"
        )
    return AdrRecord(
        number, path, title, adr_status(d.status), len(decisions), old[1] if old else None
    )


def _mark_superseded(path: Path, line: str) -> None:
    """Add `line` at the end of `path`'s Status section (else at the end of the file)."""
    try:
        text = fmt.normalise_newlines(path.read_text(encoding="utf-8"))
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


def entries_by_file(entries: Iterable[LedgerEntry]) -> dict[Path, list[LedgerEntry]]:
    """`entries` grouped by discussion file, in the order first seen."""
    groups: dict[Path, list[LedgerEntry]] = {}
    for e in entries:
        groups.setdefault(e.file, []).append(e)
    return groups
