"""The decision ledger: every ``DECISION:`` across a project's discussions, derived from the files.

TheRoundtAIble keeps a hand-written ``chronicle.md`` as the project's memory; here it is derived
instead, so it can never disagree with the discussions:

* `scan` / `collect` list the decisions of every discussion in a folder (by default the
  discussions folder, ``output.directory``), with the discussion's title, status and date.
* `settled_decisions` gives the decisions of discussions that are no longer open to the prompt
  of another discussion (``prompts.py``), through a per-process cache keyed by each file's size
  and modification time, so a turn with several participants reads the folder once.
* `link_target`, `link_text`, `one_line`, `relative_path`: how a decision is shown in the
  markdown built from it, ``CHRONICLE.md`` (`chronicle`) and the decision records (`adr`).

Dates: a decision's `date` is the ``Created`` header of its discussion (empty when the header
has none), which orders the ledger; `written` is when its comment was written (the comment's
``at:`` metadata), empty for a comment that does not say (typed by hand, or older).

Speed: most files hold no decision. A file is parsed in full (`Discussion`, code-aware markers)
only when it is a discussion and a line in it starts like a ``DECISION:`` marker; a
``DECISION:`` inside a code block is then found not to be one by the real parser.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..derive import rules as derive
from ..derive.diagnosis import decision_text
from ..derive.dissent import Dissent
from ..derive.restatements import collapse
from ..derive.state import Restatement, State, Written
from ..errors import DiscussionNotFound, DiscussionsError
from ..settings.templates import OPEN_STATUSES
from ..syntax.clock import utc_stamp
from ..syntax.document import Document
from ..syntax.lazyre import Lazy
from ..syntax.parse import is_discussion_text, parse_document
from ..syntax.record import FrozenRecord, Record
from ..syntax.text import decode
from . import storage
from .catalog import check_status
from .discussion import Discussion, Item
from .filecache import Batch, Shelf, signature
from .folder import discussion_candidates, resolved

if TYPE_CHECKING:
    from ..derive.applies import Apply, Implementation
    from ..derive.retrials import Retrial
    from ..settings.workspace import Workspace

__all__ = [
    "Ledger",
    "LedgerEntry",
    "Skipped",
    "collect",
    "counted",
    "entries_by_file",
    "file_decisions",
    "is_settled",
    "link_target",
    "link_text",
    "one_line",
    "relative_path",
    "scan",
    "settled_decisions",
]

# Statuses under which a discussion has settled nothing (yet). Any other status (DECIDED,
# ACCEPTED, CLOSED, REJECTED, APPROVED...) means its decisions stand. A template's initial
# status (the adr template starts PROPOSED) also counts as open.
_UNSETTLED = frozenset({*OPEN_STATUSES, "ABANDONED", "WITHDRAWN"})

# Mirrors the marker rule in `markers` (start of line, optional bullet / task box / bold) for
# the cheap pre-check; whether the line is really a marker (not in code) is left to the parser.
_DECISION_LINE = Lazy(
    r"^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)?(?:\*\*|__)?DECISION"
    r"(?:\*\*|__)?[ \t]*:",
    re.M,
)


_COMPARED = 12
"""`LedgerEntry` fields compared (all but the dissent and the re-trials)."""
_HASHED = 11
"""`LedgerEntry` fields hashed (and not the details, a dictionary, either)."""


class LedgerEntry(FrozenRecord):
    """One ``DECISION:`` line of one discussion. (A `FrozenRecord`, as the frozen dataclass it
    was: every turn's prompts scan the folder's decisions before the first call, and making a
    frozen dataclass costs ~0.45 ms. Equal by every field but `dissent` and `retrials`;
    hashed by those and `details` left out.)"""

    __slots__ = (
        "text",
        "author",
        "file",
        "line",
        "title",
        "status",
        "date",
        "settled",
        "implemented_by",
        "written",
        "restated",
        "details",
        "dissent",
        "retrials",
    )
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
    """The discussion's ``Created`` header as written, or ``""``."""
    settled: bool
    """Whether the discussion is no longer open, so its decisions stand (see `is_settled`)."""
    implemented_by: tuple[Implementation, ...]
    """For a settled decision: the committed applies written after it (`applies`)."""
    written: str
    """When its comment was written (``2026-11-23T10:00:00Z``, the comment's ``at:``), or
    ``""`` when the comment does not say."""
    restated: tuple[Restatement, ...]
    """Where the discussion said the same decision again (`restatements.collapse`)."""
    details: dict[str, list[str]]
    """What rules attached to the decision (`Item.details`: the paths it governs)."""
    dissent: Dissent
    """The discussion's minority report (`derive.dissent`): who stood against it at the end,
    and the concerns nobody answered."""
    retrials: tuple[Retrial, ...]
    """The discussion's re-trials (`derive.retrials`): its first ballot asked again of other
    providers, and the votes that would flip."""

    def __init__(
        self,
        text: str,
        author: str,
        file: Path,
        line: int,
        title: str,
        status: str,
        date: str,
        settled: bool = False,
        implemented_by: tuple[Implementation, ...] = (),
        written: str = "",
        restated: tuple[Restatement, ...] = (),
        details: dict[str, list[str]] | None = None,
        dissent: Dissent | None = None,
        retrials: tuple[Retrial, ...] = (),
    ) -> None:
        self._init(
            text,
            author,
            file,
            line,
            title,
            status,
            date,
            settled,
            implemented_by,
            written,
            restated,
            {} if details is None else details,
            Dissent() if dissent is None else dissent,
            retrials,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LedgerEntry) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields()[:_COMPARED] == other._fields()[:_COMPARED]

    def __hash__(self) -> int:  # type: ignore[override]  # as FrozenRecord's
        return hash(self._fields()[:_HASHED])

    def replaced(self, **changes: Any) -> LedgerEntry:
        """This entry with `changes` (fields by name), as `dataclasses.replace` made one."""
        return LedgerEntry(**{**{n: getattr(self, n) for n in self.__slots__}, **changes})

    @property
    def flipped(self) -> bool:
        """Whether a re-trial of the discussion found a vote that would flip."""
        return any(r.flips for r in self.retrials)

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
            "implemented_by": [i.to_dict() for i in self.implemented_by],
            "written": self.written,
            **({"restated": [r.to_dict() for r in self.restated]} if self.restated else {}),
            **self.details,
            "dissent": self.dissent.to_dict(),
            **({"retrials": [r.to_dict() for r in self.retrials]} if self.retrials else {}),
        }


