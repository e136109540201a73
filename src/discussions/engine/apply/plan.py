"""`discussions apply`: a decided discussion carried into code by a lead, with a person's
consent, in a disposable clone of its own (in bubblewrap where installed), recorded in the file
as an ``APPLY`` block.

    plan = prepare(d, ApplyOptions(lead="architect"))  # refuses an undecided discussion
    show(plan.handoff.to_prompt(), plan.reason, plan.command_line())
    record = carry_out(plan, on_output=print)           # only after the person said yes
    again = revise(d, record.number, ["the migration is missing"])  # after a review

* `prepare` runs nothing and writes nothing: it checks that the discussion is decided (or
  that ``--force`` came with a reason, which is recorded), builds the hand-off, picks the lead
  by its capabilities (`leads.choose_lead`) and names the branch
  (``discussions/apply/<discussion>-<n>``, n the next APPLY number).
* `carry_out` needs the consent the interface asked for: it refuses open questions that were
  neither answered nor acknowledged, runs the lead (`apply_run.execute`: a new clone of
  HEAD, the provider's containment, the commit authored by the person who consented with a
  ``Co-authored-by`` trailer for the persona, the trusted ``test`` command), and appends the
  ``APPLY`` block under the file lock, numbered after the file's last one.
* `revise` is the same lead again on the same branch, the review's blockers appended to the
  hand-off: a new commit on top and a new ``APPLY`` block.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...derive.rules import derive
from ...errors import ApplyError, DiscussionsError, NoLead
from ...git import worktree
from ...git.confine import COMMIT_ID, git_says
from ...git.parley import FileChoice
from ...git.run import repo_root
from ...model import storage
from ...model.discussion import Discussion
from ...model.handoff import Handoff, build_handoff, forced_reason, is_decided
from ...providers.command import split_command
from ...providers.registry import ProviderRegistry
from ...settings.apply import apply_settings
from ...settings.evidence import evidence_settings
from ...syntax import clock
from ...syntax.apply import ApplyRecord, render_apply
from ..turn.routing import select_participants
from . import run as apply_run
from . import sandbox
from .leads import LeadChoice, choose_lead, default_chain
from .run import Job, LeadCommand, ProjectTests, RunResult
from .sandbox import Sandbox

if TYPE_CHECKING:
    from ...derive.applies import Apply
    from ..council.conformance import Revise

_BRANCH_PREFIX = "discussions/apply/"
_SUMMARY_LINES = 12
"""Lines of a lead's output an APPLY block keeps when it succeeded (its closing summary)."""
_COAUTHOR_DOMAIN = "discussions.invalid"
"""The persona's address in ``Co-authored-by``: a reserved name that reaches no one (RFC 2606)."""


@dataclass(slots=True)
class ApplyOptions:
    """What the person asked for (``discussions apply`` options)."""

    lead: str | None = None
    """An alias or display name; None: chosen by capabilities."""
    branch: str | None = None
    timeout: float | None = None
    """Seconds the lead may take; None: ``apply.timeout`` or `apply_run.DEFAULT_TIMEOUT`."""
    force_reason: str | None = None
    """``--force --reason TEXT``: apply an undecided discussion, the reason recorded."""
    acknowledge_questions: bool = False
    """Go ahead with the open questions unanswered (their count is recorded)."""
    provider: str | None = None  # the lead's only provider (--provider); None: its chain's


