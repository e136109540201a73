"""A participant's memory across discussions, derived from the discussion files.

The files are the source of truth: nothing is kept beside them. For one participant, its
history is one `Episode` per discussion of the folder (default: ``output.directory``) it wrote
in: the positions it took there (its last vote and score, its concerns and decisions, the
motions it proposed, seconded, declined or balloted on, the root causes it named, its
``REMEMBER:`` and ``REVISIT-WHEN:`` notes), each with its line; what the discussion decided
(``DECISION:`` lines, passed motions, a converged diagnosis) and its status; and the side it
ended on (`_side_of`).

Speed: each file is derived once per change, by a per-process cache keyed by the file's size,
modification time and inode (the decision ledger's discipline, `ledger.scan`); one derivation
serves every participant, so a turn with several participants reads the folder once.

Revisit conditions (`revisits_for`): a ``REVISIT-WHEN: condition`` is *mentioned* by another
discussion when every significant word of the condition (a word of four or more letters or
digits, lower-cased, common words left out) occurs in that discussion's text (its title,
context and comments), and that discussion was created later (or either has no date).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..derive.rules import derive
from ..errors import DiscussionsError
from ..syntax.markers import normalise_ballot, normalise_second
from ..syntax.parse import is_discussion_text
from ..syntax.record import FrozenRecord
from ..syntax.text import decode
from . import storage
from .filecache import Batch, Shelf
from .folder import discussion_candidates, holds
from .ledger import is_settled

if TYPE_CHECKING:
    from ..derive.motions import Motion
    from ..derive.state import State
    from ..settings.participants import Participant
    from ..settings.workspace import Workspace

__all__ = [
    "DEFAULT_DISCUSSIONS",
    "Episode",
    "FileMemory",
    "Position",
    "Revisit",
    "history",
    "mentions",
    "read_folder",
    "revisits_for",
    "significant_words",
    "triggered_revisits",
]

DEFAULT_DISCUSSIONS = 25
_WORD = re.compile(r"[^\W_]{4,}")
_COMMON = frozenset(
    {
        "that",
        "this",
        "with",
        "when",
        "from",
        "have",
        "will",
        "would",
        "there",
        "their",
        "than",
        "then",
        "them",
        "they",
        "what",
        "which",
        "into",
        "more",
        "less",
        "over",
        "under",
        "about",
        "after",
        "before",
        "again",
        "each",
        "only",
        "also",
        "been",
        "being",
        "does",
        "should",
        "could",
        "some",
        "such",
        "very",
        "just",
        "like",
        "make",
        "made",
    }
)
_MAX_CONCERNS = 5


class Position(FrozenRecord):
    """One position a participant took in one discussion. (This module's records are
    `FrozenRecord`s, not frozen dataclasses: a turn's prompts load it before the first call,
    and making a dataclass costs ~0.45 ms.)"""

    __slots__ = ("kind", "text", "line")

    kind: str
    """``VOTE``, ``SCORE``, ``CONCERN``, ``DECISION``, ``MOTION`` (proposed), ``SECOND``,
    ``DECLINED`` (to second), ``BALLOT``, ``ROOT-CAUSE``, ``REMEMBER`` or ``REVISIT-WHEN``."""
    text: str
    """The value or text; for a motion or second, ``motion text (passed)``; for a ballot,
    ``NO: motion text (passed)``."""
    line: int
    """1-based line in the discussion file."""

    def __init__(self, kind: str, text: str, line: int) -> None:
        self._init(kind, text, line)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "line": self.line}


class Episode(FrozenRecord):
    """One discussion in one participant's history."""

    __slots__ = ("file", "title", "status", "date", "settled", "decided", "side", "positions")

    file: Path
    title: str
    status: str
    date: str
    """The ``Created`` header as written, or ``""``."""
    settled: bool
    """Whether the discussion is no longer open (`ledger.is_settled`)."""
    decided: tuple[str, ...]
    """What it decided: its ``DECISION:`` lines, passed motions, a converged root cause."""
    side: str
    """``won``, ``lost``, ``open`` (not settled) or ``""`` (no position on the outcome)."""
    positions: tuple[Position, ...]

    def __init__(
        self,
        file: Path,
        title: str,
        status: str,
        date: str,
        settled: bool,
        decided: tuple[str, ...],
        side: str,
        positions: tuple[Position, ...],
    ) -> None:
        self._init(file, title, status, date, settled, decided, side, positions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": str(self.file),
            "title": self.title,
            "status": self.status,
            "date": self.date,
            "settled": self.settled,
            "decided": list(self.decided),
            "side": self.side,
            "positions": [p.to_dict() for p in self.positions],
        }


