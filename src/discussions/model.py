"""`Discussion`: a discussion file and the state derived from it.

Everything here is reconstructed from the file (plus appends queued but not yet saved). Reading
is lazy: `Discussion.load` only checks the file exists, so appending a comment never parses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import format as fmt
from . import storage
from .errors import InvalidVote, PhaseError
from .markers import Marker, extract, normalise_vote
from .voting import ConsensusResult, calculate_consensus

if TYPE_CHECKING:
    from .templates import Phase, Template
    from .workspace import Workspace

_META = re.compile(r"^<!--[ \t]*(provider:[^\n]*?)[ \t]*-->[ \t]*$", re.M)
_HEADING = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.M)
_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(slots=True)
class Item:
    """A question, todo, decision, assignment, done item or concern."""

    kind: str
    """Marker keyword: ``Q``, ``TODO``, ``DECISION``, ``ASSIGNED``, ``DONE``, ``CONCERN``."""
    text: str
    """Text after the marker."""
    author: str
    """Author of the comment it is in."""
    line: int
    """1-based line number."""

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "author": self.author, "line": self.line}


@dataclass(slots=True)
class Comment:
    """One comment with what was found in it."""

    author: str
    """Name after ``Name:``."""
    line: int
    """Line of the ``Name:`` line."""
    end_line: int
    """Last line of the comment."""
    body: str
    """Comment text (newlines normalised)."""
    vote: str | None = None
    """Last valid ``VOTE:`` in the comment."""
    markers: list[Marker] = field(default_factory=list)
    """All markers, in order."""
    mentions: list[str] = field(default_factory=list)
    """Aliases mentioned, in order, without duplicates."""
    meta: dict[str, str] = field(default_factory=dict)
    """What the engine recorded about the comment (provider, duration, failures)."""

    @property
    def summary(self) -> str:
        """The first line of prose, shortened, for listings."""
        for raw in self.body.splitlines():
            s = raw.strip()
            if s and not s.startswith(("<!--", "VOTE:", "```", "~~~", "---", "*[mock")):
                return s if len(s) <= 72 else s[:69].rstrip() + "..."
        return ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "author": self.author,
            "line": self.line,
            "vote": self.vote,
            "mentions": list(self.mentions),
            "meta": dict(self.meta),
        }


@dataclass(slots=True)
class PendingMention:
    """A participant mentioned and not heard from since."""

    alias: str
    """Who was mentioned."""
    by: str
    """Who mentioned them."""
    line: int
    """Where (the earliest unanswered mention)."""

    def to_dict(self) -> dict[str, Any]:
        return {"alias": self.alias, "by": self.by, "line": self.line}


@dataclass(slots=True)
class _State:
    doc: fmt.Document
    title: str
    phase: str
    status: str
    participants: list[str]
    template: Template | None
    comments: list[Comment]
    votes: dict[str, str]
    items: dict[str, list[Item]]
    pending: list[PendingMention]
    warnings: list[fmt.ParseWarning]
    humans: set[str]
    phase_line: int


def slugify(title: str) -> str:
    slug = _SLUG.sub("-", title.lower()).strip("-")[:60].strip("-")
    return slug or "discussion"


class Discussion:
    """A discussion file. Use `Discussion.load` or `Discussion.create`."""

    def __init__(self, path: str | Path, workspace: Workspace | None = None) -> None:
        self.path = Path(path)
        self._workspace = workspace
        self._text: str | None = None
        self._decode_warnings: list[fmt.ParseWarning] = []
        self._new_text: str | None = None  # a created discussion not yet saved
        self._pending: list[str] = []
        self._state: _State | None = None

    # -- construction ------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path, workspace: Workspace | None = None) -> Discussion:
        """Open an existing discussion file (read lazily, on first use)."""
        p = Path(path)
        storage.check_exists(p)
        return cls(p, workspace)

    @classmethod
    def create(
        cls,
        title: str,
        template: str | None = None,
        context: str | None = None,
        participants: list[str] | None = None,
        directory: str | Path | None = None,
        path: str | Path | None = None,
        workspace: Workspace | None = None,
        now: datetime | None = None,
    ) -> Discussion:
        """A new discussion from a template; written by `save()` (never over an existing file)."""
        if workspace is None:
            from .workspace import Workspace

            workspace = Workspace.discover()
        title = " ".join(title.split())
        if not title:
            raise PhaseError("a discussion needs a title")
        tpl = workspace.templates.get(template or workspace.config.default_template)
        aliases = [a.strip().lstrip("@").lower() for a in (participants or []) if a.strip()]
        if not aliases:
            aliases = list(tpl.participants) or workspace.config.default_participants
        for alias in aliases:
            workspace.participants.get(alias)  # unknown aliases fail now, not at the first turn
        shown_title = tpl.title_format.replace("{title}", title)
        stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
        header = fmt.render_header(
            [
                ("Title", shown_title),
                ("Phase", tpl.first_phase),
                ("Status", tpl.status),
                ("Created", stamp),
                ("Template", tpl.name),
                ("Participants", ", ".join(aliases)),
            ]
        )
        ctx = fmt.normalise_newlines(context).strip() if context else ""
        body = tpl.body.replace("{title}", shown_title).replace(
            "{context}", ctx or "[Describe what is being discussed and why]"
        )
        if path is None:
            folder = Path(directory) if directory else workspace.config.output_directory
            path = folder / f"{slugify(title)}.md"
        d = cls(Path(path), workspace)
        d._new_text = header + "\n" + body.rstrip("\n") + "\n"
        return d

    # -- reading -----------------------------------------------------------------------

    @property
    def workspace(self) -> Workspace:
        if self._workspace is None:
            from .workspace import Workspace

            self._workspace = Workspace.discover()
        return self._workspace

    @property
    def text(self) -> str:
        """The file's text as saved (BOM removed, newlines as in the file)."""
        if self._new_text is not None:
            return self._new_text
        if self._text is None:
            self._text, self._decode_warnings = fmt.decode(storage.read_bytes(self.path))
        return self._text

    def reload(self) -> None:
        """Forget what was read; the next access reads the file again."""
        self._text = None
        self._state = None

    @property
    def _s(self) -> _State:
        if self._state is None:
            self._state = self._derive()
        return self._state

    def _full_text(self) -> str:
        text = self.text
        if not self._pending:
            return text
        return text + fmt.join_blocks(fmt.analyse_tail(text, at_file_start=True), self._pending)

    def _derive(self) -> _State:
        doc = fmt.parse_document(self._full_text())
        warnings = list(self._decode_warnings) + list(doc.warnings)
        ws = self.workspace
        registry = ws.participants
        header = doc.header
        if not doc.is_discussion:
            warnings.append(fmt.ParseWarning(1, "missing `<!-- DISCUSSION -->` header line"))

        def header_line(key: str) -> int:
            for f in doc.header_fields:
                if f.key == key:
                    return f.line
            return 1

        template: Template | None = None
        tname = header.get("template")
        if tname:
            template = ws.templates.find(tname)
            if template is None:
                warnings.append(
                    fmt.ParseWarning(header_line("template"), f"unknown template '{tname}'")
                )
        else:
            template = ws.templates.find(ws.config.default_template)
        known = set(template.phase_ids()) if template else set()

        phase = header.get("phase") or (template.first_phase if template else "initial_feedback")
        if known and phase not in known:
            warnings.append(
                fmt.ParseWarning(
                    header_line("phase"),
                    f"phase '{phase}' is not a phase of template "
                    f"'{template.name if template else ''}'"
                    f" ({', '.join(sorted(known))})",
                )
            )
        status = header.get("status") or "OPEN"
        reset_line = 0
        phase_line = 0
        for m in doc.engine_markers:
            if m.kind == "phase-transition":
                if m.source and m.source != phase:
                    warnings.append(
                        fmt.ParseWarning(
                            m.line, f"transition from '{m.source}' but the phase was '{phase}'"
                        )
                    )
                if known and m.target not in known:
                    warnings.append(
                        fmt.ParseWarning(m.line, f"transition to unknown phase '{m.target}'")
                    )
                phase = m.target
                reset_line = phase_line = m.line
            elif m.kind == "vote-reset":
                reset_line = m.line
            elif m.kind == "status-change":
                status = m.target

        comments: list[Comment] = []
        votes: dict[str, str] = {}
        items: dict[str, list[Item]] = {
            k: [] for k in ("Q", "TODO", "DECISION", "ASSIGNED", "DONE", "CONCERN")
        }
        humans: set[str] = set()
        last_by_alias: dict[str, int] = {}
        raw_mentions: list[tuple[int, str, str, int]] = []  # (comment index, alias, by, line)
        for index, block in enumerate(doc.comments):
            found = extract(block.body, block.body_line)
            warnings.extend(found.warnings)
            mentions: list[str] = []
            for mention in found.mentions:
                if mention.alias not in mentions:
                    mentions.append(mention.alias)
                raw_mentions.append((index, mention.alias, block.author, mention.line))
            meta: dict[str, str] = {}
            mm = _META.search(block.body)
            if mm:
                for part in mm.group(1).split(" | "):
                    key, _, value = part.partition(":")
                    meta[key.strip()] = value.strip()
            comment = Comment(
                author=block.author,
                line=block.line,
                end_line=block.end_line,
                body=block.body,
                vote=found.vote,
                markers=found.markers,
                mentions=mentions,
                meta=meta,
            )
            comments.append(comment)
            participant = registry.for_author(block.author)
            if participant is None:
                humans.add(block.author)
            for key in registry.author_aliases(block.author):
                last_by_alias[key] = index
            counts = participant is None or participant.votes
            for marker in found.markers:
                if marker.kind == "VOTE":
                    if counts and marker.line > reset_line:
                        votes.pop(block.author, None)  # keep dict order = order of latest votes
                        votes[block.author] = marker.text
                else:
                    items[marker.kind].append(
                        Item(marker.kind, marker.text, block.author, marker.line)
                    )

        participants = [
            a.strip().lstrip("@").lower()
            for a in (header.get("participants") or "").split(",")
            if a.strip()
        ]
        if "participants" not in header:
            participants = list(template.participants) if template else []

        pending: dict[str, PendingMention] = {}
        for index, alias, by, line in raw_mentions:
            targets = participants if alias == "all" else [alias]
            for target in targets:
                if target in registry.author_aliases(by) or target in pending:
                    continue
                if last_by_alias.get(target, -1) <= index:
                    pending[target] = PendingMention(target, by, line)

        title = header.get("title") or ""
        if not title:
            h = _HEADING.search(doc.preamble)
            title = h.group(1).strip() if h else self.path.stem
        warnings.sort(key=lambda w: w.line)
        return _State(
            doc=doc,
            title=title,
            phase=phase,
            status=status,
            participants=participants,
            template=template,
            comments=comments,
            votes=votes,
            items=items,
            pending=list(pending.values()),
            warnings=warnings,
            humans=humans,
            phase_line=phase_line,
        )

    # -- state -------------------------------------------------------------------------

    @property
    def title(self) -> str:
        return self._s.title

    @property
    def phase(self) -> str:
        """The current phase id: the header's, then the last transition's."""
        return self._s.phase

    @property
    def phase_info(self) -> Phase | None:
        """The current phase's definition from the template, if known."""
        t = self._s.template
        return t.phase(self._s.phase) if t else None

    @property
    def status(self) -> str:
        return self._s.status

    @property
    def template(self) -> Template | None:
        return self._s.template

    @property
    def header(self) -> dict[str, str]:
        return dict(self._s.doc.header)

    @property
    def participants(self) -> list[str]:
        """Aliases named in the header (or the template's defaults)."""
        return list(self._s.participants)

    @property
    def comments(self) -> list[Comment]:
        return list(self._s.comments)

    @property
    def votes(self) -> dict[str, str]:
        """Current votes: each voter's latest since the last reset or transition."""
        return dict(self._s.votes)

    @property
    def questions(self) -> list[Item]:
        return list(self._s.items["Q"])

    @property
    def todos(self) -> list[Item]:
        return list(self._s.items["TODO"])

    @property
    def assigned(self) -> list[Item]:
        return list(self._s.items["ASSIGNED"])

    @property
    def done(self) -> list[Item]:
        return list(self._s.items["DONE"])

    @property
    def decisions(self) -> list[Item]:
        return list(self._s.items["DECISION"])

    @property
    def concerns(self) -> list[Item]:
        return list(self._s.items["CONCERN"])

    @property
    def pending_mentions(self) -> list[PendingMention]:
        return list(self._s.pending)

    @property
    def warnings(self) -> list[fmt.ParseWarning]:
        return list(self._s.warnings)

    @property
    def phase_started_line(self) -> int:
        """Line of the transition into the current phase (0: the header's phase)."""
        return self._s.phase_line

    @property
    def humans(self) -> set[str]:
        """Authors who are not registered participants."""
        return set(self._s.humans)

    @property
    def expected_voters(self) -> list[str]:
        """Display names of the discussion's participants whose votes count."""
        registry = self.workspace.participants
        names = []
        for alias in self._s.participants:
            if alias in registry:
                p = registry.get(alias)
                if p.votes:
                    names.append(p.name)
        return names

    @property
    def consensus_result(self) -> ConsensusResult:
        return calculate_consensus(
            self._s.votes,
            self.workspace.config.voting,
            humans=self._s.humans,
            expected=self.expected_voters,
        )

    def has_consensus(self) -> bool:
        return self.consensus_result.reached

    # -- changes (appended by save()) --------------------------------------------------

    def add_comment(self, author: str, text: str = "", vote: str | None = None) -> None:
        """Queue a comment by `author`. Raises `InvalidVote` for a bad vote."""
        author = " ".join(author.split())
        if not author:
            raise InvalidVote("a comment needs an author name")
        norm = None
        if vote is not None:
            norm = normalise_vote(vote)
            if norm is None:
                raise InvalidVote(f"invalid vote '{vote}': use READY, CHANGES or REJECT")
        if not text.strip() and norm is None:
            raise InvalidVote("nothing to add: give comment text, a vote, or both")
        self._pending.append(fmt.render_comment(author, text, vote=norm))
        self._state = None

    def add_block(self, block: str) -> None:
        """Queue an already-rendered block (see `format.render_comment`)."""
        self._pending.append(block)
        self._state = None

    def advance(self, to: str | None = None) -> str:
        """Queue a transition to `to` (default: the current phase's next). Returns the target."""
        current = self.phase
        template = self.template
        known = template.phase_ids() if template else []
        if to is None:
            info = self.phase_info
            if template is None or info is None:
                raise PhaseError(
                    f"cannot tell which phase follows '{current}' (template unknown); "
                    "name one with --to"
                )
            if info.next is None:
                raise PhaseError(f"'{current}' is the last phase of template '{template.name}'")
            to = info.next
        elif known and to not in known:
            raise PhaseError(f"unknown phase '{to}' (phases: {', '.join(known)})")
        if to == current:
            raise PhaseError(f"the discussion is already in phase '{to}'")
        self._pending.append(fmt.render_phase_transition(current, to))
        self._state = None
        return to

    def set_status(self, status: str) -> None:
        status = status.strip().upper()
        if not status or not re.fullmatch(r"[A-Z][A-Z0-9_-]*", status):
            raise PhaseError(f"invalid status '{status}'")
        self._pending.append(fmt.render_status_change(self.status, status))
        self._state = None

    @property
    def unsaved(self) -> bool:
        return self._new_text is not None or bool(self._pending)

    def save(self) -> None:
        """Write: create the file if new, then append queued blocks under the file lock."""
        if self._new_text is not None:
            storage.create(self.path, self._new_text)
            self._new_text = None
        if self._pending:
            storage.append(self.path, self._pending)
            self._pending = []
        self.reload()

    # -- export ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        s = self._s
        phase_info = self.phase_info
        return {
            "file": str(self.path),
            "title": s.title,
            "phase": s.phase,
            "phase_title": phase_info.title if phase_info else None,
            "voting_mode": phase_info.voting_mode if phase_info else None,
            "status": s.status,
            "template": s.template.name if s.template else s.doc.header.get("template"),
            "participants": list(s.participants),
            "comments": [c.to_dict() for c in s.comments],
            "votes": dict(s.votes),
            "consensus": self.consensus_result.to_dict(),
            "questions": [i.to_dict() for i in s.items["Q"]],
            "todos": [i.to_dict() for i in s.items["TODO"]],
            "assigned": [i.to_dict() for i in s.items["ASSIGNED"]],
            "done": [i.to_dict() for i in s.items["DONE"]],
            "decisions": [i.to_dict() for i in s.items["DECISION"]],
            "concerns": [i.to_dict() for i in s.items["CONCERN"]],
            "pending_mentions": [p.to_dict() for p in s.pending],
            "warnings": [{"line": w.line, "message": w.message} for w in s.warnings],
        }