class Skipped(Record):
    """A file in the folder that was not read as a discussion, and why. (This and `Ledger` are
    slotted `Record`s: every turn's prompts scan the folder, and making a dataclass before the
    first call costs ~0.3 ms.)"""

    __slots__ = ("file", "reason")
    file: Path
    """The file."""
    reason: str
    """One line: unreadable (and why), or not a discussion although it has ``DECISION:`` lines."""

    def __init__(self, file: Path, reason: str) -> None:
        self.file = file
        self.reason = reason


class Ledger(Record):
    """What `scan` found in one folder."""

    __slots__ = ("folder", "entries", "skipped", "files")
    folder: Path
    """The folder scanned."""
    entries: list[LedgerEntry]
    """Decisions, sorted by date, then file, then line."""
    skipped: list[Skipped]
    """Files passed over that someone may have meant to be read."""
    files: int
    """Discussion files read."""

    def __init__(
        self,
        folder: Path,
        entries: list[LedgerEntry] | None = None,
        skipped: list[Skipped] | None = None,
        files: int = 0,
    ) -> None:
        self.folder = folder
        self.entries = [] if entries is None else entries
        self.skipped = [] if skipped is None else skipped
        self.files = files


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


def _read_file(path: Path, workspace: Workspace) -> _Read:
    """(decisions, why skipped, whether it is a discussion) for one file."""
    try:
        text, _ = decode(storage.read_bytes(path))
    except DiscussionNotFound:
        return [], None, False  # gone meanwhile, or not a regular file
    except DiscussionsError as exc:
        return [], Skipped(path, str(exc)), False
    has_decision = "DECISION" in text and _DECISION_LINE.search(text) is not None
    if not is_discussion_text(text):
        reason = (
            "not a discussion (no `<!-- DISCUSSION -->` header and no comments); its DECISION: "
            "lines are left out"
        )
        return [], (Skipped(path, reason) if has_decision else None), False
    if not has_decision and "ROOT-CAUSE" not in text:  # a converged diagnosis is a decision
        return [], None, True
    title, status, initial, date, items, applies, dissent = _decisions_of(text, path, workspace)
    settled = is_settled(status, initial)
    entries = [_entry(i, path, title, status, date, settled, dissent) for i in items]
    if settled and applies:
        from ..derive.applies import implemented_by

        entries = [e.replaced(implemented_by=implemented_by(applies, e.line)) for e in entries]
    if "<!-- RETRIAL" in text:
        retrials = _retrials_of(text)
        entries = [e.replaced(retrials=retrials) for e in entries]
    return entries, None, True