class Revisit(FrozenRecord):
    """A ``REVISIT-WHEN:`` condition of one discussion, mentioned by another."""

    __slots__ = ("text", "author", "file", "line", "mentioned_by")

    text: str
    author: str
    file: Path
    """The discussion that holds the condition."""
    line: int
    mentioned_by: Path
    """The later discussion that mentions it."""

    def __init__(self, text: str, author: str, file: Path, line: int, mentioned_by: Path) -> None:
        self._init(text, author, file, line, mentioned_by)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "author": self.author,
            "file": str(self.file),
            "line": self.line,
            "mentioned_by": str(self.mentioned_by),
        }


class FileMemory(FrozenRecord):
    """What one discussion file gives every participant's memory (cached per file)."""

    __slots__ = (
        "file",
        "title",
        "status",
        "date",
        "settled",
        "decided",
        "by_author",
        "authors",
        "words",
        "flips",
    )
    file: Path
    title: str
    status: str
    date: str
    settled: bool
    decided: tuple[str, ...]
    by_author: dict[str, tuple[tuple[Position, ...], str]]
    """Lower-cased author -> (positions, side)."""
    authors: dict[str, str]
    """Lower-cased author -> the author as written."""
    words: frozenset[str]
    """The significant words of the whole text (for `mentions`)."""
    flips: dict[str, tuple[int, int, int]]
    """Lower-cased author -> (positions taken, changes of position, changes citing nothing
    new), by the flip audit (`derive.positions`)."""

    def __init__(
        self,
        file: Path,
        title: str,
        status: str,
        date: str,
        settled: bool,
        decided: tuple[str, ...],
        by_author: dict[str, tuple[tuple[Position, ...], str]] | None = None,
        authors: dict[str, str] | None = None,
        words: frozenset[str] = frozenset(),
        flips: dict[str, tuple[int, int, int]] | None = None,
    ) -> None:
        self._init(
            file,
            title,
            status,
            date,
            settled,
            decided,
            {} if by_author is None else by_author,
            {} if authors is None else authors,
            words,
            {} if flips is None else flips,
        )

    def moved(self, file: Path) -> FileMemory:
        """This memory as of the file at `file` (the cache knows each by its absolute path)."""
        return FileMemory(
            file,
            self.title,
            self.status,
            self.date,
            self.settled,
            self.decided,
            self.by_author,
            self.authors,
            self.words,
            self.flips,
        )

    def episode(self, author_key: str) -> Episode | None:
        found = self.by_author.get(author_key)
        if found is None:
            return None
        positions, side = found
        return Episode(
            self.file,
            self.title,
            self.status,
            self.date,
            self.settled,
            self.decided,
            side,
            positions,
        )


def significant_words(text: str) -> frozenset[str]:
    """The words of `text` that `mentions` compares: four or more letters or digits,
    lower-cased, common words left out."""
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _COMMON)


def mentions(condition: str, words: frozenset[str]) -> bool:
    """Whether a text with the significant `words` mentions `condition`: every significant word
    of the condition occurs in it (a condition without one is never mentioned)."""
    wanted = significant_words(condition)
    return bool(wanted) and wanted <= words


# --------------------------------------------------------------------------- one file


def _positions(s: State, author: str) -> list[Position]:
    """What `author` did in the discussion of `s`, in file order."""
    out: list[Position] = []
    last: dict[str, Position] = {}
    concerns = 0
    motions = s.motions
    for c in s.comments:
        if c.author != author:
            continue
        for m in c.markers:
            if m.kind in ("VOTE", "SCORE", "ROOT-CAUSE"):
                last[m.kind] = Position(m.kind, m.text.strip(), m.line)
            elif m.kind == "CONCERN" and concerns < _MAX_CONCERNS:
                concerns += 1
                out.append(Position("CONCERN", m.text.strip(), m.line))
            elif m.kind in ("DECISION", "REMEMBER", "REVISIT-WHEN") and m.text.strip():
                out.append(Position(m.kind, m.text.strip(), m.line))
            elif m.kind in ("SECOND", "BALLOT"):
                motion = next((x for x in reversed(motions) if x.line < m.line), None)
                if motion is not None and motion.by != author:
                    out.append(_on_motion(m.kind, m.text, motion, m.line))
    for motion in motions:
        if motion.by == author:
            out.append(Position("MOTION", f"{motion.text} ({motion.result})", motion.line))
    out += last.values()
    out.sort(key=lambda p: p.line)
    return out


