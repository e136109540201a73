"""The acts on a decided discussion: draft the document that records it (the documentation
loop), apply its change (a lead on a new branch, after a person's consent) and have the
council review the change applied (the conformance review).

An apply is three calls because a person consents in between: `plan_apply` makes the plan
(nothing runs), the interface shows it and asks, `apply` carries the consented plan out and
`review_after` has the council review the change when ``apply: review`` asks for it. Asking is the
interface's part (the CLI's y/N, never implied without a terminal); everything else is here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadInput
from ..model.discussion import Discussion
from ..settings.workspace import Workspace

if TYPE_CHECKING:
    from ..engine.apply.plan import Plan
    from ..engine.council.conformance import ReviewOutcome
    from ..engine.council.documentation import DocOutcome
    from ..git.parley import FileChoice
    from ..syntax.apply import ApplyRecord

Output = Callable[[str], None]
"""Follows a lead's output as it comes."""
DONE = ("committed", "unchanged")
"""The results of an apply that did what was asked."""


@dataclass(slots=True)
class Applied:
    """What `apply` came to: the APPLY record as written, the plan it carried out, and the
    council's review of the change when ``apply: review`` had one run."""

    plan: Plan
    record: ApplyRecord
    review: ReviewOutcome | None = None

    @property
    def ok(self) -> bool:
        """Committed (or nothing to change), no test failed, a review found it implemented."""
        if self.record.result not in DONE or self.record.tests == "failed":
            return False
        return self.review is None or self.review.stage == "implemented"

    def to_dict(self) -> dict[str, Any]:
        record = asdict(self.record)
        record["files"] = [{"path": p, "added": a, "removed": r} for p, a, r in self.record.files]
        return {
            "apply": record,
            "lead_reason": self.plan.reason,
            "handoff": self.plan.handoff.to_dict(),
            "review": self.review.to_dict() if self.review is not None else None,
        }


def check_forced(force: bool, reason: str | None, *, needs_reason: bool = False) -> None:
    """Refuse a `reason` without `force` and, when the act records why (`needs_reason`: an
    apply), `force` without a reason. The acts check it first; an interface that resolves the
    file before calling one may check it before that, so a usage error comes first."""
    if reason is not None and not force:
        raise BadInput("--reason needs --force", "reason")
    if needs_reason and force and reason is None:
        raise BadInput("--force needs --reason TEXT (it is recorded)", "force")


def draft(
    ws: Workspace,
    path: Path,
    *,
    leader: str | None = None,
    force: bool = False,
    reason: str | None = None,
    provider: str | None = None,
) -> DocOutcome:
    """Run (or resume) the documentation loop: the leader drafts, the council approves or
    asks for changes. `force` replaces a file at the document's path; with `reason`, an
    undecided discussion is drafted anyway and the reason recorded."""
    from ..engine.council.documentation import draft_document
    from ..engine.runner import Runner

    check_forced(force, reason)
    d = Discussion.load(path, ws)
    return draft_document(
        Runner(ws), d, leader=leader, force=force, provider=provider, force_reason=reason
    )


def plan_apply(
    ws: Workspace,
    path: Path,
    *,
    lead: str | None = None,
    branch: str | None = None,
    timeout: float | None = None,
    force: bool = False,
    reason: str | None = None,
    acknowledge_questions: bool = False,
    dry_run: bool = False,
    provider: str | None = None,
) -> Plan:
    """The plan of an apply (who leads, on which branch, in which confinement): nothing runs
    and nothing is written. `force` applies an undecided discussion; it needs a `reason`;
    `provider` is the lead's only provider (a run's ``--provider``), else its chain's writer."""
    from ..engine.apply.plan import ApplyOptions, prepare

    check_forced(force, reason, needs_reason=True)
    d = Discussion.load(path, ws)
    options = ApplyOptions(lead, branch, timeout, reason, acknowledge_questions, provider)
    return prepare(d, options, dry_run=dry_run)


def apply(
    plan: Plan, *, on_output: Output | None = None, parley: FileChoice | None = None
) -> Applied:
    """Carry out the `plan` a person consented to: the lead makes the change on its branch
    and the APPLY block is appended. `on_output` follows the lead as it works; `parley` asks
    the person about each file it changed (only the accepted ones are committed). Then call
    `review_after` (an interface says what the apply came to in between)."""
    from ..engine.apply.plan import carry_out

    plan.parley = parley
    return Applied(plan, carry_out(plan, on_output=on_output))


def review_after(
    done: Applied,
    *,
    on_step: Callable[[str], None] | None = None,
    on_output: Output | None = None,
) -> Applied:
    """`done` with the council's review of its change, when ``apply: review`` asks for one
    and the change was committed (the consent covers the lead's revisions the plan named:
    `Plan.revisions`); unchanged otherwise. `on_step` hears each vote, `on_output` the lead
    revising."""
    plan, record = done.plan, done.record
    if record.result != "committed" or not plan.review_after():
        return done
    d = plan.discussion
    done.review = review_applied(
        d.workspace, d.path, record, revise=plan.revisions() > 0, timeout=plan.timeout,
        on_step=on_step, on_output=on_output,
    )  # fmt: skip
    return done


def review_applied(
    ws: Workspace,
    path: Path,
    applied: ApplyRecord | None = None,
    *,
    revise: bool = False,
    timeout: float | None = None,
    on_step: Callable[[str], None] | None = None,
    on_output: Output | None = None,
) -> ReviewOutcome:
    """Have the council review `applied` (default: the latest committed apply), its lead
    revising on the blockers only with `revise` (a person consented to it)."""
    from ..engine.apply.plan import lead_revise
    from ..engine.council.conformance import review_apply
    from ..engine.runner import Runner

    d = Discussion.load(path, ws)
    reviser = lead_revise(d, on_output=on_output, timeout=timeout) if revise else None
    return review_apply(Runner(ws), d, applied, reviser, on_step=on_step)
