"""The recheck: whether the code a decision governs, as it is now, still conforms to the
decision, once that code has drifted (docs/drift.md). It is the conformance review
(`conformance`) asked of the repository as it stands instead of an apply's branch: every
voting participant is asked, in one turn, with the decisions and the changes to the governed
paths since a commit (the commits, a table of files, the diff, within the same budget); the
votes are counted as a review's are (`conformance.council_vote`); a ``RECHECK`` block records
the result, ``conforms`` on consensus or ``departs`` with the blockers that stand. A vote that
is missing (a failed call, an answer without a vote) records nothing: run it again."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...derive.dissent import Concern
from ...errors import DiscussionsError, UnknownParticipant
from ...git.review import collect_changes, render_review_context
from ...git.run import git_text, repo_root
from ...settings.evidence import evidence_settings
from ...syntax import clock
from ...syntax.recheck import RecheckRecord, render_recheck
from ..turn.outcomes import TurnResult
from .conformance import council_vote, decision_lines, diff_budget
from .motions import voting_participants

if TYPE_CHECKING:
    from ...model.discussion import Discussion
    from ..turn.asking import TurnAsker

_CALLOUT = (
    "This discussion decided what the code below must do. The code it governs has changed "
    "since commit {since} (its decision, or its last check); the repository is now at "
    "{commit}. Recheck it: does the code as it is now still conform to the decisions?\n\n"
    "### The decisions\n\n{decisions}\n\n### What changed since {since}\n\n{change}\n\n"
    "Vote READY if the code still conforms to the decisions, CHANGES if it departs from them "
    "(write each departure that must be fixed, or decided anew, on its own line starting with "
    "CONCERN:), REJECT if it goes against them outright. Judge against the decisions, not "
    "your own preferences. EVIDENCE: read shows the project as it is checked out, which is "
    "the code under review. This recheck collects votes whatever the phase says of votes. "
    'Respond with JSON only: {{"comment": "your reasons and CONCERN: lines", '
    '"vote": "READY" | "CHANGES" | "REJECT"}}.'
)

_RESULTS = {"implemented": "conforms", "changes": "departs"}
"""A vote's outcome (`council_vote`) as the recheck records it."""


@dataclass(slots=True)
class RecheckOutcome:
    """What `recheck_code` did."""

    file: str
    since: str
    commit: str
    stage: str = "waiting"
    """``conforms``, ``departs`` (recorded), ``waiting`` (a vote is missing: run it again) or
    ``budget`` (the budget stopped it)."""
    votes: dict[str, str] = field(default_factory=dict)
    blockers: list[Concern] = field(default_factory=list)
    omitted: list[str] = field(default_factory=list)
    """Files whose diff was left out to stay within the budget."""
    turn: TurnResult | None = None
    line: int = 0
    """Where the ``RECHECK`` block was written (0: none was)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "since": self.since,
            "commit": self.commit,
            "stage": self.stage,
            "votes": dict(self.votes),
            "blockers": [b.to_dict() for b in self.blockers],
            "omitted": list(self.omitted),
            "line": self.line,
            "turn": self.turn.to_dict() if self.turn else None,
        }


def recheck_code(
    runner: TurnAsker,
    d: Discussion,
    since: str,
    paths: Sequence[str],
    *,
    provider: str | None = None,
    on_step: Callable[[str], None] | None = None,
) -> RecheckOutcome:
    """Have the council of `d` recheck the code `paths` (git pathspecs) match, as changed in
    ``since..HEAD``; see the module docstring. `DiscussionsError` when nothing there changed."""
    d.adopt_workspace(runner.workspace)
    d.reload()
    voters = voting_participants(d)
    if not voters:
        raise UnknownParticipant(
            "the discussion has no voting participant to recheck the code; add one to its "
            "participants: line"
        )
    root = repo_root(d.path)
    head = git_text(["rev-parse", "HEAD"], root).strip()
    outcome = RecheckOutcome(str(d.path), since, head)
    exclude = evidence_settings(d.workspace.config).exclude
    changes = collect_changes(root, f"{since}..HEAD", exclude=exclude, paths=tuple(paths))
    if not changes.files and not changes.refused:
        raise DiscussionsError(
            f"the code its decisions govern has not changed since {since[:12]}: there is "
            "nothing to recheck"
        )
    context, outcome.omitted = render_review_context(
        changes, diff_budget(runner, d, voters, provider)
    )
    decisions = "\n".join(decision_lines(d)) or "(no DECISION: line; judge by the discussion)"
    callout = _CALLOUT.format(
        since=since[:12], commit=head[:12], decisions=decisions, change=context
    )
    if on_step is not None:
        on_step(f"Recheck of the code at {head[:12]} (changed since {since[:12]})")
    outcome.turn, result, outcome.votes, outcome.blockers = council_vote(
        runner, d, voters, callout, provider
    )
    outcome.stage = _RESULTS.get(result, result)
    if outcome.stage in _RESULTS.values():
        outcome.line = _record(d, outcome)
    return outcome


def _record(d: Discussion, outcome: RecheckOutcome) -> int:
    """Append the ``RECHECK`` block of `outcome`; the line it starts on."""
    d.reload()
    yes = tuple(n for n, v in outcome.votes.items() if v == "READY")
    record = RecheckRecord(
        number=len(d.rechecks) + 1,
        since=outcome.since,
        commit=outcome.commit,
        result=outcome.stage,
        yes=yes,
        no=tuple(n for n in outcome.votes if n not in yes),
        blockers=tuple(f"{b.by}: {b.text}" for b in outcome.blockers),
        at=clock.now_stamp(),
    )
    d.add_block(render_recheck(record))
    d.save()
    d.reload()
    return d.rechecks[-1].line if d.rechecks else 0