@dataclass(slots=True)
class Plan:
    """What an apply will do, shown to the person before they consent."""

    discussion: Discussion
    handoff: Handoff
    choice: LeadChoice | None
    """Who leads; None when nobody can (only a dry run gets that far: `problem` says why)."""
    root: Path
    """The git work tree holding the discussion."""
    branch: str
    number: int
    """The APPLY number it expects (the block takes the next free one when it is written)."""
    author: str
    """``Name <email>`` who will consent and author the commit ("" when git has none: only a
    dry run gets that far)."""
    timeout: float
    tests: ProjectTests | None
    decided: str
    """Why the discussion counts as decided (or why not, when forced)."""
    forced: str = ""
    acknowledged: int = 0
    revise: bool = False
    blockers: tuple[str, ...] = ()
    """A revision's blockers, appended to the hand-off."""
    problem: str = ""
    """Why it cannot run as it stands (a dry run outside git shows the plan all the same)."""
    sandbox: Sandbox = field(default_factory=Sandbox)
    """Where the lead runs (`engine.apply.sandbox`: bubblewrap, or none), from ``apply.sandbox``."""
    parley: FileChoice | None = None
    """Asks the person about each changed file before the commit (``apply --parley``)."""

    @property
    def lead_choice(self) -> LeadChoice:
        """Who leads; `ApplyError` (the plan's `problem`) when nobody can."""
        if self.choice is None:
            raise ApplyError(self.problem or "nobody in this discussion can lead")
        return self.choice

    @property
    def reason(self) -> str:
        """``AI-Architect leads: refactoring, architecture`` ("" when nobody can lead)."""
        return self.choice.reason if self.choice else ""

    @property
    def lead(self) -> LeadCommand:
        base = str(self.discussion.workspace.config.base_dir)
        return LeadCommand.of(self.lead_choice.provider, base)

    def prompt(self) -> str:
        """The hand-off as the lead gets it (with a revision's blockers)."""
        text = self.handoff.to_prompt()
        if self.blockers:
            listed = "\n".join(f"- {b}" for b in self.blockers)
            text += (
                "\n\n## Blockers from the review of your change\n\nThe council reviewed the "
                "change on this branch and asks for these before it implements the decision. "
                f"Revise the change in place:\n\n{listed}\n"
            )
        return text

    def command_line(self) -> str:
        """The command that would run, as a shell would show it, and where the prompt goes."""
        words = split_command(self.lead.command)
        where = (
            "the hand-off as its last argument"
            if self.lead.prompt_via == "argument"
            else ("the hand-off on standard input")
        )
        setting = f"; with {', '.join(sorted(self.lead.env))} set" if self.lead.env else ""
        where += setting  # `providers show NAME` prints the values
        return f"{shlex.join(words)}  ({where}; in a clone under {worktree.apply_home()})"

    def confinement(self) -> str:
        """What the consent text says of where the lead runs: the sandbox, or its absence."""
        if self.sandbox.kind:
            return (
                f"{self.sandbox.describe()} (all but its clone, a private temp folder and its "
                "CLI's own state folders read-only, your home and the CLI's settings included; "
                "the tests run in it too; network shared)"
            )
        return (
            f"{self.sandbox.describe()} (the lead runs as you, and can write wherever you can; "
            "changes to your repository are found afterwards and refused)"
        )

    def review_after(self) -> bool:
        """Whether the council reviews the change once it is committed (``apply: review``
        of the template or ``discussions.yaml``)."""
        d = self.discussion
        return apply_settings(d.workspace.config, d.template).review

    def revisions(self) -> int:
        """How many times the lead may revise its change on the review's blockers under the
        consent to this apply: ``apply.max_revisions`` when the council reviews it after and
        its branch is one a lead may revise (under `_BRANCH_PREFIX`), else 0."""
        if not self.review_after() or not self.branch.startswith(_BRANCH_PREFIX):
            return 0
        d = self.discussion
        return apply_settings(d.workspace.config, d.template).max_revisions

    def open_questions(self) -> int:
        """Open questions not acknowledged (an apply refuses to start while there are any)."""
        return 0 if self.acknowledged else len(self.handoff.questions)

    def acknowledge(self) -> None:
        """The person acknowledged the open questions unanswered."""
        self.acknowledged = len(self.handoff.questions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "discussion": str(self.discussion.path),
            "decided": self.decided,
            "forced": self.forced or None,
            "lead": self.choice.participant.name if self.choice else None,
            "lead_reason": self.reason or None,
            "provider": self.choice.provider.name if self.choice else None,
            "command": self.command_line() if self.choice else None,
            "branch": self.branch,
            "number": self.number,
            "consent_by": self.author or None,
            "timeout": self.timeout,
            "test_command": self.tests.command if self.tests else None,
            "open_questions": len(self.handoff.questions),
            "problem": self.problem or None,
            "sandbox": self.sandbox.recorded,
            "handoff": self.handoff.to_dict(),
        }