def _retrials_of(text: str) -> tuple[Retrial, ...]:
    """The ``RETRIAL`` blocks of a discussion's text, as `derive.retrials` reads them."""
    from ..derive.retrials import RETRIAL, read_retrial

    blocks = [m for m in parse_document(text).engine_markers if m.kind == RETRIAL]
    found = [read_retrial(m.target, m.line)[0] for m in blocks]
    return tuple(r for r in found if r.provider and r.votes)


# The rules of `derive` that give a discussion's title and status; the comments rule (markers of
# every comment, the costly part) is replaced by `extract` on the comments with a DECISION line.
_HEAD_RULES = ("template", "header_phase", "engine_markers", "title")


# The rules the minority report rests on (`derive.minority`): votes since the last reset,
# motions and their ballots, the concerns with their restatements folded.
_DISSENT_RULES = (
    "template",
    "header_phase",
    "engine_markers",
    "participants",
    "comments",
    "votes",
    "motions",
    "restatements",
    "dissent",
)
# A file holding none of these words has no dissent (no vote or ballot against, no concern).
_DISSENT_WORDS = Lazy(r"CHANGES|REJECT|CONCERN|BALLOT")


def _decisions_of(
    text: str, path: Path, workspace: Workspace
) -> tuple[str, str, str, str, list[Item], list[Apply], Dissent]:
    """(title, status, the template's initial status, Created, decisions, applies, minority
    report) of a discussion's text: what `Discussion` derives, by the same parser and rules,
    without extracting the markers of comments that cannot hold a decision (but for the
    minority report, which reads every comment: only where dissent can be)."""
    doc = parse_document(text)
    dissent = _dissent_of(doc, text, path, workspace)
    state = State(doc=doc, workspace=workspace, path_stem=path.stem, text=text)
    rules = dict(derive.RULES)
    for name in _HEAD_RULES:
        rules[name](state)
    items: list[Item] = _written_decisions(state)
    if "ROOT-CAUSE" in text:  # diagnostic mode: a converged diagnosis is a decision
        items += _diagnosis_items(text, path, workspace)
    items = collapse(items)  # restated decisions are one, as `derive` gives them
    if "<!-- APPLY" in text:
        from ..derive.applies import rule_applies

        rule_applies(state)
    initial = state.template.status if state.template else "OPEN"
    created = doc.header.get("created", "")
    return state.title, state.status, initial, created, items, state.applies, dissent


def _dissent_of(doc: Document, text: str, path: Path, workspace: Workspace) -> Dissent:
    """The minority report of the discussion parsed as `doc` (`Discussion.dissent`), by the
    rules it rests on; empty without a word that dissent is written with."""
    if not _DISSENT_WORDS.search(text):
        return Dissent()
    state = State(doc=doc, workspace=workspace, path_stem=path.stem, text=text)
    rules = dict(derive.RULES)
    for name in _DISSENT_RULES:
        rules[name](state)
    return state.dissent


def _written_decisions(state: State) -> list[Item]:
    """The decisions of `state`'s comments, as `derive` makes them (the comments rule, then
    `rules.ITEM_RULES`; a forged comment's count for nothing), with when each was written.
    Only the comments holding a ``DECISION:`` line are read: the parse (the ledger's own)
    keeps only those."""
    doc = state.doc
    doc.comments = [
        b for b in doc.comments if "DECISION" in b.body and _DECISION_LINE.search(b.body)
    ]
    derive.rule_comments(state)
    for _name, rule in derive.ITEM_RULES:
        rule(state)
    starts = [c.line for c in state.comments]
    written: list[Item] = []
    for i in state.items["DECISION"]:
        c = state.comments[bisect_right(starts, i.line) - 1]
        when = utc_stamp(c.at) if c.at else ""
        written.append(Written(i.kind, i.text, i.author, i.line, [], i.details, when))
    return written


def _diagnosis_items(text: str, path: Path, workspace: Workspace) -> list[Item]:
    diag = derive.derive(text, workspace, path.stem).diagnosis
    decided = decision_text(diag)
    if decided is None:
        return []
    first = next(c for c in diag.candidates if c.author == diag.supporters[0])
    return [Item("DECISION", decided, first.author, first.line)]