def _on_motion(kind: str, value: str, motion: Motion, line: int) -> Position:
    """A second (``SECOND`` or ``DECLINED``) or a ballot (``BALLOT``, ``YES: text``) on
    `motion`, with what became of it."""
    about = f"{motion.text} ({motion.result})"
    if kind == "SECOND":
        return Position("SECOND" if normalise_second(value) == "yes" else "DECLINED", about, line)
    return Position("BALLOT", f"{normalise_ballot(value) or value.strip()}: {about}", line)


def _side_of(s: State, author: str, settled: bool) -> str:
    """``won`` or ``lost``: the last counted motion `author` balloted on (or moved), else a
    converged diagnosis it named a root cause in, else its last vote against the status
    (REJECTED: REJECT won; any other settled status: READY won). ``open`` while the discussion
    is not settled; ``""`` when it took no position on the outcome."""
    if not settled:
        return "open"
    for motion in reversed(s.motions):
        if motion.result not in ("passed", "failed"):
            continue
        ballot = motion.ballots.get(author) or ("YES" if motion.by == author else None)
        if ballot in ("YES", "NO"):
            return "won" if (ballot == "YES") == (motion.result == "passed") else "lost"
    named = [c.key for c in s.diagnosis.candidates if c.author == author]
    if s.diagnosis.converged and named:
        return "won" if named[-1] == s.diagnosis.key else "lost"
    vote = next((c.vote for c in reversed(s.comments) if c.author == author and c.vote), None)
    if vote is None:
        return ""
    if s.status.upper() == "REJECTED":
        return "won" if vote == "REJECT" else "lost"
    return "won" if vote == "READY" else "lost"


def _decided(s: State) -> tuple[str, ...]:
    out = [i.text for i in s.items["DECISION"]]  # a passed motion is one of them
    if s.diagnosis.converged and s.diagnosis.key:
        out.append(f"Root cause: {s.diagnosis.key}")  # without who named it
    return tuple(dict.fromkeys(" ".join(x.split()) for x in out if x.strip()))


def read_file(path: Path, workspace: Workspace) -> FileMemory | None:
    """What `path` gives the memory of each of its authors; None when it is not a readable
    discussion."""
    try:
        text, _ = decode(storage.read_bytes(path))
    except DiscussionsError:
        return None
    if not is_discussion_text(text):
        return None
    s = derive(text, workspace, path.stem)
    initial = s.template.status if s.template else "OPEN"
    settled = is_settled(s.status, initial)
    fm = FileMemory(
        path,
        s.title,
        s.status,
        s.doc.header.get("created", ""),
        settled,
        _decided(s),
        words=significant_words(text),
    )
    for author in dict.fromkeys(c.author for c in s.comments):
        fm.by_author[author.lower()] = (tuple(_positions(s, author)), _side_of(s, author, settled))
        fm.authors[author.lower()] = author
    found = s.positions  # the flip audit, a rule of the derivation (`ballots.rule_positions`)
    for author in found.grid:
        mine = [f for f in found.flips if f.author == author]
        taken = sum(1 for x in found.stances if x.author == author)
        fm.flips[author.lower()] = (taken, len(mine), sum(1 for f in mine if f.unexplained))
    return fm


