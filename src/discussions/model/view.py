"""`Discussion`'s view of its derived `State`: the one field list (`fields`). Each `Field` is an
attribute (a copy of what it reads from the state) and, unless its `key` is None, an entry of
`Discussion.to_dict`, in the order of this class body. `Discussion` inherits it; a field added
for new state goes here, beside the rule that derives it (`derive.rules`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..derive.contrarian import challenge_entry
from ..derive.runlog import RunRecord
from ..derive.state import Item, State
from ..settings.language import discussion_language
from .fields import Field, JsonEntry
from .sections import BY_KEY

if TYPE_CHECKING:
    from ..derive.choices import Choice
    from .discussion import Discussion


def _section(key: str) -> Field[list[Item]]:
    """The items of the section `key` of `sections.SECTIONS` (its key is the JSON's)."""
    section = BY_KEY[key]
    return Field(lambda s: list(s.items[section.marker]), f"{section.heading}, in file order.")


def _template_name(s: State) -> str | None:
    """The template's name in the JSON: the one found, else the header's as written."""
    return s.template.name if s.template else s.doc.header.get("template")


def _latest_run(runs: list[RunRecord]) -> RunRecord:
    """The latest run the file records (an empty one when none)."""
    return runs[-1] if runs else RunRecord(0)


def _phase_value(d: Discussion, name: str) -> Any:
    """`name` of the current phase's rules as they apply now (None without a template)."""
    info = d.phase_info
    return getattr(info, name) if info else None


def _latest_choice(s: State) -> Choice | None:
    """`choices.latest_choice`, its modules loaded only for a file with a ``CHOICE`` line
    (every `status` reads this field)."""
    if not any(m.kind == "choice" for m in s.doc.engine_markers):
        return None
    from ..derive.choices import latest_choice

    return latest_choice(s)


class StateView:
    """The fields of a discussion's derived state; the subclass gives `_s` (the `State`)."""

    @property
    def _s(self) -> State:
        raise NotImplementedError

    # -- state -------------------------------------------------------------------------
    # The view of the derived `State`, one field list (`fields`): each `Field` is an
    # attribute (a copy) and, unless `key` is None, an entry of `to_dict`, in this order.

    _json_file = JsonEntry("file", lambda d: str(d.path))
    title = Field(lambda s: s.title)
    phase = Field(
        lambda s: s.phase, "The current phase id: the header's, then the last transition's."
    )
    _json_phase_title = JsonEntry("phase_title", lambda d: _phase_value(d, "title"))
    _json_voting_mode = JsonEntry("voting_mode", lambda d: _phase_value(d, "voting_mode"))
    status = Field(lambda s: s.status)
    template = Field(lambda s: s.template, json=_template_name)
    participants = Field(
        lambda s: list(s.participants), "Aliases named in the header (or the template's defaults)."
    )
    comments = Field(lambda s: list(s.comments))
    votes = Field(
        lambda s: dict(s.votes),
        "Current votes: each voter's latest since the last reset or transition.",
    )
    vote_sources = Field(lambda s: dict(s.vote_sources), "Each vote's provider, model, confidence.")
    failed_seats = Field(lambda s: list(s.failed_seats), "Seats whose call failed, with no vote.")
    _json_consensus = JsonEntry("consensus", lambda d: d.consensus_result.to_dict())
    questions = _section("questions")
    decisions = _section("decisions")
    todos = _section("todos")
    assigned = _section("assigned")
    done = _section("done")
    concerns = _section("concerns")
    pending_mentions = Field(lambda s: list(s.pending))
    _json_consensus_mode = JsonEntry("consensus_mode", lambda d: d.consensus_mode)
    scores = Field(
        lambda s: dict(s.scores),
        "Current scores (0-10): each scorer's latest since the last reset or transition.",
    )
    pending_issues = Field(
        lambda s: list(s.pending_issues),
        "Open ``PENDING:`` issues of each scorer's latest scored comment.",
    )
    _json_run = JsonEntry("run", lambda d: _latest_run(d._s.runs).to_dict())
    escalation = Field(
        lambda s: s.escalation, "An escalation to the humans that no human has answered yet."
    )
    diagnosis = Field(
        lambda s: s.diagnosis, "Root-cause candidates and their convergence (diagnostic mode)."
    )
    motions = Field(lambda s: list(s.motions), "Motions, with seconds, ballots and result.")
    passes = Field(
        lambda s: list(s.passes),
        "(who, line) of each recorded pass (a participant had nothing to add).",
        json=lambda s: [{"by": by, "line": line} for by, line in s.passes],
    )
    evidence = Field(lambda s: list(s.evidence), "Evidence blocks, then pending requests.")
    drafts = Field(lambda s: list(s.drafts), "A documentation loop's drafts, in file order.")
    applies = Field(lambda s: list(s.applies), "APPLY blocks in file order, with reviews.")
    dissent = Field(
        lambda s: s.dissent,
        "The minority report: votes against at the end, NO/ABSTAIN ballots on passed motions, "
        "unanswered concerns (`derive.dissent`).",
        json=lambda s: s.dissent.to_dict(),
    )
    warnings = Field(
        lambda s: list(s.warnings),
        json=lambda s: [{"line": w.line, "message": w.message} for w in s.warnings],
    )
    # Attributes only (key=None).
    header = Field(lambda s: dict(s.doc.header), key=None)
    preamble = Field(
        lambda s: s.doc.preamble,
        "The text between the header and the first comment (title, context, ...).",
        key=None,
    )
    mention_typos = Field(
        lambda s: list(s.mention_typos),
        "(mentioned name, closest participant alias, line) for mentions that match nobody but "
        "look like a participant's alias mistyped.",
        key=None,
    )
    phase_started_line = Field(
        lambda s: s.phase_line,
        "Line of the transition into the current phase (0: the header's).",
        key=None,
    )
    status_changed_line = Field(
        lambda s: s.status_line,
        "Line of the last status change (0: the header's status).",
        key=None,
    )
    humans = Field(
        lambda s: set(s.humans), "Authors who are not registered participants.", key=None
    )
    rounds = Field(lambda s: list(s.rounds), "Rounds of the latest `discussions run`.", key=None)
    runs = Field(
        lambda s: list(s.runs), "Every run the file records (`runlog`), in order.", key=None
    )
    last_stop = Field(
        lambda s: s.stops[-1] if s.stops else None, "Why the latest run stopped.", key=None
    )
    expected_voters = Field(
        lambda s: list(s.expected_voters),
        "Display names of the discussion's participants whose votes count.",
        key=None,
    )
    first_ballot = Field(
        lambda s: dict(s.first_ballot),
        "Each voter's first vote in the current phase: name -> (vote, line).",
        key=None,
    )
    too_fast = Field(lambda s: s.too_fast, "Agreed too fast (`derive.contrarian`).", key=None)
    challenge = Field(
        lambda s: s.challenge, "The contrarian's challenge (`derive.contrarian`).", key=None
    )
    _json_challenge = JsonEntry("challenge", lambda d: challenge_entry(d, d.grounding))
    positions = Field(
        lambda s: s.positions,
        "Every author's positions round by round, and their flips (`derive.positions`).",
        key=None,
    )
    phase_info = Field(
        lambda s: s.phase_info,
        "The current phase's definition, as its rules apply now (`derive.ballots`).",
        key=None,
    )
    usage = Field(
        lambda s: s.usage, "Tokens, cost and calls of the AI answers (`derive.usage`).", key=None
    )
    retrials = Field(
        lambda s: list(s.retrials),
        "Re-trials of the first ballot on another provider (`derive.retrials`).",
    )
    outcomes = Field(
        lambda s: list(s.outcomes),
        "How the decision turned out, as people judged it, in file order (`derive.outcomes`).",
    )
    jump = Field(
        lambda s: s.jump,
        "The ballot's jump to unanimous READY on nothing checked (`derive.contrarian`).",
        key=None,
    )
    choice = Field(
        _latest_choice,
        "The latest King's Choice after a consensus (`derive.choices`).",
        json=lambda s: c.to_dict() if (c := _latest_choice(s)) else None,
    )
    rechecks = Field(
        lambda s: list(s.rechecks),
        "RECHECK blocks in file order: the council's votes on whether the code a decision "
        "governs still conforms to it (`derive.rechecks`).",
    )
    language = Field(
        lambda s: discussion_language(s.doc.header, s.workspace.config.data),
        "The language participants answer in: the ``Language:`` header, else the "
        "``language`` setting; None: not set (`settings.language`).",
    )