def prepare(
    d: Discussion,
    options: ApplyOptions | None = None,
    *,
    registry: ProviderRegistry | None = None,
    dry_run: bool = False,
) -> Plan:
    """The plan of an apply of `d` (nothing runs, nothing is written). `NotDecided` for an
    undecided discussion without ``force_reason``; `NoLead` when nobody can lead;
    `ApplyError` outside git, during a merge, rebase, cherry-pick or revert, or (but for a
    `dry_run`, whose plan says why it cannot run) without a git identity."""
    options = options or ApplyOptions()
    forced = forced_reason(d, options.force_reason)  # NotDecided, when undecided and unforced
    why = is_decided(d)[1]
    handoff = build_handoff(d)
    choice, nobody = (
        _dry_choose(d, handoff, options, registry)
        if dry_run
        else (_choose(d, handoff, options, registry), "")
    )
    root, problem = _dry_root(d) if dry_run else (_root(d), "")
    busy = "" if problem else worktree.unfinished(root)
    if busy and not dry_run:
        raise ApplyError(busy)  # before anyone is asked to consent
    problem = "; ".join(filter(None, (nobody, problem or busy)))
    number = max((a.number for a in d.applies), default=0) + 1
    timeout = options.timeout or _configured_timeout(d)
    box, unboxed = _sandbox(d, dry_run)
    problem = problem or unboxed
    plan = Plan(
        d,
        handoff,
        choice,
        root,
        _branch(d, root, options.branch, number),
        number,
        _author(root, dry_run),
        timeout,
        _tests(d, root, timeout),
        why,
        forced,
        problem=problem,
        sandbox=box,
    )
    if options.acknowledge_questions:
        plan.acknowledge()
    return plan


def _sandbox(d: Discussion, dry_run: bool = False) -> tuple[Sandbox, str]:
    """The sandbox ``apply.sandbox`` asks for here, and why it cannot be had ("": it can).
    `ApplyError` when it is required and missing, but for a `dry_run` (its plan says why)."""
    try:
        return sandbox.choose(apply_settings(d.workspace.config, d.template).sandbox), ""
    except ApplyError as exc:
        if dry_run:
            return Sandbox(), str(exc)
        raise


def _choose(
    d: Discussion, handoff: Handoff, options: ApplyOptions, registry: ProviderRegistry | None
) -> LeadChoice:
    if registry is None:
        registry = ProviderRegistry.load(d.workspace.config.base_dir)
    return choose_lead(
        select_participants(d, ["all"]),
        handoff,
        options.lead,
        registry=registry,
        chain=default_chain(registry, d.workspace, options.provider),
    )


def _dry_choose(
    d: Discussion, handoff: Handoff, options: ApplyOptions, registry: ProviderRegistry | None
) -> tuple[LeadChoice | None, str]:
    """The lead of a dry run, or (nobody can lead) None and why: a dry run runs nothing, so
    it shows the plan without a writer."""
    try:
        return _choose(d, handoff, options, registry), ""
    except NoLead as exc:
        return None, str(exc)


def _root(d: Discussion) -> Path:
    try:
        return repo_root(d.path)
    except DiscussionsError:
        raise ApplyError(
            f"{d.path} is not in a git repository: a lead works in a clone of it on a new "
            "branch (run `git init` and commit once)"
        ) from None


def _dry_root(d: Discussion) -> tuple[Path, str]:
    """The git work tree of a dry run, or (outside git) the discussion's folder and why an
    apply cannot run there."""
    try:
        return _root(d), ""
    except ApplyError as exc:
        return d.path.parent.resolve(), str(exc)


def _author(root: Path, dry_run: bool) -> str:
    try:
        return worktree.identity(root)
    except ApplyError:
        if dry_run:
            return ""
        raise


def _tests(d: Discussion, root: Path, timeout: float) -> ProjectTests | None:
    return apply_run.project_tests(root, evidence_settings(d.workspace.config), timeout)


def _configured_timeout(d: Discussion) -> float:
    """``apply.timeout`` of the template, else of ``discussions.yaml``, else 1800 s
    (`settings.apply`)."""
    return apply_settings(d.workspace.config, d.template).timeout


def default_branch(d: Discussion, number: int) -> str:
    """``discussions/apply/<discussion file's name>-<number>``."""
    return f"{_BRANCH_PREFIX}{worktree.slug(d.path.stem, 'discussion')}-{number}"


def _branch(d: Discussion, root: Path, named: str | None, number: int) -> str:
    """The new branch: `named` (an `ApplyError` when it exists, before anyone consents), or
    `default_branch` with ``-2``, ``-3``... when this clone has that one already (another
    branch of the project applied the same discussion)."""
    if named is not None:
        if worktree.branch_exists(root, named):
            raise ApplyError(f"the branch `{named}` exists already: pick another with --branch")
        return named
    base = default_branch(d, number)
    branch, n = base, 1
    while worktree.branch_exists(root, branch):
        n += 1
        branch = f"{base}-{n}"
    return branch


def coauthor(choice: LeadChoice) -> str:
    """``AI-Architect <architect@discussions.invalid>``: the persona, for the trailer."""
    alias = re.sub(r"[^a-z0-9._-]+", "-", choice.participant.alias.lower()) or "lead"
    return f"{choice.participant.name} <{alias}@{_COAUTHOR_DOMAIN}>"


