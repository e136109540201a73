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
from typing import TYPE_CHECKING, Any

from ...derive.dissent import Concern
from ...derive.quorum import independent_sources
from ...derive.voting import calculate_consensus
from ...errors import ApplyError, DiscussionsError, UnknownParticipant
from ...git.confine import has_commit
from ...git.review import DIFF_BUDGET, collect_changes, render_review_context
from ...git.run import repo_root
from ...model.handoff import build_handoff
from ...providers.window import chars_for_tokens, prompt_tokens
from ...settings.apply import apply_settings
from ...settings.evidence import evidence_settings
from ...syntax import clock
from ...syntax.apply import ApplyRecord, ApplyReviewRecord, render_apply_review
from ..prompt.prompts import max_chars_for
from ..turn.failures import answered_line
from ..turn.outcomes import TurnResult
from .motions import voting_participants

if TYPE_CHECKING:
    from ...derive.applies import Apply, Review
    from ...model.discussion import Discussion
    from ...settings.participants import Participant
    from ..turn.asking import TurnAsker

IMPLEMENTED = "IMPLEMENTED"

_REVIEW_CALLOUT = (
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


_NO_REVISE_NOTE = (
    "the council asks for changes; nobody was asked to revise: the lead revises with "
    "`discussions apply FILE --review`"
)


Revise = Callable[[ApplyRecord, list[str]], ApplyRecord]
"""Given the apply under review and the blockers (``"Name: text"`` each), the lead revises
the branch and returns the record of that revision (a new commit on the same branch, or why
there is none; `engine.apply.revise` records it as the next ``APPLY`` block)."""


@dataclass(slots=True)
class _ReviewRound:
    """One vote of the council on one state of the branch."""

    revision: int
    """0 for the first review, then one more for each revision."""
    commit: str
    result: str = "waiting"
    """``implemented``, ``changes``, ``unresolved`` (recorded), ``waiting`` or ``budget``."""
    votes: dict[str, str] = field(default_factory=dict)
    blockers: list[Concern] = field(default_factory=list)
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
    """The apply whose change the council voted on last (a revision is an apply of its own)."""
    stage: str = "waiting"
    """``implemented``, ``unresolved`` (revisions used up), ``changes`` (blockers stand and
    no `revise` was given), ``waiting`` (a call failed or a vote is missing: run the review
    again) or ``budget`` (the budget stopped it)."""
    rounds: list[_ReviewRound] = field(default_factory=list)
    note: str = ""

    @property
    def blockers(self) -> list[Concern]:
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
    runner: TurnAsker,
    d: Discussion,
    applied: ApplyRecord | None = None,
    revise: Revise | None = None,
    *,
    provider: str | None = None,
    max_revisions: int | None = None,
    on_step: Callable[[str], None] | None = None,
) -> ReviewOutcome:
    """Review `applied` (default: the latest committed apply) in `d`, revising with `revise`
    while blockers stand, at most `max_revisions` times (default ``apply.max_revisions``);
    see the module docstring. Where the review stands is read from the file: a review that
    asked for changes goes on with the revision; a finished one asks nobody."""
    d.adopt_workspace(runner.workspace)
    d.reload()
    applied = applied or _latest_applied(d)
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
    last = _latest_review(d, applied.number)
    if last is not None and last.result != "changes":
        outcome.stage = last.result
        outcome.note = f"apply {applied.number} was reviewed already (line {last.line})"
        return outcome
    now = _standing(d, applied, last)
    loop = _Loop(runner, d, voters, provider, limit, outcome, on_step)
    while loop.step(now, revise) and loop.next is not None:
        now = loop.next
    return outcome


@dataclass(slots=True)
class _Standing:
    """Where a review stands: the change under review, its revision, and the blockers that
    wait for the lead (None: the council's vote is due)."""

    applied: ApplyRecord
    revision: int
    blockers: list[str] | None = None
    yes: tuple[str, ...] = ()
    no: tuple[str, ...] = ()

    @classmethod
    def after(cls, applied: ApplyRecord, review: Review) -> _Standing:
        """After `review` of `applied`, which asked for changes."""
        return cls(applied, review.revision, list(review.blockers), review.yes, review.no)


