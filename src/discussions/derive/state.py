"""The state derived from one discussion file, and the records it holds (items, comments,
pending mentions, run marks): the types the rules of `rules` fill in, kept apart from the rules
so that every rule module imports them without importing the ruler."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..syntax.clock import utc_stamp
from ..syntax.code import CodeLines
from ..syntax.document import Document, ParseWarning
from ..syntax.kinds import ITEM_KINDS
from ..syntax.markers import Marker
from ..syntax.meta import engine_fields
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


@dataclass(slots=True)
class Restatement:
    """Where an item was said again (`restatements`)."""

    author: str
    line: int

    def to_dict(self) -> dict[str, Any]:
        return {"author": self.author, "line": self.line}


@dataclass(slots=True)
class Item:
    """A question, todo, decision, assignment, done item or concern."""

    kind: str
    """Marker keyword: ``Q``, ``TODO``, ``DECISION``, ``ASSIGNED``, ``DONE``, ``CONCERN``."""
    text: str
    """Text after the marker (where it was first said)."""
    author: str
    """Author of the comment it is in."""
    line: int
    """1-based line number."""
    restated: list[Restatement] = field(default_factory=list)
    """Where the same item was said again, in file order (`restatements.collapse`)."""
    details: dict[str, list[str]] = field(default_factory=dict)
    """What the rules of `rules.ITEM_RULES` attached to the item from other lines of its
    comment, by name (a ``GOVERNS:`` line's paths under a decision): in the JSON as they are."""

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
    """What the engine recorded about the comment (provider, duration, failures, digest); the
    time it was written is `at`."""
    mention_lines: dict[str, int] = field(default_factory=dict)
    """Line of each alias's first mention in the comment."""
    at: datetime | None = None
    """When it was written (UTC, to the second), as the tool recorded it in the metadata line;
    None for a comment that does not say (typed by hand, or written before times were kept)."""
    forged: bool = False
    """It claims to be a participant's without the engine's digest (`signatures.forgery`):
    its `markers` and `vote` are left empty, so none of it counts."""
    citations: list[Citation] = field(default_factory=list)
    """What it cites in the repository (``src/net.py:12``; `derive.citations`)."""

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


@dataclass(slots=True)
class PendingMention:
    """A participant (or person) mentioned and not heard from since."""

    alias: str
    """Who was mentioned."""
    by: str
    """Who mentioned them."""
    line: int
    """Where (the earliest unanswered mention)."""

    def to_dict(self) -> dict[str, Any]:
        return {"alias": self.alias, "by": self.by, "line": self.line}


@dataclass(slots=True)
class RunMark:
    """A round, a stop or an escalation the engine recorded."""

    kind: str
    """``round``, ``run-stop`` or ``escalation``."""
    line: int
    value: str
    """The round number, the stop reason or the escalation reason."""
    fields: dict[str, str] = field(default_factory=dict)
    """The rest (``phase``, ``order``, ``seed``, ``rounds``)."""

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "value": self.value, **self.fields}