def _entry(
    item: Item, path: Path, title: str, status: str, date: str, settled: bool, dissent: Dissent
) -> LedgerEntry:
    written = item.written if isinstance(item, Written) else ""
    return LedgerEntry(
        item.text,
        item.author,
        path,
        item.line,
        title,
        status,
        date,
        settled,
        written=written,
        restated=tuple(item.restated),
        details=item.details,
        dissent=dissent,
    )


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
    `Ledger.skipped`. Files unchanged since an earlier scan (same size, modification time
    and inode), in this process or a command before, are not read again (`filecache`);
    `cached` is kept for callers that asked for that, which every scan now does.
    Raises `DiscussionNotFound` when `folder` is not a folder, `PhaseError` when `status`
    matched nothing and is no known status (`catalog.check_status`)."""
    where = _folder(workspace, folder)
    if not where.is_dir():
        raise DiscussionNotFound(f"no discussions folder at {where}")
    ledger = Ledger(where)
    try:
        paths = discussion_candidates(where)
    except OSError as exc:
        raise DiscussionsError(f"cannot list {where}: {exc.strerror or exc}") from None
    wanted = status.strip().upper() if status else None
    with _CACHE.batch(workspace, where) as batch:
        for path in paths:
            entries, skipped, is_discussion = _CACHE.read(batch, path, workspace)
            ledger.files += is_discussion
            if skipped is not None:
                ledger.skipped.append(skipped)
            ledger.entries.extend(e for e in entries if not wanted or e.status.upper() == wanted)
    if status and not ledger.entries:
        check_status(status, workspace, set())  # nothing found: a misspelt status says so
    ledger.entries.sort(key=_sort_key)
    return ledger


def file_decisions(path: Path, workspace: Workspace) -> list[LedgerEntry]:
    """The decisions of the one discussion at `path`, as `scan` gives them (nothing when it is
    not a discussion or cannot be read)."""
    return _read_file(path, workspace)[0]


def collect(
    workspace: Workspace, folder: Path | None = None, status: str | None = None
) -> list[LedgerEntry]:
    """The decisions of `scan` (sorted by date, then file, then line)."""
    return scan(workspace, folder, status).entries


class _FileCache(Shelf[_Read]):
    """What `_read_file` found in each file, in the shared cache of derived summaries
    (`filecache`: checked against each file's size, modification time and inode, and the
    context it was derived in; kept on disk between commands). Entries are frozen, so they
    are shared safely. Thread-safe."""

    def __init__(self) -> None:
        super().__init__("decisions")

    def read(self, batch: Batch[_Read], path: Path, workspace: Workspace) -> _Read:
        """`_read_file(path)`, from the cache when the file is unchanged, naming the file as
        `path` does (the cache knows it by its absolute path)."""
        if signature(path) is None:  # gone, or a link to nowhere: nothing to keep
            return _read_file(path, workspace)
        entries, skipped, is_discussion = batch.get(path, lambda p: _read_file(p, workspace))
        if skipped is not None and skipped.file != path:
            skipped = Skipped(path, skipped.reason)
        return (
            [e if e.file == path else e.replaced(file=path) for e in entries],
            skipped,
            (is_discussion),
        )


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
    own = resolved(d.path)
    mine = own.parent == resolved(ledger.folder)
    out = [e for e in ledger.entries if e.settled and not (mine and e.file.name == own.name)]
    out.sort(key=lambda e: (e.date, e.file.name, -e.line), reverse=True)
    return out


# --------------------------------------------------------------------------- links


def link_target(path: str) -> str:
    """A relative link target for markdown (spaces and brackets escaped)."""
    return quote(path, safe="/#-._~")


def link_text(text: str) -> str:
    """`text` safe inside the brackets of a markdown link."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def one_line(text: str) -> str:
    """`text` on one line, runs of white space as one space."""
    return " ".join(text.split())


def counted(n: int, noun: str) -> str:
    """``1 decision``, ``2 decisions``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def relative_path(path: Path, start: Path) -> str:
    """`path` relative to the folder `start`, with forward slashes, for a link."""
    try:
        rel = os.path.relpath(resolved(path), resolved(start))
    except ValueError:  # another drive (Windows)
        rel = str(resolved(path))
    return Path(rel).as_posix()


def entries_by_file(entries: Iterable[LedgerEntry]) -> dict[Path, list[LedgerEntry]]:
    """`entries` grouped by discussion file, in the order first seen."""
    groups: dict[Path, list[LedgerEntry]] = {}
    for e in entries:
        groups.setdefault(e.file, []).append(e)
    return groups