def _standing(d: Discussion, applied: ApplyRecord, last: Review | None) -> _Standing:
    """Where the review of `applied` stands, `last` its latest review: blockers waiting for
    the lead, else a vote due, counted one revision on from the latest review of an earlier
    apply on the same branch (a revision is recorded as an apply of its own)."""
    if last is not None:
        return _Standing.after(applied, last)
    earlier = [
        r
        for a in d.applies
        if a.branch == applied.branch and a.number < applied.number
        for r in a.reviews
    ]
    return _Standing(applied, earlier[-1].revision + 1 if earlier else 0)


@dataclass(slots=True)
class _Loop:
    """One run of the review: what each step needs, and the standing a step leads to."""

    runner: TurnAsker
    d: Discussion
    voters: list[Participant]
    provider: str | None
    limit: int
    outcome: ReviewOutcome
    on_step: Callable[[str], None] | None
    next: _Standing | None = None

    def step(self, now: _Standing, revise: Revise | None) -> bool:
        """The council votes on `now` or the lead revises it; False when the review ends."""
        if now.blockers is None and not self._vote(now):
            return False
        assert now.blockers is not None
        if revise is None:
            self.outcome.stage, self.outcome.note = "changes", _NO_REVISE_NOTE
            return False
        _say(
            self.on_step, f"Revision {now.revision + 1}: {len(now.blockers)} blocker(s) to the lead"
        )
        revised = revise(now.applied, now.blockers)
        if (
            revised.result == "committed"
            and revised.commit
            and revised.commit != now.applied.commit
        ):
            self.next = _Standing(revised, now.revision + 1)
            return True
        why = revised.reason or f"its result is {revised.result}"
        _record_review(
            self.d, now.applied, now.revision, "unresolved", now.blockers, now.yes, now.no
        )
        self.outcome.stage = "unresolved"
        self.outcome.note = f"revision {now.revision + 1} made no new commit: {why}"
        return False

    def _vote(self, now: _Standing) -> bool:
        """The council's vote on `now`, recorded; True when it asks for changes and a
        revision is left (`now.blockers` then holds them)."""
        applied, outcome = now.applied, self.outcome
        _say(
            self.on_step,
            f"Review of apply {applied.number}, revision {now.revision} ({_short(applied)})",
        )
        rnd = _review_round(self.runner, self.d, applied, now.revision, self.voters, self.provider)
        outcome.rounds.append(rnd)
        outcome.apply = applied.number  # the apply whose change the last vote was on
        for o in rnd.turn.outcomes if rnd.turn else []:
            _say(self.on_step, f"  {answered_line(o)}" + (f", {o.vote}" if o.vote else ""))
        if rnd.result in ("waiting", "budget"):
            outcome.stage, outcome.note = rnd.result, _stopped_note(rnd)
            return False
        if rnd.result == "changes" and now.revision >= self.limit:
            rnd.result = "unresolved"  # no revision left
        blockers = [f"{b.by}: {b.text}" for b in rnd.blockers]
        yes = tuple(n for n, v in rnd.votes.items() if v == "READY")
        no = tuple(n for n, v in rnd.votes.items() if v != "READY")
        _record_review(self.d, applied, now.revision, rnd.result, blockers, yes, no)
        _say(self.on_step, f"Revision {now.revision}: {rnd.result}.")
        outcome.stage = rnd.result
        now.blockers, now.yes, now.no = blockers, yes, no
        return rnd.result == "changes"


def _latest_applied(d: Discussion) -> Apply:
    """The latest apply of `d` that committed a change; `ApplyError` when its block fails its
    digest (an edited block could point the council at another commit)."""
    for found in reversed(d.applies):
        if found.result == "committed" and found.commit:
            if not found.intact:
                raise ApplyError(
                    f"apply {found.number} of {d.path.name} (line {found.line}) does not match "
                    f"its digest, so it was edited after it was written; `discussions check "
                    f"{d.path.name}` says where. Nothing was reviewed."
                )
            return found
    raise ApplyError(
        f"{d.path.name} records no apply that committed a change; run `discussions apply "
        f"{d.path.name}` first"
    )


def pending_review(d: Discussion) -> Apply | None:
    """The latest committed apply of `d` when its review is not finished (none yet, or the
    council asked for changes): what `review_apply` would vote on or have revised; None when
    its latest review ended implemented or unresolved. `ApplyError` when no apply committed."""
    applied = _latest_applied(d)
    last = _latest_review(d, applied.number)
    return applied if last is None or last.result == "changes" else None


