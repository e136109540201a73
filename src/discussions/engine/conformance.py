"""The conformance review: whether an applied branch implements what the discussion decided.

`review_apply` runs a review round in the discussion itself, through the runner's turn path
(`Runner.run_turn`: providers and their fallback chains, the budget, appends under the lock,
``FAILED`` blocks for calls without an answer):

1. Every voting participant is asked, in parallel, with the decisions (``DECISION:`` items
   and passed motions) and the branch's change against its base, rendered as `review` renders
   a diff (`git.review.render_review_context`: the commits, a table of files, the diff in a
   fence it cannot close), within a character budget that also fits the smallest model
   window among them. They vote READY (the change implements the decisions), CHANGES (not
   yet; each blocker on a ``CONCERN:`` line) or REJECT.
2. The votes cast after the round began are counted with the project's consensus thresholds
   (`derive.voting.calculate_consensus`, ``consensus:`` in ``discussions.yaml``), every voting
   participant expected. Consensus: an ``APPLY-REVIEW`` block says implemented and the status
   becomes ``IMPLEMENTED``, in one append.
3. Otherwise the block says changes and lists the blockers; they go to `revise` (the lead
   revises on the same branch: a new commit), and the council votes again on the new change.
   After ``apply.max_revisions`` revisions (`settings.apply`) the block says unresolved, with
   the blockers that stand. Without `revise` (nobody consented to a lead's run) the review
   ends after the vote, at changes.

A round in which a voting participant got no answer (its ``FAILED`` block says why), or
gave no vote, records no result: the review stops as ``waiting`` and can be run again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..derive.voting import calculate_consensus
from ..errors import DiscussionsError, UnknownParticipant
from ..git.review import DIFF_BUDGET, collect_changes, render_review_context
from ..providers.window import chars_for_tokens, prompt_tokens
from ..syntax import clock
from .council import voting_participants
from .documentation import Blocker
from .outcomes import TurnResult
from .prompts import max_chars_for

if TYPE_CHECKING:
    from ..model.discussion import Discussion
    from ..settings.participants import Participant
    from .runner import Runner

IMPLEMENTED = "IMPLEMENTED"

REVIEW_CALLOUT = (
    "This discussion was decided, and {lead} implemented the decision on the branch "
    "`{branch}` (apply {number}{revised}). Review the change: does it implement what was "
    "decided?\n\n### The decisions\n\n{decisions}\n\n### The change\n\n{change}\n\n"
    "Vote READY if the change implements the decisions as they stand, CHANGES if it does "
    "not yet (write each blocker, something that must change before it does, on its own line "
    "starting with CONCERN:), REJECT if it goes against them. Judge the change against the "
    "decisions, not against your own preferences. EVIDENCE: read shows the project as it "
    "is checked out, not this branch: to read a file as the branch has it, ask "
    "EVIDENCE: git show {commit}:PATH. This review collects votes whatever the phase says "
    "of votes. Respond with JSON only: "
    '{{"comment": "your reasons and CONCERN: lines", "vote": "READY" | "CHANGES" | "REJECT"}}.'
)


NO_REVISE_NOTE = (
    "the council asks for changes; nobody was asked to revise: the lead revises with "
    "`discussions apply FILE --review`"
)


class Applied(Protocol):
    """What a review reviews: an apply's record (`syntax.apply.ApplyRecord`)."""

    @property
    def number(self) -> int: ...
    @property
    def lead(self) -> str: ...
    @property
    def branch(self) -> str: ...
    @property
    def base(self) -> str: ...
    @property
    def commit(self) -> str | None: ...
    @property
    def result(self) -> str: ...
    @property
    def reason(self) -> str: ...


Revise = Callable[[list[str]], Applied]
"""Given the blockers (``"Name: text"`` each), the lead revises the branch and returns the
record of that revision (a new commit on the same branch, or why there is none)."""


@dataclass(slots=True)
class ReviewRound:
    """One vote of the council on one state of the branch."""

    revision: int
    """0 for the first review, then one more for each revision."""
    commit: str
    result: str = "waiting"
    """``implemented``, ``changes``, ``unresolved`` (recorded), ``waiting`` or ``budget``."""
    votes: dict[str, str] = field(default_factory=dict)
    blockers: list[Blocker] = field(default_factory=list)
    omitted: list[str] = field(default_factory=list)
    """Files whose diff was left out to stay within the budget."""
    turn: TurnResult | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "revision": self.revision,
            "commit": self.commit,
            "result": self.result,
            "votes": dict(self.votes),
            "blockers": [b.to_dict() for b in self.blockers],
            "omitted": list(self.omitted),
            "turn": self.turn.to_dict() if self.turn else None,
        }