def carry_out(plan: Plan, *, on_output: Callable[[str], None] | None = None) -> ApplyRecord:
    """Run the consented `plan` and append its ``APPLY`` block; returns the record as
    written. The caller has asked the person (`plan.author`) for consent: this is the only
    way a lead runs. `ApplyError` while open questions are unacknowledged, or when the plan
    cannot run (`Plan.problem`)."""
    if plan.problem:
        raise ApplyError(plan.problem)
    if not plan.author:
        plan.author = worktree.identity(plan.root)
    if plan.open_questions():
        raise ApplyError(
            f"{plan.open_questions()} open question(s) are unanswered: answer them in the "
            "discussion, or acknowledge them (--acknowledge-questions)"
        )
    plan.handoff.approve(plan.author, clock.now_stamp())
    result = apply_run.execute(job_of(plan, on_output))
    return append_record(plan.discussion, record_of(plan, result))


def job_of(plan: Plan, on_output: Callable[[str], None] | None = None) -> Job:
    """The run of `plan` for `apply_run.execute`."""
    d = plan.discussion
    path = d.path.resolve()
    where = path.relative_to(plan.root).as_posix() if plan.root in path.parents else path.name
    what = f"the review's blockers for {where}" if plan.revise else f"the decisions of {where}"
    body = f"Carries {what} into code (apply {plan.number}).\n{plan.reason}."
    if plan.forced:
        body += f"\nApplied without a decision (--force): {plan.forced}"
    subject = ("Revise: " if plan.revise else "Apply: ") + d.title
    return Job(
        plan.root,
        plan.branch,
        plan.prompt(),
        plan.lead,
        plan.author,
        coauthor(plan.lead_choice),
        subject[:72],
        body,
        plan.timeout,
        plan.tests,
        on_output,
        plan.revise,
        plan.sandbox,
        plan.parley,
    )


def record_of(plan: Plan, result: RunResult) -> ApplyRecord:
    """The ``APPLY`` record of `plan` run with `result`."""
    return ApplyRecord(
        number=plan.number,
        lead=plan.lead_choice.participant.name,
        provider=plan.lead_choice.provider.name,
        branch=result.branch,
        base=result.base,
        commit=result.commit,
        consented_by=plan.author,
        result=result.result,
        files=tuple(result.files),
        tests=result.tests,
        test_command=result.test_command,
        duration=round(result.duration, 1),
        reason=result.reason,
        forced=plan.forced,
        acknowledged=plan.acknowledged,
        worktree=result.worktree,
        at=clock.now_stamp(),
        output=_output(plan, result),
        sandbox=result.sandbox or plan.sandbox.recorded,
        parley=result.parley is not None,
        accepted=tuple(result.parley.accepted) if result.parley else (),
        rejected=tuple(result.parley.rejected) if result.parley else (),
    )


def _output(plan: Plan, result: RunResult) -> str:
    """What the block's fence holds after the diffstat: the blockers a revision answered,
    the lead's last lines (the summary its prompt asks it to end with; more of them after a
    failure) and the test output."""
    parts: list[str] = []
    if plan.blockers:
        parts.append("Revision for:\n" + "\n".join(f"- {b}" for b in plan.blockers))
    if result.lead_output:
        kept = _SUMMARY_LINES if result.result in ("committed", "unchanged") else None
        said = "\n".join(
            result.lead_output.splitlines()[-kept:] if kept else result.lead_output.splitlines()
        )
        parts.append(f"{plan.lead_choice.participant.name} said:\n{said}")
    if result.test_command:
        parts.append(f"$ {result.test_command}\n{result.test_output}".rstrip())
    return "\n\n".join(parts)


def summary_line(record: ApplyRecord) -> str:
    """The line a reader sees for `record` in the file (``Apply 1: AI-Architect (claude)
    committed 3 files on ...``), without its emphasis."""
    block = render_apply(record)
    seen = next((ln for ln in block.splitlines() if ln.startswith("*Apply ")), "")
    return seen.strip("*") or f"Apply {record.number}: {record.result}"


def append_record(d: Discussion, record: ApplyRecord) -> ApplyRecord:
    """Append `record` as an ``APPLY`` block under the file lock, numbered after the last
    APPLY block in the file as it is then."""

    def build(text: str) -> list[str]:
        state = derive(text, d.workspace, d.path.stem)
        record.number = max((a.number for a in state.applies), default=0) + 1
        return [render_apply(record)]

    storage.locked_append(d.path, build, root=d.workspace.config.base_dir)
    d.reload()
    return record