def review_due(d: Discussion) -> bool:
    """Whether ``apply: review`` asks for reviews and `d`'s latest committed apply has had
    none yet, its commit in this clone (what `discussions run` then does instead of rounds)."""
    waiting = _awaiting(d)
    return waiting is not None and _in_clone(d, waiting)


def review_note(d: Discussion) -> str:
    """Why a review that `review_due` would ask for cannot run here ("" when none does): the
    apply's commit is not in this clone (its branch stays in the clone that made it, while
    the block travels with the file)."""
    waiting = _awaiting(d)
    if waiting is None or _in_clone(d, waiting):
        return ""
    return _missing(waiting) + " to have the council review it"


def _missing(applied: ApplyRecord) -> str:
    return (
        f"apply {applied.number}'s change ({(applied.commit or '')[:12]} on the branch "
        f"`{applied.branch}`) is not in this clone: fetch that branch from the clone that "
        "made it"
    )


def _awaiting(d: Discussion) -> Apply | None:
    if not apply_settings(d.workspace.config, d.template).review:
        return None
    found = [a for a in d.applies if a.result == "committed" and a.commit]
    if not found or _latest_review(d, found[-1].number) is not None:
        return None
    return found[-1]


def _in_clone(d: Discussion, applied: ApplyRecord) -> bool:
    try:
        root = repo_root(d.path)
    except DiscussionsError:
        return False
    return has_commit(root, applied.commit)


def _latest_review(d: Discussion, number: int) -> Review | None:
    """The latest review of apply `number`, if any."""
    reviews = [r for a in d.applies if a.number == number for r in a.reviews]
    return reviews[-1] if reviews else None


def _review_round(
    runner: TurnAsker,
    d: Discussion,
    applied: ApplyRecord,
    revision: int,
    voters: Sequence[Participant],
    provider: str | None = None,
) -> _ReviewRound:
    """Ask `voters` to vote on `applied`'s change (one turn) and count the votes; nothing is
    recorded here (`_record_review` writes the result)."""
    commit = _commit_of(applied)
    rnd = _ReviewRound(revision, commit)
    callout, rnd.omitted = _review_callout(runner, d, applied, voters, provider, revision)
    rnd.turn, rnd.result, rnd.votes, rnd.blockers = council_vote(
        runner, d, voters, callout, provider
    )
    return rnd


def council_vote(
    runner: TurnAsker,
    d: Discussion,
    voters: Sequence[Participant],
    callout: str,
    provider: str | None = None,
) -> tuple[TurnResult, str, dict[str, str], list[Concern]]:
    """Ask `voters` to vote on `callout` (one turn) and count the votes cast in it with the
    project's thresholds, every voter expected: (the turn, ``implemented`` on consensus,
    ``changes`` when blockers stand, ``budget`` when the budget stopped it, else ``waiting``,
    each voter's vote, the blockers). Nothing is recorded here (a review or a recheck
    records its block)."""
    d.reload()
    start = d.text.count("\n")  # every line the round writes comes after this one
    turn = runner.run_turn(d, [p.alias for p in voters], callout, provider=provider, council=False)
    if turn.budget_stop is not None:
        return turn, "budget", {}, []
    d.reload()
    names = [p.name for p in voters]
    votes, blockers = votes_since(d, start, names)
    if any(n not in votes for n in names):
        return turn, "waiting", votes, blockers  # a call failed, or an answer had no vote
    fresh = [v for v in d.vote_sources.values() if v.voter in votes and v.line > start]
    counted = calculate_consensus(
        votes,
        d.workspace.config.voting,
        humans=d.humans,
        expected=names,
        ready_sources=len(independent_sources(fresh)),  # consensus.distinct_providers
    )
    if counted.reached:  # a minority's concerns stand in its comment, not as blockers
        return turn, "implemented", votes, []
    return turn, "changes" if blockers else "waiting", votes, blockers  # waiting: a human READY