@dataclass(slots=True)
class ReviewOutcome:
    """What `review_apply` did."""

    file: str
    apply: int
    stage: str = "waiting"
    """``implemented``, ``unresolved`` (revisions used up), ``changes`` (blockers stand and
    no `revise` was given), ``waiting`` (a call failed or a vote is missing: run the review
    again) or ``budget`` (the budget stopped it)."""
    rounds: list[ReviewRound] = field(default_factory=list)
    note: str = ""

    @property
    def blockers(self) -> list[Blocker]:
        return self.rounds[-1].blockers if self.rounds else []

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "apply": self.apply,
            "stage": self.stage,
            "revisions": max(0, len(self.rounds) - 1),
            "blockers": [b.to_dict() for b in self.blockers],
            "rounds": [r.to_dict() for r in self.rounds],
            "note": self.note,
        }


def review_apply(
    runner: Runner,
    d: Discussion,
    applied: Applied,
    revise: Revise | None = None,
    *,
    provider: str | None = None,
    max_revisions: int | None = None,
    on_step: Callable[[str], None] | None = None,
) -> ReviewOutcome:
    """Review `applied` in `d`, revising with `revise` while blockers stand, at most
    `max_revisions` times (default ``apply.max_revisions``); see the module docstring."""
    from ..settings.apply import apply_settings

    d.adopt_workspace(runner.workspace)
    d.reload()
    limit = max_revisions
    if limit is None:
        limit = apply_settings(d.workspace.config, d.template).max_revisions
    voters = voting_participants(d)
    if not voters:
        raise UnknownParticipant(
            "the discussion has no voting participant to review the change; add one to its "
            "participants: line"
        )
    outcome = ReviewOutcome(str(d.path), applied.number)
    current, revision = applied, 0
    while True:
        _say(on_step, f"Review {revision + 1} of apply {applied.number} ({_short(current)})")
        rnd = review_round(runner, d, current, revision, voters, provider)
        outcome.rounds.append(rnd)
        if rnd.result in ("waiting", "budget"):
            outcome.stage, outcome.note = rnd.result, _stopped_note(rnd)
            return outcome
        if rnd.result == "changes" and revision >= limit:
            rnd.result = "unresolved"  # no revision left
        record_review(d, current, rnd)
        if rnd.result != "changes":
            outcome.stage = rnd.result
            return outcome
        if revise is None:
            outcome.stage, outcome.note = "changes", NO_REVISE_NOTE
            return outcome
        _say(on_step, f"Revision {revision + 1}: {len(rnd.blockers)} blocker(s) to the lead")
        revised = revise([f"{b.by}: {b.text}" for b in rnd.blockers])
        if revised.result != "committed" or not revised.commit or revised.commit == current.commit:
            why = revised.reason or f"its result is {revised.result}"
            gave_up = ReviewRound(revision, rnd.commit, "unresolved", rnd.votes, rnd.blockers)
            record_review(d, current, gave_up)
            outcome.rounds.append(gave_up)
            outcome.stage = "unresolved"
            outcome.note = f"revision {revision + 1} made no new commit: {why}"
            return outcome
        current, revision = revised, revision + 1


def review_round(
    runner: Runner,
    d: Discussion,
    applied: Applied,
    revision: int,
    voters: Sequence[Participant],
    provider: str | None = None,
) -> ReviewRound:
    """Ask `voters` to vote on `applied`'s change (one turn) and count the votes; nothing is
    recorded here (`record_review` writes the result)."""
    commit = _commit_of(applied)
    rnd = ReviewRound(revision, commit)
    callout, rnd.omitted = review_callout(runner, d, applied, voters, provider, revision)
    d.reload()
    start = d.text.count("\n")  # every line the round writes comes after this one
    rnd.turn = runner.run_turn(
        d, [p.alias for p in voters], callout, provider=provider, council=False
    )
    if rnd.turn.budget_stop is not None:
        rnd.result = "budget"
        return rnd
    d.reload()
    names = [p.name for p in voters]
    rnd.votes, rnd.blockers = votes_since(d, start, names)
    if any(n not in rnd.votes for n in names):
        return rnd  # waiting: a call failed, or an answer carried no vote
    counted = calculate_consensus(
        rnd.votes, d.workspace.config.voting, humans=d.humans, expected=names
    )
    if counted.reached:
        rnd.result = "implemented"
    elif rnd.blockers:
        rnd.result = "changes"
    return rnd  # not reached and nothing blocks: waiting (for a human READY)


def votes_since(
    d: Discussion, start: int, order: Sequence[str] = ()
) -> tuple[dict[str, str], list[Blocker]]:
    """Each author's latest vote in a comment after line `start`, and the blockers: the
    ``CONCERN:`` lines of the latest comment of each author who voted CHANGES or REJECT.
    Authors named in `order` come first, in that order (answers arrive in any order)."""
    voted = {c.author: c for c in d.comments if c.line > start and c.vote}
    names = [n for n in order if n in voted] + [n for n in voted if n not in order]
    latest = {n: voted[n] for n in names}
    votes = {name: c.vote for name, c in latest.items() if c.vote}
    blockers: list[Blocker] = []
    for name, c in latest.items():
        if c.vote == "READY":
            continue
        found = [Blocker(name, m.text.strip(), m.line) for m in c.markers if m.kind == "CONCERN"]
        blockers += found or [Blocker(name, f"(voted {c.vote}, no CONCERN: given)", c.line)]
    return votes, blockers


def review_callout(
    runner: Runner,
    d: Discussion,
    applied: Applied,
    voters: Sequence[Participant],
    provider: str | None = None,
    revision: int = 0,
) -> tuple[str, list[str]]:
    """The task of a review round: the decisions and the change, within `diff_budget`.
    Returns it and the files whose diff was left out."""
    commit = _commit_of(applied)
    changes = collect_changes(d.path.parent, f"{applied.base}..{commit}")
    if not changes.files:
        raise DiscussionsError(
            f"apply {applied.number} changed nothing ({applied.base[:12]}..{commit[:12]}); "
            "there is no change to review"
        )
    changes.branch = applied.branch
    context, omitted = render_review_context(changes, diff_budget(runner, d, voters, provider))
    revised = f", revision {revision}" if revision else ""
    callout = REVIEW_CALLOUT.format(
        lead=applied.lead,
        branch=applied.branch.replace("`", "'"),
        number=applied.number,
        revised=revised,
        commit=commit[:12],
        decisions="\n".join(decision_lines(d)) or "(no DECISION: line; judge by the discussion)",
        change=context,
    )
    return callout, omitted


def decision_lines(d: Discussion) -> list[str]:
    """The decisions a change is reviewed against: ``DECISION:`` items and passed motions."""
    lines = [f"- {i.text} ({i.author}, line {i.line})" for i in d.decisions]
    lines += [
        f"- Motion passed: {m.text} (moved by {m.by}, line {m.line})"
        for m in d.motions
        if m.result == "passed"
    ]
    return lines


def diff_budget(
    runner: Runner, d: Discussion, voters: Sequence[Participant], provider: str | None = None
) -> int:
    """Characters of diff a review prompt may hold: `DIFF_BUDGET`, and at most half of the
    prompt limit (``context.max_chars``) and of the smallest window among `voters`."""
    budget = min(DIFF_BUDGET, max_chars_for(d) // 2)
    for p in voters:
        window = runner.window_for(p, provider)
        if window is not None:
            budget = min(budget, chars_for_tokens(prompt_tokens(window)) // 2)
    return budget


def record_review(d: Discussion, applied: Applied, rnd: ReviewRound) -> None:
    """Append the ``APPLY-REVIEW`` block of `rnd`; when implemented, the status change to
    ``IMPLEMENTED`` in the same append."""
    d.reload()
    d.add_block(_render(applied, rnd))
    if rnd.result == "implemented" and d.status != IMPLEMENTED:
        d.set_status(IMPLEMENTED, strict=False)
    d.save()


def _render(applied: Applied, rnd: ReviewRound) -> str:
    yes = sorted(n for n, v in rnd.votes.items() if v == "READY")
    no = sorted(n for n, v in rnd.votes.items() if v != "READY")
    blockers = "\n".join(f"- {b.by}: {b.text}" for b in rnd.blockers)
    return (
        f"<!-- APPLY-REVIEW: {applied.number} | revision: {rnd.revision} | result: {rnd.result}"
        f" | yes: {', '.join(yes)} | no: {', '.join(no)} | commit: {rnd.commit}"
        f" | at: {clock.now_stamp()} -->\n\n"
        f"*Review of apply {applied.number}: {rnd.result}*\n\n{blockers}\n"
    )


def _commit_of(applied: Applied) -> str:
    if not applied.commit:
        raise DiscussionsError(
            f"apply {applied.number} made no commit ({applied.result}); there is no change to "
            "review"
        )
    return applied.commit


def _short(applied: Applied) -> str:
    return (applied.commit or "no commit")[:12]


def _stopped_note(rnd: ReviewRound) -> str:
    if rnd.result == "budget":
        return "the budget stopped the review; nothing was recorded"
    missing = [o.name for o in (rnd.turn.outcomes if rnd.turn else []) if o.vote is None]
    if missing:
        return (
            f"no vote from {', '.join(missing)}; nothing was recorded: run the review again "
            "(`discussions apply FILE --review`)"
        )
    return "consensus waits for a human READY vote (consensus.human_required); nothing recorded"


def _say(hook: Callable[[str], None] | None, text: str) -> None:
    if hook is not None:
        hook(text)