@dataclass(slots=True)
class State:
    """Everything derived from one file. Rules fill it in order."""

    doc: Document
    """The parse."""
    workspace: Workspace
    """Participants, templates, configuration (read only)."""
    path_stem: str = ""
    """File name without suffix: the title of last resort."""
    text: str = ""
    """The text derived (as given to `rules.derive`: what the rules that read blocks' content
    and conflict lines read)."""
    comment_code: list[CodeLines | None] = field(default_factory=list, repr=False, compare=False)
    """Each comment's code lines as the parse found them, where it did (`readings.rule_comments`
    reads them rather than finding them again); empty when the parse came from elsewhere."""
    warnings: list[ParseWarning] = field(default_factory=list)
    title: str = ""
    template: Template | None = None
    phase: str = ""
    phase_line: int = 0
    """Line of the transition into the current phase (0: the header's phase)."""
    reset_line: int = 0
    """Votes before this line do not count."""
    status: str = "OPEN"
    status_line: int = 0
    """Line of the last status change (0: the header's status)."""
    participants: list[str] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    votes: dict[str, str] = field(default_factory=dict)
    vote_sources: dict[str, VoteSource] = field(default_factory=dict)
    """Each current vote's provider, model and confidence (`quorum.rule_quorum`)."""
    failed_seats: list[str] = field(default_factory=list)
    """Participants whose call failed since the reset and who hold no vote (`quorum`)."""
    items: dict[str, list[Item]] = field(default_factory=lambda: {k: [] for k in ITEM_KINDS})
    humans: set[str] = field(default_factory=set)
    pending: list[PendingMention] = field(default_factory=list)
    mention_typos: list[tuple[str, str, int]] = field(default_factory=list)
    """(mentioned, closest alias, line) for mentions that look like a mistyped alias."""
    scores: dict[str, int] = field(default_factory=dict)
    """Each scorer's latest ``SCORE:`` (0-10) since the last reset."""
    pending_issues: list[Item] = field(default_factory=list)
    """``PENDING:`` issues of each scorer's latest scored comment since the last reset."""
    rounds: list[RunMark] = field(default_factory=list)
    """``ROUND`` markers of the latest run."""
    runs: list[RunRecord] = field(default_factory=list)
    """Every run the file records, in the order they started (`runlog.group_runs`)."""
    stops: list[RunMark] = field(default_factory=list)
    """``RUN-STOP`` markers, in order."""
    escalation: RunMark | None = None
    """The latest escalation, while no human has answered it."""
    diagnosis: Diagnosis = field(default_factory=Diagnosis)
    """Root-cause candidates and whether they converged (see `diagnosis`)."""
    motions: list[Motion] = field(default_factory=list)
    """Motions, their seconds, ballots and results (`motions.rule_motions`)."""
    passes: list[tuple[str, int]] = field(default_factory=list)
    """(who, line) of each ``PASS`` block: a participant had nothing to add."""
    evidence: list[Evidence] = field(default_factory=list)
    """Evidence blocks in file order, then requests still pending (`evidence.rule_evidence`)."""
    notes: list[Item] = field(default_factory=list)
    """``REMEMBER:`` and ``REVISIT-WHEN:`` lines, in file order (`notes.rule_notes`)."""
    drafts: list[Draft] = field(default_factory=list)
    """A documentation loop's ``DRAFT`` blocks, in file order (`drafts.rule_drafts`)."""
    applies: list[Apply] = field(default_factory=list)
    """``APPLY`` blocks, in file order, each with its reviews (`applies.rule_applies`)."""
    apply_reviews: list[Review] = field(default_factory=list)
    """``APPLY-REVIEW`` blocks, in file order (`applies.rule_applies`)."""
    expected_voters: list[str] = field(default_factory=list)
    """Display names of the participants whose votes count (`ballots.rule_voters`)."""
    first_ballot: dict[str, tuple[str, int]] = field(default_factory=dict)
    """Each voter's first vote in the current phase: name -> (vote, line)."""
    positions: Positions = field(default_factory=Positions)
    """Every author's positions round by round, and their flips (`ballots.rule_positions`)."""
    phase_info: Phase | None = None
    """The current phase's definition as its rules apply now (`ballots.rule_phase_rules`)."""
    usage: DiscussionUsage = field(default_factory=DiscussionUsage)
    """Tokens, cost and calls, in all and per participant and provider (`usage.rule_usage`)."""
    dissent: Dissent = field(default_factory=Dissent)
    """The minority report: votes against, unanswered concerns (`minority.rule_dissent`)."""
    too_fast: bool = False
    """Agreement came too fast in this phase (`contrarian.rule_contrarian`)."""
    challenge: Challenge | None = None
    """The contrarian's challenge in this phase, if one was made (`contrarian`)."""
    retrials: list[Retrial] = field(default_factory=list)
    """``RETRIAL`` blocks: the first ballot asked again elsewhere (`retrials`)."""
    outcomes: list[Outcome] = field(default_factory=list)
    """People's ``OUTCOME:`` lines, in file order (`outcomes.rule_outcomes`)."""
    jump: Jump | None = None
    """The ballot's jump from split to unanimous READY on no evidence and no answered
    concern, in this phase (`contrarian.rule_contrarian`)."""
    rechecks: list[Recheck] = field(default_factory=list)
    """``RECHECK`` blocks, in file order (`rechecks.rule_rechecks`)."""
    readings: list[Reading] = field(default_factory=list, repr=False, compare=False)
    """What the per-comment part of the derivation read of each comment, with what each
    carries to the next (`readings`): a later derivation resumes from them."""
    resumed: int = field(default=0, compare=False)
    """How many leading comments were taken from a previous derivation's `readings` (0 for
    a derivation from scratch): a rule with a part of its own per comment (`citations`)
    reads only the comments after them, the others' results being on the comments already."""
    marker_kinds: frozenset[str] | None = field(default=None, compare=False)
    """The kinds of the markers the comments hold (`readings.rule_comments`; None before it
    ran): what `holds` answers."""

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
