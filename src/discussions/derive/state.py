"""The state derived from one discussion file, and the records it holds (items, comments,
pending mentions, run marks): the types the rules of `rules` fill in, kept apart from the rules
so that every rule module imports them without importing the ruler."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..syntax.clock import utc_stamp
from ..syntax.code import CodeLines
from ..syntax.document import Document, ParseWarning
from ..syntax.kinds import ITEM_KINDS
from ..syntax.markers import Marker
from ..syntax.meta import engine_fields
from ..syntax.record import Record, fields_but
from .diagnosis import Diagnosis
from .dissent import Dissent
from .positions import Positions
from .usage import DiscussionUsage

if TYPE_CHECKING:
    from ..settings.participants import ParticipantRegistry
    from ..settings.templates import Phase, Template
    from ..settings.workspace import Workspace
    from ..syntax.citations import Citation
    from .applies import Apply, Review
    from .contrarian import Challenge, Jump
    from .drafts import Draft
    from .evidence import Evidence
    from .motions import Motion
    from .outcomes import Outcome
    from .quorum import VoteSource
    from .readings import Reading
    from .rechecks import Recheck
    from .retrials import Retrial
    from .runlog import RunRecord


class Restatement(Record):
    """Where an item was said again (`restatements`). (The records here are slotted `Record`s,
    not dataclasses: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("author", "line")
    author: str
    line: int

    def __init__(self, author: str, line: int) -> None:
        self.author = author
        self.line = line

    def to_dict(self) -> dict[str, Any]:
        return {"author": self.author, "line": self.line}


class Item(Record):
    """A question, todo, decision, assignment, done item or concern."""

    __slots__ = ("kind", "text", "author", "line", "restated", "details")
    kind: str
    """Marker keyword: ``Q``, ``TODO``, ``DECISION``, ``ASSIGNED``, ``DONE``, ``CONCERN``."""
    text: str
    """Text after the marker (where it was first said)."""
    author: str
    """Author of the comment it is in."""
    line: int
    """1-based line number."""
    restated: list[Restatement]
    """Where the same item was said again, in file order (`restatements.collapse`)."""
    details: dict[str, list[str]]
    """What the rules of `rules.ITEM_RULES` attached to the item from other lines of its
    comment, by name (a ``GOVERNS:`` line's paths under a decision): in the JSON as they are."""

    def __init__(
        self,
        kind: str,
        text: str,
        author: str,
        line: int,
        restated: list[Restatement] | None = None,
        details: dict[str, list[str]] | None = None,
    ) -> None:
        self.kind = kind
        self.text = text
        self.author = author
        self.line = line
        self.restated = [] if restated is None else restated
        self.details = {} if details is None else details

    def to_dict(self) -> dict[str, Any]:
        """The item; ``restated`` only when it was restated, then its `details`."""
        out: dict[str, Any] = {"text": self.text, "author": self.author, "line": self.line}
        if self.restated:
            out["restated"] = [r.to_dict() for r in self.restated]
        return {**out, **self.details}

    @property
    def restaters(self) -> str:
        """Who restated the item, for a reader (`restated_by`)."""
        return restated_by(self.restated)


class Written(Item):
    """A decision with when its comment was written (`model.ledger.LedgerEntry.written`)."""

    __slots__ = ("written",)
    _compared = _shown = (*Item.__slots__, "written")  # its item's fields, then its own
    written: str

    def __init__(
        self,
        kind: str,
        text: str,
        author: str,
        line: int,
        restated: list[Restatement] | None = None,
        details: dict[str, list[str]] | None = None,
        written: str = "",
    ) -> None:
        Item.__init__(self, kind, text, author, line, restated, details)
        self.written = written


def restated_by(restated: list[Restatement] | tuple[Restatement, ...]) -> str:
    """Who restated an item, for a reader: ``""``, or ``"restated by AI-Security (line 40),
    Rob (lines 52, 77)"``."""
    if not restated:
        return ""
    lines: dict[str, list[int]] = {}
    for r in restated:
        lines.setdefault(r.author, []).append(r.line)
    said = [
        f"{who} (line{'s' if len(at) > 1 else ''} {', '.join(map(str, at))})"
        for who, at in lines.items()
    ]
    return "restated by " + ", ".join(said)


class Comment(Record):
    """One comment with what was found in it."""

    __slots__ = (
        "author", "line", "end_line", "body", "vote", "markers", "mentions", "meta",
        "mention_lines", "at", "forged", "citations",
    )  # fmt: skip

    author: str
    """Name after ``Name:``."""
    line: int
    """Line of the ``Name:`` line."""
    end_line: int
    """Last line of the comment."""
    body: str
    """Comment text (newlines normalised)."""
    vote: str | None
    """Last valid ``VOTE:`` in the comment."""
    markers: list[Marker]
    """All markers, in order."""
    mentions: list[str]
    """Aliases mentioned, in order, without duplicates."""
    meta: dict[str, str]
    """What the engine recorded about the comment (provider, duration, failures, digest); the
    time it was written is `at`."""
    mention_lines: dict[str, int]
    """Line of each alias's first mention in the comment."""
    at: datetime | None
    """When it was written (UTC, to the second), as the tool recorded it in the metadata line;
    None for a comment that does not say (typed by hand, or written before times were kept)."""
    forged: bool
    """It claims to be a participant's without the engine's digest (`signatures.forgery`):
    its `markers` and `vote` are left empty, so none of it counts."""
    citations: list[Citation]
    """What it cites in the repository (``src/net.py:12``; `derive.citations`)."""

    def __init__(
        self,
        author: str,
        line: int,
        end_line: int,
        body: str,
        vote: str | None = None,
        markers: list[Marker] | None = None,
        mentions: list[str] | None = None,
        meta: dict[str, str] | None = None,
        mention_lines: dict[str, int] | None = None,
        at: datetime | None = None,
        forged: bool = False,
        citations: list[Citation] | None = None,
    ) -> None:
        self.author = author
        self.line = line
        self.end_line = end_line
        self.body = body
        self.vote = vote
        self.markers = [] if markers is None else markers
        self.mentions = [] if mentions is None else mentions
        self.meta = {} if meta is None else meta
        self.mention_lines = {} if mention_lines is None else mention_lines
        self.at = at
        self.forged = forged
        self.citations = [] if citations is None else citations

    @property
    def summary(self) -> str:
        """The first line of prose, shortened, for listings."""
        for raw in self.body.splitlines():
            s = raw.strip()
            if s and not s.startswith(("<!--", "VOTE:", "```", "~~~", "---", "*[mock", "*Phase")):
                return s if len(s) <= 72 else s[:69].rstrip() + "..."
        return ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "author": self.author,
            "line": self.line,
            "vote": self.vote,
            "mentions": list(self.mentions),
            "meta": dict(self.meta),
            "at": utc_stamp(self.at) if self.at else None,
        }


class PendingMention(Record):
    """A participant (or person) mentioned and not heard from since."""

    __slots__ = ("alias", "by", "line")

    alias: str
    """Who was mentioned."""
    by: str
    """Who mentioned them."""
    line: int
    """Where (the earliest unanswered mention)."""

    def __init__(self, alias: str, by: str, line: int) -> None:
        self.alias = alias
        self.by = by
        self.line = line

    def to_dict(self) -> dict[str, Any]:
        return {"alias": self.alias, "by": self.by, "line": self.line}


class RunMark(Record):
    """A round, a stop or an escalation the engine recorded."""

    __slots__ = ("kind", "line", "value", "fields")

    kind: str
    """``round``, ``run-stop`` or ``escalation``."""
    line: int
    value: str
    """The round number, the stop reason or the escalation reason."""
    fields: dict[str, str]
    """The rest (``phase``, ``order``, ``seed``, ``rounds``)."""

    def __init__(
        self, kind: str, line: int, value: str, fields: dict[str, str] | None = None
    ) -> None:
        self.kind = kind
        self.line = line
        self.value = value
        self.fields = {} if fields is None else fields

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "value": self.value, **self.fields}


class State(Record):
    """Everything derived from one file. Rules fill it in order. (A slotted `Record`, as the
    records above; `comment_code`, `readings`, `resumed` and `marker_kinds` are left out of
    ``==``, the first two out of the repr, as the dataclass it was left them out.)"""

    __slots__ = (
        "doc", "workspace", "path_stem", "text", "comment_code", "warnings", "title", "template",
        "phase", "phase_line", "reset_line", "status", "status_line", "participants", "comments",
        "votes", "vote_sources", "failed_seats", "items", "humans", "pending", "mention_typos",
        "scores", "pending_issues", "rounds", "runs", "stops", "escalation", "diagnosis",
        "motions", "passes", "evidence", "notes", "drafts", "applies", "apply_reviews",
        "expected_voters", "first_ballot", "positions", "phase_info", "usage", "dissent",
        "too_fast", "challenge", "retrials", "outcomes", "jump", "rechecks", "readings", "resumed",
        "marker_kinds",
    )  # fmt: skip
    """Everything derived from one file. Rules fill it in order."""
    _compared = fields_but(__slots__, "comment_code", "readings", "resumed", "marker_kinds")
    _shown = fields_but(__slots__, "comment_code", "readings")

    doc: Document
    """The parse."""
    workspace: Workspace
    """Participants, templates, configuration (read only)."""
    path_stem: str
    """File name without suffix: the title of last resort."""
    text: str
    """The text derived (as given to `rules.derive`: what the rules that read blocks' content
    and conflict lines read)."""
    comment_code: list[CodeLines | None]
    """Each comment's code lines as the parse found them, where it did (`readings.rule_comments`
    reads them rather than finding them again); empty when the parse came from elsewhere."""
    warnings: list[ParseWarning]
    title: str
    template: Template | None
    phase: str
    phase_line: int
    """Line of the transition into the current phase (0: the header's phase)."""
    reset_line: int
    """Votes before this line do not count."""
    status: str
    status_line: int
    """Line of the last status change (0: the header's status)."""
    participants: list[str]
    comments: list[Comment]
    votes: dict[str, str]
    vote_sources: dict[str, VoteSource]
    """Each current vote's provider, model and confidence (`quorum.rule_quorum`)."""
    failed_seats: list[str]
    """Participants whose call failed since the reset and who hold no vote (`quorum`)."""
    items: dict[str, list[Item]]
    humans: set[str]
    pending: list[PendingMention]
    mention_typos: list[tuple[str, str, int]]
    """(mentioned, closest alias, line) for mentions that look like a mistyped alias."""
    scores: dict[str, int]
    """Each scorer's latest ``SCORE:`` (0-10) since the last reset."""
    pending_issues: list[Item]
    """``PENDING:`` issues of each scorer's latest scored comment since the last reset."""
    rounds: list[RunMark]
    """``ROUND`` markers of the latest run."""
    runs: list[RunRecord]
    """Every run the file records, in the order they started (`runlog.group_runs`)."""
    stops: list[RunMark]
    """``RUN-STOP`` markers, in order."""
    escalation: RunMark | None
    """The latest escalation, while no human has answered it."""
    diagnosis: Diagnosis
    """Root-cause candidates and whether they converged (see `diagnosis`)."""
    motions: list[Motion]
    """Motions, their seconds, ballots and results (`motions.rule_motions`)."""
    passes: list[tuple[str, int]]
    """(who, line) of each ``PASS`` block: a participant had nothing to add."""
    evidence: list[Evidence]
    """Evidence blocks in file order, then requests still pending (`evidence.rule_evidence`)."""
    notes: list[Item]
    """``REMEMBER:`` and ``REVISIT-WHEN:`` lines, in file order (`notes.rule_notes`)."""
    drafts: list[Draft]
    """A documentation loop's ``DRAFT`` blocks, in file order (`drafts.rule_drafts`)."""
    applies: list[Apply]
    """``APPLY`` blocks, in file order, each with its reviews (`applies.rule_applies`)."""
    apply_reviews: list[Review]
    """``APPLY-REVIEW`` blocks, in file order (`applies.rule_applies`)."""
    expected_voters: list[str]
    """Display names of the participants whose votes count (`ballots.rule_voters`)."""
    first_ballot: dict[str, tuple[str, int]]
    """Each voter's first vote in the current phase: name -> (vote, line)."""
    positions: Positions
    """Every author's positions round by round, and their flips (`ballots.rule_positions`)."""
    phase_info: Phase | None
    """The current phase's definition as its rules apply now (`ballots.rule_phase_rules`)."""
    usage: DiscussionUsage
    """Tokens, cost and calls, in all and per participant and provider (`usage.rule_usage`)."""
    dissent: Dissent
    """The minority report: votes against, unanswered concerns (`minority.rule_dissent`)."""
    too_fast: bool
    """Agreement came too fast in this phase (`contrarian.rule_contrarian`)."""
    challenge: Challenge | None
    """The contrarian's challenge in this phase, if one was made (`contrarian`)."""
    retrials: list[Retrial]
    """``RETRIAL`` blocks: the first ballot asked again elsewhere (`retrials`)."""
    outcomes: list[Outcome]
    """People's ``OUTCOME:`` lines, in file order (`outcomes.rule_outcomes`)."""
    jump: Jump | None
    """The ballot's jump from split to unanimous READY on no evidence and no answered
    concern, in this phase (`contrarian.rule_contrarian`)."""
    rechecks: list[Recheck]
    """``RECHECK`` blocks, in file order (`rechecks.rule_rechecks`)."""
    readings: list[Reading]
    """What the per-comment part of the derivation read of each comment, with what each
    carries to the next (`readings`): a later derivation resumes from them."""
    resumed: int
    """How many leading comments were taken from a previous derivation's `readings` (0 for
    a derivation from scratch): a rule with a part of its own per comment (`citations`)
    reads only the comments after them, the others' results being on the comments already."""
    marker_kinds: frozenset[str] | None
    """The kinds of the markers the comments hold (`readings.rule_comments`; None before it
    ran): what `holds` answers."""

    def __init__(
        self, doc: Document, workspace: Workspace, path_stem: str = "", text: str = ""
    ) -> None:
        self.doc = doc
        self.workspace = workspace
        self.path_stem = path_stem
        self.text = text
        self._start_parse()
        self._start_derived()

    def _start_parse(self) -> None:
        """The fields the parse and the first rules fill, empty."""
        self.comment_code = []
        self.warnings = []
        self.title = ""
        self.template = None
        self.phase = ""
        self.phase_line = 0
        self.reset_line = 0
        self.status = "OPEN"
        self.status_line = 0
        self.participants = []
        self.comments = []
        self.votes = {}
        self.vote_sources = {}
        self.failed_seats = []
        self.items = {k: [] for k in ITEM_KINDS}
        self.humans = set()
        self.pending = []
        self.mention_typos = []
        self.scores = {}
        self.pending_issues = []
        self.rounds = []
        self.runs = []
        self.stops = []

    def _start_derived(self) -> None:
        """The fields the later rules fill, empty."""
        self.escalation = None
        self.diagnosis = Diagnosis()
        self.motions = []
        self.passes = []
        self.evidence = []
        self.notes = []
        self.drafts = []
        self.applies = []
        self.apply_reviews = []
        self.expected_voters = []
        self.first_ballot = {}
        self.positions = Positions()
        self.phase_info = None
        self.usage = DiscussionUsage()
        self.dissent = Dissent()
        self.too_fast = False
        self.challenge = None
        self.retrials = []
        self.outcomes = []
        self.jump = None
        self.rechecks = []
        self.readings = []
        self.resumed = 0
        self.marker_kinds = None

    @property
    def registry(self) -> ParticipantRegistry:
        return self.workspace.participants

    def header_line(self, key: str) -> int:
        for f in self.doc.header_fields:
            if f.key == key:
                return f.line
        return 1

    def engine_blocks(self, kind: str) -> list[tuple[str, dict[str, str]]]:
        """(value, fields) of each engine block of `kind` (`syntax.meta.engine_fields`): for
        ``pass`` and ``failed``, who and what the call recorded."""
        found = []
        for m in self.doc.engine_markers:
            if m.kind == kind:
                fields = engine_fields(m.target)
                found.append((fields.pop(""), fields))
        return found

    def holds(self, *kinds: str) -> bool:
        """Whether a comment holds a marker of one of `kinds` (True when not known yet): a
        rule that reads only rare markers (``GOVERNS:``, ``SCORE:``, ``MOTION:``) passes over
        the 20,000 comments of a file that has none."""
        return self.marker_kinds is None or not self.marker_kinds.isdisjoint(kinds)

    def warn(self, line: int, message: str, severity: str = "warning", **found: str) -> None:
        """Record a problem on `line` (`found`: the `ParseWarning`'s code, subject, fix)."""
        self.warnings.append(ParseWarning(line, message, severity, **found))