def votes_since(
    d: Discussion, start: int, order: Sequence[str] = ()
) -> tuple[dict[str, str], list[Concern]]:
    """Each author's latest vote in a comment after line `start`, and the blockers: the
    ``CONCERN:`` lines of the latest comment of each author who voted CHANGES or REJECT.
    Authors named in `order` come first, in that order (answers arrive in any order)."""
    voted = {c.author: c for c in d.comments if c.line > start and c.vote}
    names = [n for n in order if n in voted] + [n for n in voted if n not in order]
    latest = {n: voted[n] for n in names}
    votes = {name: c.vote for name, c in latest.items() if c.vote}
    blockers: list[Concern] = []
    for name, c in latest.items():
        if c.vote == "READY":
            continue
        found = [Concern(name, m.text.strip(), m.line) for m in c.markers if m.kind == "CONCERN"]
        blockers += found or [Concern(name, f"(voted {c.vote}, no CONCERN: given)", c.line)]
    return votes, blockers


def _review_callout(
    runner: TurnAsker,
    d: Discussion,
    applied: ApplyRecord,
    voters: Sequence[Participant],
    provider: str | None = None,
    revision: int = 0,
) -> tuple[str, list[str]]:
    """The task of a review round: the decisions and the change, within `diff_budget`.
    Returns it and the files whose diff was left out."""
    commit = _commit_of(applied)
    if not _in_clone(d, applied):
        raise ApplyError(_missing(applied) + " to review it")
    base = _first_base(d, applied)
    exclude = evidence_settings(d.workspace.config).exclude
    changes = collect_changes(d.path.parent, f"{base}..{commit}", exclude=exclude)
    if not changes.files and not changes.refused:
        raise ApplyError(
            f"apply {applied.number} changed nothing ({base[:12]}..{commit[:12]}); "
            "there is no change to review"
        )
    changes.branch = applied.branch
    context, omitted = render_review_context(changes, diff_budget(runner, d, voters, provider))
    revised = f", revision {revision}" if revision else ""
    callout = _REVIEW_CALLOUT.format(
        lead=applied.lead,
        branch=applied.branch.replace("`", "'"),
        number=applied.number,
        revised=revised,
        commit=commit[:12],
        decisions="\n".join(decision_lines(d)) or "(no DECISION: line; judge by the discussion)",
        change=context,
    )
    return callout, omitted


def _first_base(d: Discussion, applied: ApplyRecord) -> str:
    """Where the branch of `applied` started: the base of the first apply on that branch (a
    revision's own base is the tip it started from), so a review sees the whole change."""
    same = [a for a in d.applies if a.branch == applied.branch and a.number <= applied.number]
    return min(same, key=lambda a: a.number).base if same else applied.base


def decision_lines(d: Discussion) -> list[str]:
    """The decisions a change is reviewed against, as the hand-off gives them (``DECISION:``
    items and passed motions)."""
    return [f"- {i.text} ({i.author}, line {i.line})" for i in build_handoff(d).decisions]


def diff_budget(
    runner: TurnAsker, d: Discussion, voters: Sequence[Participant], provider: str | None = None
) -> int:
    """Characters of diff a review prompt may hold: `DIFF_BUDGET`, and at most half of the
    prompt limit (``context.max_chars``) and of the smallest window among `voters`."""
    budget = min(DIFF_BUDGET, max_chars_for(d) // 2)
    for p in voters:
        window = runner.window_for(p, provider)
        if window is not None:
            budget = min(budget, chars_for_tokens(prompt_tokens(window)) // 2)
    return budget


def _record_review(
    d: Discussion,
    applied: ApplyRecord,
    revision: int,
    result: str,
    blockers: Sequence[str] = (),
    yes: Sequence[str] = (),
    no: Sequence[str] = (),
) -> None:
    """Append the ``APPLY-REVIEW`` block of a vote on `applied`; when `result` is
    implemented, the status change to ``IMPLEMENTED`` in the same append."""
    record = ApplyReviewRecord(
        apply=applied.number,
        revision=revision,
        result=result,
        commit=_commit_of(applied),
        yes=tuple(yes),
        no=tuple(no),
        blockers=tuple(blockers),
        at=clock.now_stamp(),
    )
    d.reload()
    d.add_block(render_apply_review(record))
    if result == "implemented" and d.status != IMPLEMENTED:
        d.set_status(IMPLEMENTED, strict=False)
    d.save()


def _commit_of(applied: ApplyRecord) -> str:
    if not applied.commit:
        raise ApplyError(
            f"apply {applied.number} made no commit ({applied.result}); there is no change to "
            "review"
        )
    return applied.commit


def _short(applied: ApplyRecord) -> str:
    return (applied.commit or "no commit")[:12]


def _stopped_note(rnd: _ReviewRound) -> str:
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