class _FileCache(Shelf["FileMemory | None"]):
    """`read_file` of each file, in the shared cache of derived summaries (`filecache`:
    checked against each file's size, modification time and inode and the context it was
    derived in; kept on disk between commands), as the ledger's. Entries are frozen (their
    dicts are not changed after `read_file`), so they are shared safely. Thread-safe."""

    def __init__(self) -> None:
        super().__init__("memory")

    def read(
        self,
        batch: Batch[FileMemory | None],
        path: Path,
        workspace: Workspace,
        holding: tuple[str, ...] = (),
        skip: tuple[int, int] | None = None,
    ) -> FileMemory | None:
        """What `path` gives the memory; None when it is no readable discussion, when it is
        the file `skip` names (device, inode), or when, not derived yet, its text holds none
        of the needles `holding` (`folder.holds`): a file derived already is not read again
        to look for them."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        if skip is not None and (st.st_dev, st.st_ino) == skip:
            return None
        found, known = batch.peek(path)
        if not found:
            if holding and not holds(path, holding):
                return None
            known = batch.get(path, lambda p: read_file(p, workspace))
        if known is not None and known.file != path:
            known = known.moved(path)
        return known


_CACHE = _FileCache()


# --------------------------------------------------------------------------- a folder


def read_folder(
    workspace: Workspace,
    folder: Path | None = None,
    skip: Path | None = None,
    holding: tuple[str, ...] = (),
) -> list[FileMemory]:
    """Every discussion of `folder` (default: ``output.directory``) but `skip` (never read:
    the discussion being shown or prompted, whose own state the caller has; by any path),
    and with `holding` the files whose lower-cased text holds one of its (lower-case) needles,
    looked for before anything is derived (a file this process derived already is given
    whether it holds one or not: the needles only spare deriving the others),
    newest first (by ``Created``, then name), through the per-process cache. Empty when
    there is no folder."""
    where = Path(folder) if folder is not None else workspace.config.output_directory
    if not where.is_dir():
        return []
    try:
        paths = discussion_candidates(where)
    except OSError as exc:
        raise DiscussionsError(f"cannot list {where}: {exc.strerror or exc}") from None
    left_out = _file_id(skip) if skip is not None else None
    cache = _CACHE
    with cache.batch(workspace, where) as batch:
        read = [cache.read(batch, p, workspace, holding, left_out) for p in paths]
    found = [fm for fm in read if fm is not None]
    found.sort(key=lambda fm: (fm.date, fm.file.name), reverse=True)
    return found


def author_keys(participant: Participant) -> set[str]:
    """The lower-cased names a participant writes as: its display name and its alias."""
    return {participant.name.lower(), participant.alias.lower()}


def history(
    workspace: Workspace,
    participant: Participant,
    *,
    folder: Path | None = None,
    exclude: Path | None = None,
) -> list[Episode]:
    """`participant`'s episodes, newest first: one per discussion of the folder it wrote in,
    `exclude` (the discussion being prompted) left out."""
    keys = author_keys(participant)
    out: list[Episode] = []
    # Only the discussions that name it can hold its positions (a comment's `Name:` line).
    named = tuple(keys)
    for fm in read_folder(workspace, folder, skip=exclude, holding=named):
        for key in keys:
            episode = fm.episode(key)
            if episode is not None:
                out.append(episode)
                break
    return out


def _later(fm: FileMemory, date: str) -> bool:
    """Whether a discussion created `date` may mention a condition of `fm`: created later,
    or either has no date."""
    return not (date and fm.date and fm.date > date)


def _conditions(fm: FileMemory) -> list[tuple[Position, str]]:
    return [
        (p, fm.authors[key])
        for key, (positions, _) in fm.by_author.items()
        for p in positions
        if p.kind == "REVISIT-WHEN"
    ]


def revisits_for(
    workspace: Workspace,
    path: Path,
    words: frozenset[str] | Callable[[], frozenset[str]],
    date: str = "",
    folder: Path | None = None,
) -> list[Revisit]:
    """The ``REVISIT-WHEN:`` conditions of the other discussions of the folder that the
    discussion at `path` (with the significant `words`, or a function giving them, called
    only when there is a condition to match; created `date`) mentions (see the module's
    rule), oldest discussion first. Empty when the folder cannot be read."""
    try:
        files = read_folder(workspace, folder, skip=path, holding=("revisit-when",))
    except DiscussionsError:
        return []
    conditions = [
        (fm, p, author)
        for fm in reversed(files)
        if _later(fm, date)
        for p, author in sorted(_conditions(fm), key=lambda x: x[0].line)
    ]
    if not conditions:
        return []
    held = words() if callable(words) else words
    out: list[Revisit] = []
    for fm, p, author in conditions:
        if mentions(p.text, held):
            out.append(Revisit(p.text, author, fm.file, p.line, path))
    return out


def triggered_revisits(workspace: Workspace, folder: Path | None = None) -> list[Revisit]:
    """Every ``REVISIT-WHEN:`` condition of the folder that a later discussion mentions, one
    `Revisit` per (condition, mentioning discussion), oldest condition first."""
    files = read_folder(workspace, folder)
    out: list[Revisit] = []
    for fm in reversed(files):
        conditions = sorted(_conditions(fm), key=lambda x: x[0].line)
        for p, author in conditions:
            for other in reversed(files):
                if other is not fm and _later(fm, other.date) and mentions(p.text, other.words):
                    out.append(Revisit(p.text, author, fm.file, p.line, other.file))
    return out


def _file_id(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`, None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino
