"""The council's memory: what the council as a whole decided across the project's discussions,
and how its votes went, derived from the discussion files (the council design's
``COUNCIL.md`` / ``COUNCIL.json``, beside each member's own memory, `model.memory`).

One `CouncilEntry` per settled discussion (`ledger.is_settled`) that decided or voted on
something: its title, status and date, what it decided (``DECISION:`` lines, passed motions),
the final tally of the votes that count (READY / CHANGES / REJECT), who voted what, the
minority report (`derive.dissent`: votes against the outcome, unanswered concerns) and each
motion with its YES-NO-ABSTAIN count. Newest first, by ``Created`` and then by file name.

Two files under ``<discussions folder>/memory/`` hold it, derived and rebuildable, never the
source of truth: ``COUNCIL.json`` (every entry, with the digest of the file it came from) and
``COUNCIL.md`` (the same, for people). `write_council` builds both from scratch; `update_council`
re-derives only the discussions whose bytes changed since (or the ones it is given) and keeps
the rest; both give the same bytes for the same discussions. Prompts do not read the files:
they derive the entries as `council_entries` does (through the per-file cache, `filecache`),
and show the newest ``memory.council_discussions`` (`engine.prompt.council`), while the files
keep every one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import atomic
from ..derive.rules import derive
from ..errors import DiscussionsError
from ..syntax.digest import sha256_hex
from ..syntax.parse import is_discussion_text
from ..syntax.record import FrozenRecord
from ..syntax.text import decode
from . import storage
from .filecache import Shelf
from .folder import discussion_candidates
from .ledger import is_settled

if TYPE_CHECKING:
    from ..derive.state import State
    from ..settings.workspace import Workspace

__all__ = [
    "COUNCIL_JSON",
    "COUNCIL_MD",
    "MEMORY_FOLDER",
    "CouncilEntry",
    "council_entries",
    "council_page",
    "entry_of",
    "update_council",
    "write_council",
]

MEMORY_FOLDER = "memory"
"""The subfolder of the discussions folder that holds the derived memory pages."""
COUNCIL_JSON = "COUNCIL.json"
COUNCIL_MD = "COUNCIL.md"
_FORMAT = 1
_VOTES = ("READY", "CHANGES", "REJECT")


class CouncilEntry(FrozenRecord):
    """What one settled discussion tells of the council (module docstring)."""

    __slots__ = (
        "file", "title", "status", "date", "digest", "decided", "tally", "votes", "dissent",
        "motions",
    )  # fmt: skip

    file: str
    """The file's path relative to the discussions folder (``/``-separated)."""
    title: str
    status: str
    date: str
    """The ``Created`` header as written, or ``""``."""
    digest: str
    """SHA-256 of the file's bytes when it was read (what `update_council` compares)."""
    decided: tuple[str, ...]
    tally: tuple[tuple[str, int], ...]
    """(vote, count) of the final votes that count, READY, CHANGES, REJECT (zeros left out)."""
    votes: tuple[tuple[str, str], ...]
    """(voter, vote) of each final vote, in the order they were cast."""
    dissent: tuple[str, ...]
    """``REJECT from Bo``, ``1 unanswered concern (Cy)``: the minority report in short."""
    motions: tuple[tuple[str, str, str], ...]
    """(text, result, ``YES-NO-ABSTAIN``) of each motion."""

    def __init__(
        self,
        file: str,
        title: str,
        status: str,
        date: str,
        digest: str,
        decided: tuple[str, ...],
        tally: tuple[tuple[str, int], ...],
        votes: tuple[tuple[str, str], ...],
        dissent: tuple[str, ...],
        motions: tuple[tuple[str, str, str], ...],
    ) -> None:
        self._init(file, title, status, date, digest, decided, tally, votes, dissent, motions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "title": self.title,
            "status": self.status,
            "date": self.date,
            "digest": self.digest,
            "decided": list(self.decided),
            "tally": dict(self.tally),
            "votes": dict(self.votes),
            "dissent": list(self.dissent),
            "motions": [{"text": t, "result": r, "count": c} for t, r, c in self.motions],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CouncilEntry:
        """An entry as `to_dict` wrote it (`ValueError`, `KeyError`, `TypeError` otherwise)."""
        return cls(
            str(data["file"]),
            str(data["title"]),
            str(data["status"]),
            str(data["date"]),
            str(data["digest"]),
            tuple(str(x) for x in data["decided"]),
            tuple((str(k), int(v)) for k, v in data["tally"].items()),
            tuple((str(k), str(v)) for k, v in data["votes"].items()),
            tuple(str(x) for x in data["dissent"]),
            tuple((str(m["text"]), str(m["result"]), str(m["count"])) for m in data["motions"]),
        )


def _dissent(s: State) -> tuple[str, ...]:
    found = [f"{v.vote} from {v.name}" for v in s.dissent.votes]
    if s.dissent.concerns:
        who = ", ".join(dict.fromkeys(c.by for c in s.dissent.concerns))
        n = len(s.dissent.concerns)
        found.append(f"{n} unanswered concern{'s' if n > 1 else ''} ({who})")
    return tuple(found)


def _entry(s: State, name: str, digest: str) -> CouncilEntry | None:
    """The entry of the derived discussion `s` (None when it is not settled, or neither
    decided nor voted on anything)."""
    initial = s.template.status if s.template else "OPEN"
    decided = tuple(dict.fromkeys(" ".join(i.text.split()) for i in s.items["DECISION"]))
    if not is_settled(s.status, initial) or not (decided or s.votes or s.motions):
        return None
    counts = {v: 0 for v in _VOTES}
    for vote in s.votes.values():
        counts[vote] = counts.get(vote, 0) + 1
    motions = tuple(
        (" ".join(m.text.split()), m.result, _count(m.counts)) for m in s.motions if m.text
    )
    header = s.doc.header
    return CouncilEntry(
        name,
        " ".join(s.title.split()),
        s.status,
        header.get("created", ""),
        digest,
        decided,
        tuple((v, n) for v, n in counts.items() if n),
        tuple(s.votes.items()),
        _dissent(s),
        motions,
    )


def _count(counts: dict[str, int]) -> str:
    return "-".join(str(counts.get(k, 0)) for k in ("YES", "NO", "ABSTAIN"))


def entry_of(path: Path, folder: Path, workspace: Workspace) -> CouncilEntry | None:
    """The entry of the discussion at `path` (in `folder`); None when it is no readable
    discussion or has none (`_entry`)."""
    try:
        data = storage.read_bytes(path)
    except DiscussionsError:
        return None
    text, _ = decode(data)
    if not is_discussion_text(text):
        return None
    name = Path(path).resolve().relative_to(folder.resolve()).as_posix()
    return _entry(derive(text, workspace, path.stem), name, sha256_hex(data))


_SHELF: Shelf[CouncilEntry | None] = Shelf("council")


def council_entries(
    workspace: Workspace, folder: Path | None = None, skip: Path | None = None
) -> list[CouncilEntry]:
    """Every entry of the discussions of `folder` (default: ``output.directory``) but `skip`,
    newest first, through the per-file cache; empty when there is no folder."""
    where = Path(folder) if folder is not None else workspace.config.output_directory
    if not where.is_dir():
        return []
    left_out = Path(skip).resolve() if skip is not None else None
    paths = [p for p in discussion_candidates(where) if p.resolve() != left_out]
    with _SHELF.batch(workspace, where) as batch:
        found = [batch.get(p, lambda p: entry_of(p, where, workspace)) for p in paths]
    return _newest_first([e for e in found if e is not None])


def _newest_first(entries: list[CouncilEntry]) -> list[CouncilEntry]:
    return sorted(entries, key=lambda e: (e.date, e.file), reverse=True)


def memory_folder(workspace: Workspace) -> Path:
    """``<discussions folder>/memory``: where the memory pages are written."""
    return workspace.config.output_directory / MEMORY_FOLDER


def _read_json(path: Path) -> list[CouncilEntry] | None:
    """The entries of a ``COUNCIL.json``; None when it is missing or not one we wrote."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != _FORMAT:
            return None
        return [CouncilEntry.from_dict(e) for e in data["discussions"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def council_json(entries: list[CouncilEntry]) -> str:
    """``COUNCIL.json``: the format and every entry, newest first. Deterministic."""
    data = {"format": _FORMAT, "discussions": [e.to_dict() for e in entries]}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def council_page(entries: list[CouncilEntry]) -> str:
    """``COUNCIL.md``: each entry as a section, newest first. Deterministic (no timestamp)."""
    lines = [
        "# The council's memory",
        "",
        "<!-- Generated by `discussions council-memory --write`; rebuild it any time. "
        "Do not edit. -->",
        "",
        "*Derived from the discussions: what the council decided and how its votes went, "
        "newest first. To change it, change the discussions.*",
        "",
    ]
    for e in entries:
        lines += [f"## {e.title} ({e.status}{', ' + e.date[:10] if e.date else ''})", ""]
        lines += [f"- File: [{e.file}](../{e.file})"]
        lines += entry_lines(e, names=True)
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def entry_lines(e: CouncilEntry, names: bool = True) -> list[str]:
    """An entry's tally, votes (with `names`), decisions, motions and dissent as list lines."""
    tally = ", ".join(f"{v} {n}" for v, n in e.tally) or "none"
    out = [f"- Votes: {tally}"]
    if names and e.votes:
        out[0] += " (" + ", ".join(f"{who} {vote}" for who, vote in e.votes) + ")"
    out += [f"- Decided: {x}" for x in e.decided]
    out += [f"- Motion ({r}, {c}): {t}" for t, r, c in e.motions]
    if e.dissent:
        shown = e.dissent if names else (f"{len(e.dissent)} dissenting",)
        out.append("- Dissent: " + "; ".join(shown))
    return out


def write_council(workspace: Workspace, entries: list[CouncilEntry] | None = None) -> Path:
    """(Re)write ``COUNCIL.json`` and ``COUNCIL.md`` from `entries` (default: every entry,
    derived now); the folder of both."""
    folder = memory_folder(workspace)
    found = council_entries(workspace) if entries is None else _newest_first(entries)
    storage.target_of(folder / COUNCIL_JSON, workspace.config.base_dir)
    folder.mkdir(parents=True, exist_ok=True)
    atomic.replace_file(folder / COUNCIL_JSON, council_json(found), new_mode=0o644)
    atomic.replace_file(folder / COUNCIL_MD, council_page(found), new_mode=0o644)
    return folder


def update_council(workspace: Workspace, paths: list[Path] | None = None) -> Path | None:
    """Bring the council files up to date incrementally: with `paths`, re-derive those
    discussions only; without, every discussion whose bytes changed since it was recorded
    (and drop those that are gone). None when there are no council files yet (nothing is
    written until `write_council` made them); an unreadable ``COUNCIL.json`` is rebuilt."""
    folder = workspace.config.output_directory
    known = _read_json(memory_folder(workspace) / COUNCIL_JSON)
    if known is None:
        exists = (memory_folder(workspace) / COUNCIL_JSON).exists()
        return write_council(workspace) if exists else None
    by_file = {e.file: e for e in known}
    for path in paths if paths is not None else _all_paths(folder, by_file):
        name = _name_in(path, folder)
        if name is None:
            continue
        old = by_file.pop(name, None)
        new = _unchanged(path, old) or entry_of(path, folder, workspace)
        if new is not None:
            by_file[name] = new
    return write_council(workspace, list(by_file.values()))


def _all_paths(folder: Path, by_file: dict[str, CouncilEntry]) -> list[Path]:
    """Every discussion of `folder`, and the recorded files that are gone."""
    paths = discussion_candidates(folder) if folder.is_dir() else []
    return [*paths, *(folder / name for name in by_file if not (folder / name).exists())]


def _name_in(path: Path, folder: Path) -> str | None:
    try:
        return Path(path).resolve().relative_to(folder.resolve()).as_posix()
    except ValueError:
        return None


def _unchanged(path: Path, old: CouncilEntry | None) -> CouncilEntry | None:
    """`old` when the file at `path` still has the bytes it was recorded from."""
    if old is None:
        return None
    try:
        return old if sha256_hex(storage.read_bytes(path)) == old.digest else None
    except DiscussionsError:
        return None
