"""`Discussion`: a discussion file and the state derived from it.

Everything here is reconstructed from the file (plus appends queued but not yet saved). Reading
is lazy: `Discussion.load` only checks the file exists, so appending a comment never parses.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..derive.citations import Basis, Verdicts, grounded_consensus, grounds_of
from ..derive.contrarian import hold
from ..derive.quorum import independent_sources
from ..derive.rules import derive
from ..derive.speakers import ai_authors, check_human_author
from ..derive.state import Comment, Item, PendingMention, State
from ..derive.voting import ConsensusResult, score_consensus
from ..errors import DiscussionsError, InvalidVote, PhaseError, ReservedName
from ..syntax import clock
from ..syntax.clock import utc_stamp
from ..syntax.document import ParseWarning
from ..syntax.markers import normalise_vote
from ..syntax.record import Record
from ..syntax.render import (
    analyse_tail,
    end_with_separator,
    join_blocks,
    neutralise,
    render_comment,
    render_header,
    render_phase_transition,
    render_status_change,
)
from ..syntax.text import BOM, decode, normalise_newlines, slugify
from . import storage
from .fields import view_dict
from .sections import Section
from .view import StateView

if TYPE_CHECKING:
    from ..settings.workspace import Workspace
    from .filefacts import Facts

__all__ = ["Comment", "Discussion", "Item", "PendingMention", "slugify"]

T = TypeVar("T")


class _Change(Record):
    """A phase or status change queued by `advance` / `set_status` (`kind`: ``phase`` or
    ``status``), decided again under the file lock when saved: if someone else made the same
    change meanwhile it is not written twice, and a change from a state the file is no longer
    in is refused (`strict`) or silently dropped. A `Record`: no dataclass at start-up."""

    __slots__ = ("kind", "source", "target", "strict")

    def __init__(self, kind: str, source: str, target: str, strict: bool) -> None:
        self.kind, self.source, self.target, self.strict = kind, source, target, strict


class Discussion(StateView):
    """A discussion file. Use `Discussion.load` or `Discussion.create`."""

    def __init__(self, path: str | Path, workspace: Workspace | None = None) -> None:
        self.path: Path = Path(path)
        self._workspace = workspace
        self._text: str | None = None
        self._decode_warnings: list[ParseWarning] = []
        self._new_text: str | None = None  # a created discussion not yet saved
        self._pending: list[str | _Change] = []
        self._state: State | None = None
        self._spoken: tuple[str, list[str]] | None = None  # `_ai_authors` of one text, kept
        self.notices: list[str] = []
        """What the last `save` or `transact` noticed (an earlier append gone from the file)."""
        self.grounding: Verdicts | None = None  # the citations' verdicts (`git.grounding`)
        self.drift: list[tuple[int, str]] | None = None
        """(line, note) of each decision whose governed code changed since it (`ops.drift`),
        set by `ops.grounds.resolve` for the views; None until then."""

    # -- construction ------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path, workspace: Workspace | None = None) -> Discussion:
        """Open an existing discussion file (read lazily, on first use).

        `path` is looked up as the command line looks up a FILE argument
        (`workspace.resolve_file`): as given, else by name in the discussions folder
        (``output.directory``), with or without ``.md``; so ``Discussion.load("feature-x.md")``
        finds ``discussions/feature-x.md``."""
        p = Path(path)
        if not p.exists():
            from ..settings.workspace import Workspace, resolve_file

            workspace = workspace or Workspace.discover()
            p = resolve_file(str(path), workspace)
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
        language: str | None = None,
    ) -> Discussion:
        """A new discussion from a template; written by `save()` (never over an existing file);
        held in `language` (a ``Language:`` header line, `settings.language`) when given."""
        if workspace is None:
            from ..settings.workspace import Workspace

            workspace = Workspace.discover()
        title = " ".join(title.split())
        if not title:
            raise PhaseError("a discussion needs a title")
        tpl = workspace.templates.get(template or workspace.config.default_template)
        aliases = [a.strip().lstrip("@").lower() for a in (participants or []) if a.strip()]
        if not aliases:
            # --participants, then discussions.yaml's default_participants, then the template's.
            aliases = (
                workspace.config.configured_participants
                or list(tpl.participants)
                or workspace.config.default_participants
            )
        for alias in aliases:
            workspace.participants.get(alias)  # unknown aliases fail now, not at the first turn
        shown_title = tpl.title_format.replace("{title}", title)
        stamp = utc_stamp(now or datetime.now(UTC))
        header = render_header(
            [
                ("Title", shown_title),
                ("Phase", tpl.first_phase),
                ("Status", tpl.status),
                ("Created", stamp),
                ("Template", tpl.name),
                ("Participants", ", ".join(aliases)),
                *_language_field(language),
            ]
        )
        if context and tpl.context_format == "diff":
            from ..syntax.fences import fence_diff_context

            context = fence_diff_context(normalise_newlines(context))
        ctx = neutralise(context).strip() if context else ""
        body = tpl.body.replace("{title}", shown_title).replace(
            "{context}", ctx or "[Describe what is being discussed and why]"
        )
        if path is None:
            folder = Path(directory) if directory else workspace.config.output_directory
            path = folder / f"{slugify(title)}.md"
        d = cls(Path(path), workspace)
        # Ends with a separator: a comment typed under it (`Name: ...`) is a comment at once.
        d._new_text = end_with_separator(header + "\n" + body.rstrip("\n") + "\n")
        return d

    # -- reading -----------------------------------------------------------------------

    def adopt_workspace(self, workspace: Workspace) -> None:
        """Use `workspace` unless this discussion was given one already (a runner lends its
        own to a discussion loaded without one, so it is not discovered again)."""
        if self._workspace is None:
            self._workspace = workspace

    @property
    def workspace(self) -> Workspace:
        if self._workspace is None:
            from ..settings.workspace import Workspace

            self._workspace = Workspace.discover()
        return self._workspace

    @property
    def text(self) -> str:
        """The file's text as saved (BOM removed, newlines as in the file)."""
        if self._new_text is not None:
            return self._new_text
        if self._text is None:
            self._text, self._decode_warnings = decode(storage.read_discussion(self.path))
        return self._text

    def _ai_authors(self) -> list[str]:
        """`speakers.ai_authors` of the text with what is queued (of a file not read yet, from
        `filefacts`: it scans only what was appended since it last looked)."""
        if self._text is None and self._new_text is None and not self._pending:
            return storage.ai_authors(self.path)
        text = self._full_text()  # an editor asks three times of one text ("Insert my vote")
        if self._spoken is None or self._spoken[0] is not text:
            self._spoken = (text, ai_authors(text))
        return self._spoken[1]

    def seen_as(self, text: str, state: State | None = None) -> Discussion:
        """A read-only copy whose text is `text` (what a prompt shows); the file is untouched.
        `state`, when given, is what `derive` made of `text` (an editor's, parsed in part)."""
        copy = Discussion(self.path, self._workspace)
        copy._text, copy._state = text, state
        return copy

    def reload(self) -> None:
        """Forget what was read; the next access reads the file again."""
        self._text = None
        self._state = None

    @property
    def _s(self) -> State:
        if self._state is None:
            self._state = derive(
                self._full_text(), self.workspace, self.path.stem, self._decode_warnings
            )
        return self._state

    def _full_text(self) -> str:
        text = self.text
        if not self._pending:
            return text
        blocks = [b if isinstance(b, str) else _render_change(b) for b in self._pending]
        return text + join_blocks(analyse_tail(text, at_file_start=True), blocks)

    def items_of(self, section: Section) -> list[Item]:
        """The items of one of the `sections.SECTIONS` (``d.items_of(BY_KEY["questions"])``)."""
        return list(self._s.items[section.marker])

    @property
    def engine_marker_lines(self) -> list[int]:
        """The lines of the engine blocks the parser found (outside code), in order."""
        return sorted(m.line for m in self._s.doc.engine_markers)

    def engine_blocks(self, kind: str) -> list[tuple[str, dict[str, str]]]:
        """(who, fields) of each engine block of `kind`: ``pass`` (the call's ``provider``,
        ``tokens``, ``cost``) or ``failed`` (no provider answered: ``providers``, ``why``)."""
        return self._s.engine_blocks(kind)

    @property
    def phase_transitions(self) -> int:
        """How many phase transitions the file records."""
        return sum(1 for m in self._s.doc.engine_markers if m.kind == "phase-transition")

    @property
    def consensus_mode(self) -> str:
        """``votes``, ``score`` or ``vote_first``: how the current phase decides."""
        return info.consensus_mode if (info := self.phase_info) else "votes"

    @property
    def consensus_result(self) -> ConsensusResult:
        return self._consensus(self.workspace.config.voting.human_required)

    def consensus_without_humans(self) -> ConsensusResult:
        """Consensus as if no human vote were required."""
        return self._consensus(False)

    def _consensus(self, human_required: bool) -> ConsensusResult:
        if self.consensus_mode == "score":
            info = self.phase_info
            pending: dict[str, list[str]] = {}
            for item in self._s.pending_issues:
                pending.setdefault(item.author, []).append(item.text)
            return score_consensus(
                self._s.scores,
                pending,
                expected=self.expected_voters,
                threshold=info.score_threshold if info else 9,
                humans=self._s.humans,
                human_required=human_required,
            )
        return hold(self._s, self._counted(human_required), self.grounding)

    def _counted(self, human_required: bool) -> ConsensusResult:
        """The votes' consensus, before the contrarian may hold it (`_consensus`)."""
        voting = self.workspace.config.voting
        return grounded_consensus(
            self._s,
            self.grounding,
            replace(voting, human_required=human_required),
            self.expected_voters,
            failed=self._s.failed_seats,
            ready_sources=len(independent_sources(self._s.vote_sources.values())),
        )

    def grounds(self) -> tuple[dict[str, Basis], list[Basis]]:
        """What each counted vote rests on, by voter, and each ``CONCERN:``."""
        return grounds_of(self._s, self.grounding)

    def has_consensus(self) -> bool:
        return self.consensus_result.reached

    # -- changes (appended by save()) --------------------------------------------------

    def add_comment(
        self, author: str, text: str = "", vote: str | None = None, head: str = ""
    ) -> None:
        """Queue a comment by the person `author` (`comment_block`)."""
        self.add_block(self.comment_block(author, text, vote, head))

    def comment_block(
        self,
        author: str,
        text: str = "",
        vote: str | None = None,
        head: str = "",
        *,
        spoken_at_save: bool = False,
    ) -> str:
        """The block of a comment by the person `author` (`head`: the commit its citations
        cite), stamped now. Raises `InvalidVote` for a bad vote, `ReservedName` when `author` is
        a participant's name (see `speakers`: a person cannot speak for one; the engine writes
        theirs with `add_block`). With `spoken_at_save`, the names of those who spoke as an AI
        in the file are left to the check `save` makes under the file's lock (``signed_by``):
        one reading of a long file, not one here and one there.

        `text` is one comment by `author`: it may carry their own markers and votes, but never a
        comment boundary, an engine marker or anything that renders as another comment."""
        author = " ".join(author.split())
        if not author:
            raise InvalidVote("a comment needs an author name")
        if len(author) > 80 or any(unicodedata.category(ch)[0] == "C" for ch in author):
            raise InvalidVote("an author name is one line of at most 80 printable characters")
        norm = normalise_vote(vote) if vote is not None else None
        refused = norm is None and (vote is not None or not text.strip())
        if spoken_at_save and not refused:
            storage.check_readable(self.path)  # what `_ai_authors` would refuse, refused now
            spoken: list[str] = []
        else:  # a comment refused below hears about its name first, as it always did
            spoken = self._ai_authors()
        check_human_author(author, self.workspace.participants, spoken)
        if vote is not None and norm is None:
            raise InvalidVote(f"invalid vote '{vote}': use READY, CHANGES or REJECT")
        if not text.strip() and norm is None:
            raise InvalidVote("nothing to add: give comment text, a vote, or both")
        meta = f"at: {clock.now_stamp()}" + (f" | head: {head}" if head else "")
        return render_comment(author, neutralise(text), vote=norm, meta=meta)

    def add_block(self, block: str) -> None:
        """Queue an already-rendered block (see `format.render_comment`)."""
        self._pending.append(block)
        self._state = None

    def advance(self, to: str | None = None, *, strict: bool = True) -> str:
        """Queue a transition to `to` (default: the current phase's next). Returns the target.
        When saved, the transition is written only if the file is still in this phase."""
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
        self._pending.append(_Change("phase", current, to, strict))
        self._state = None
        return to

    def set_status(self, status: str, *, strict: bool = True) -> str:
        """Queue a status change (``CLOSED``, ``DECIDED``, ``OPEN``...). Returns the status.
        `PhaseError` for a status that is not known (`templates.known_statuses`)."""
        status = status.strip().upper()
        from ..settings.templates import known_statuses

        known = known_statuses([*self.workspace.templates, *filter(None, [self.template])])
        if status not in known:
            raise PhaseError(
                f"unknown status '{status}'; known statuses: {', '.join(known)} "
                "(a template adds its status and consensus_status)"
            )
        if status == self.status:
            raise PhaseError(f"the discussion's status is already {status}")
        self._pending.append(_Change("status", self.status, status, strict))
        self._state = None
        return status

    def reset_votes(self) -> None:
        """Queue a vote reset: votes cast so far in this phase stop counting."""
        self._pending.append(f"<!-- VOTE-RESET: {self.phase} -->\n")
        self._state = None

    @property
    def unsaved(self) -> bool:
        return self._new_text is not None or bool(self._pending)

    @property
    def _root(self) -> Path:
        return self.workspace.config.base_dir

    def save(self, *, signed_by: str | None = None) -> None:
        """Write: create the file if new, then append queued blocks under the file lock.
        Queued phase and status changes are checked against the file as it is then, as is
        `signed_by`, a person signing a queued comment, against those who spoke as an AI in
        it (`ReservedName`; see `comment_block`)."""
        if self._new_text is not None:
            storage.create(self.path, self._new_text, root=self._root)
            self._new_text = None
        if self._pending:
            queued = self._pending
            try:
                done = self._append(queued, signed_by)
            except DiscussionsError as exc:
                if signed_by is not None and not isinstance(exc, ReservedName):
                    self._name_first(signed_by)  # refused before the lock was reached
                raise
            self.notices = done.lost_messages(self.path)
            self._pending = []
        self.reload()

    def _append(self, queued: list[str | _Change], signed_by: str | None) -> storage.Appended:
        """Append `queued` under the file lock (`save`)."""
        check = self._signer_check(signed_by) if signed_by is not None else None
        if all(isinstance(b, str) for b in queued):
            blocks = [b for b in queued if isinstance(b, str)]
            return storage.append(self.path, blocks, root=self._root, check=check)
        return storage.locked_append(
            self.path, lambda text: self._settle(queued, text), root=self._root, check=check
        )

    def _name_first(self, author: str) -> None:
        """`ReservedName` when `author` is the name of one who spoke as an AI in the file:
        what a person whose comment the append refused (a file it cannot open) is told first,
        as when the name was checked before the lock."""
        try:
            spoken = storage.ai_authors(self.path)
        except DiscussionsError:
            return
        check_human_author(author, self.workspace.participants, spoken)

    def _signer_check(self, author: str) -> Callable[[Facts], None]:
        """`check_human_author` of `author` against the file's facts as `save` reads them."""
        participants = self.workspace.participants
        return lambda found: check_human_author(author, participants, found.ai_authors)

    def _settle(self, queued: list[str | _Change], text: str) -> list[str]:
        """The blocks to write for `queued`, given the file's `text` under the lock."""
        now = Discussion(self.path, self._workspace)
        now._text = text.removeprefix(BOM)
        blocks: list[str] = []
        for item in queued:
            if isinstance(item, str):
                blocks.append(item)
                now._pending.append(item)
                continue
            current = now.phase if item.kind == "phase" else now.status
            if current == item.target:
                continue  # made meanwhile (another turn, another person): not twice
            if current != item.source:
                if not item.strict:
                    continue
                what = "phase" if item.kind == "phase" else "status"
                raise PhaseError(
                    f"the discussion's {what} changed to '{current}' meanwhile; "
                    "nothing was written, check `discussions status` and try again"
                )
            blocks.append(_render_change(item))
            now._pending.append(blocks[-1])
            now._state = None
        return blocks

    def transact(self, change: Callable[[Discussion], T]) -> T:
        """Decide and write in one step under the file lock: `change` gets the discussion as
        the file is now, queues what it decides (`advance`, `set_status`, `add_comment`) and
        returns a result; what it queued is appended before the lock is released."""
        if self.unsaved:
            self.save()
        results: list[T] = []
        seen: list[Discussion] = []

        def build(text: str) -> list[str]:
            now = Discussion(self.path, self._workspace)
            now._text = text.removeprefix(BOM)
            seen.append(now)
            results.append(change(now))
            queued, now._pending = now._pending, []
            return now._settle(queued, text)

        done = storage.locked_append(self.path, build, root=self._root)
        self.notices = done.lost_messages(self.path)
        self.reload()
        if not done.blocks:
            # Nothing was written: what was read under the lock is the file; keep its parse.
            self._text, self._state = seen[0]._text, seen[0]._state
        return results[0]

    # -- export ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The discussion as `status --json` shows it: its fields, in order (`fields`)."""
        return view_dict(self)


def _render_change(change: _Change) -> str:
    if change.kind == "phase":
        return render_phase_transition(change.source, change.target)
    return render_status_change(change.source, change.target)


def _language_field(language: str | None) -> list[tuple[str, str]]:
    """The ``Language:`` header field for `language` (none when not given); `BadInput` when it
    names no language (`settings.language.language_problem`)."""
    if language is None or not language.strip():
        return []
    from ..errors import BadInput
    from ..settings.language import language_problem

    problem = language_problem(language)
    if problem:
        raise BadInput(problem, "language")
    return [("Language", " ".join(language.split()))]