def revise(
    d: Discussion,
    number: int,
    blockers: Sequence[str],
    *,
    on_output: Callable[[str], None] | None = None,
    timeout: float | None = None,
    registry: ProviderRegistry | None = None,
) -> ApplyRecord:
    """The lead of ``APPLY`` `number` revises its change on the same branch (`revision_plan`:
    the hand-off again with `blockers`, the review's ``CONCERN:`` texts, appended): a new
    commit on top of the branch's tip, authored by the person at this repository now (the
    caller asked them; `run`, which asks no one, never calls this), and a new ``APPLY`` block
    (the next number) recording it, which is returned."""
    plan = revision_plan(d, number, blockers, timeout=timeout, registry=registry)
    plan.handoff.approve(plan.author, clock.now_stamp())
    result = apply_run.execute(job_of(plan, on_output))
    return append_record(d, record_of(plan, result))


def revision_plan(
    d: Discussion,
    number: int,
    blockers: Sequence[str] = (),
    *,
    timeout: float | None = None,
    registry: ProviderRegistry | None = None,
) -> Plan:
    """The plan of a revision of ``APPLY`` `number` by its lead, for `revise` and for the
    question that asks a person's consent to it. Its author is the person at this repository
    now (`worktree.identity`), never the name a block records. `ApplyError` when the block is
    not in the file or was edited, or its branch is not one an apply made that still holds
    its commit (`_revisable`); `NoLead` when its lead can no longer write."""
    earlier = next((a for a in d.applies if a.number == number), None)
    if earlier is None:
        raise ApplyError(f"{d.path.name} has no APPLY block {number} to revise")
    root = _root(d)
    _revisable(root, earlier)
    handoff = build_handoff(d)
    choice = _choose(d, handoff, ApplyOptions(earlier.lead), registry)
    t = timeout or _configured_timeout(d)
    return Plan(
        d,
        handoff,
        choice,
        root,
        earlier.branch,
        max(a.number for a in d.applies) + 1,
        worktree.identity(root),
        t,
        _tests(d, root, t),
        "a revision after a review",
        earlier.forced,
        earlier.acknowledged,
        revise=True,
        blockers=tuple(blockers),
        sandbox=_sandbox(d)[0],
    )


def _revisable(root: Path, earlier: Apply) -> None:
    """`ApplyError` unless a lead may commit on `earlier`'s branch: the block matches its
    digest, the branch is one `discussions apply` names (under `_BRANCH_PREFIX`), and its tip
    is the block's commit or a commit after it. A discussion file travels through merges, so
    what a block says is checked against the repository, not believed."""
    n, branch, commit = earlier.number, earlier.branch, earlier.commit or ""
    if not earlier.intact:
        raise ApplyError(
            f"apply {n}'s block no longer matches its digest (edited?): `discussions check` "
            "shows it; a lead revises only what an intact block records. Nothing was run."
        )
    if not branch.startswith(_BRANCH_PREFIX):
        raise ApplyError(
            f"apply {n} is on `{branch}`, which is not under {_BRANCH_PREFIX}: a lead revises "
            "only a branch `discussions apply` made. Revise that branch yourself. Nothing was run."
        )
    if not COMMIT_ID.fullmatch(commit):
        raise ApplyError(f"apply {n} records no commit ({earlier.result}): nothing to revise")
    if not worktree.branch_exists(root, branch):
        raise ApplyError(f"apply {n}'s branch `{branch}` is not in this clone: nothing to revise")
    if not git_says(root, ["merge-base", "--is-ancestor", commit, f"refs/heads/{branch}"]):
        raise ApplyError(
            f"the branch `{branch}` does not hold apply {n}'s commit {commit[:12]} (its tip is "
            f"not apply {n}'s commit or a commit after it, or that is not a commit here): "
            "a lead revises only the change the block records. Nothing was run."
        )


def lead_revise(
    d: Discussion,
    *,
    on_output: Callable[[str], None] | None = None,
    timeout: float | None = None,
) -> Revise:
    """`revise` by the lead of the apply under review, on its branch (`apply.revise`: a
    new commit, recorded as the next ``APPLY`` block)."""

    def run(under: ApplyRecord, blockers: list[str]) -> ApplyRecord:
        return revise(d, under.number, blockers, on_output=on_output, timeout=timeout)

    return run
