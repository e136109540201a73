"""`discussions apply`: show the hand-off of a decided discussion, ask for consent, and have the
chosen lead make the change on a new branch, in a disposable clone of its own."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from .. import ops
from ..engine.turn.outcomes import ParticipantOutcome, TurnEvent
from .common import echo_json, resolve_discussion, say, workspace
from .options import json_option
from .parley import ask_file, refuse_without_terminal
from .progress import Progress
from .reviewing import no_one_to_ask, review_lines, review_only, review_step, stderr_stream
from .turns import live_display

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..engine.apply.plan import Plan
    from ..git.parley import FileChoice
    from ..ops.decided import Applied
    from ..syntax.apply import ApplyRecord
    from .progress import Progress


@click.command("apply")
@click.argument("file")
@click.option("--lead", metavar="ALIAS", help="Who leads (default: chosen by capabilities).")
@click.option(
    "-p",
    "--provider",
    metavar="NAME",
    help="The lead works through this provider (it needs a write mode; no fallback).",
)
@click.option("--branch", metavar="NAME", help="The new branch (default: discussions/apply/F-N).")
@click.option("-y", "--yes", is_flag=True, help="Consent without asking (for scripts).")
@click.option("--dry-run", is_flag=True, help="Print the hand-off and the command; run nothing.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    metavar="S",
    help="Seconds the lead may take (default: apply.timeout, 1800).",
)
@click.option("--force", is_flag=True, help="Apply an undecided discussion (needs --reason).")
@click.option("--reason", metavar="TEXT", help="Why --force: recorded in the discussion.")
@click.option(
    "--acknowledge-questions",
    is_flag=True,
    help="Go ahead with open questions unanswered (recorded).",
)
@click.option(
    "--review",
    is_flag=True,
    help=(
        "Have the council review the change already applied (with --yes or your y/N, its "
        "lead revises on the blockers)."
    ),
)
@click.option(
    "--parley",
    is_flag=True,
    help="After the lead finishes, show each changed file's diff and accept or reject it "
    "(a terminal only); only the accepted files are committed.",
)
@json_option("Print the APPLY record (with --dry-run: the plan) as JSON.")
def apply_command(
    file: str,
    lead: str | None,
    provider: str | None,
    branch: str | None,
    yes: bool,
    dry_run: bool,
    timeout: float | None,
    force: bool,
    reason: str | None,
    acknowledge_questions: bool,
    as_json: bool,
    review: bool = False,
    parley: bool = False,
) -> None:
    """Have a lead implement a decided discussion on a new git branch.

    The lead is the participant whose capabilities match the decision best
    (or --lead), through the first of its providers with a write mode. It
    gets the hand-off (decisions, TODOs, constraints, evidence, open
    questions) and works in a disposable clone of HEAD in your cache folder,
    in bubblewrap where it is installed (apply.sandbox), never in your
    working tree. What it changed is committed on a new branch
    in your name, with a Co-authored-by trailer for the persona; the
    project's trusted `test` command (evidence.commands) runs there; an
    APPLY block records it all in the discussion. Nothing is ever merged.

    You are asked to consent (y/N). Without a terminal, or in CI, nothing
    runs unless --yes is given. With --parley each changed file's diff is
    shown when the lead has finished, and you accept or reject it: only the
    accepted files are committed, and the APPLY block records both lists.

    \b
    Examples:
      discussions apply feature-x.md --dry-run
      discussions apply feature-x.md
      discussions apply feature-x.md --lead architect --branch feat/x-retries
      discussions apply feature-x.md --yes --acknowledge-questions --json
      discussions apply spike.md --force --reason "prototype before the vote"
      discussions apply feature-x.md --review --yes
      discussions apply feature-x.md --parley
    """
    if review:
        flags = (lead, provider, branch, dry_run, force, reason, acknowledge_questions)
        return review_only(file, as_json=as_json, timeout=timeout, yes=yes, flags=flags)
    # a usage error before the file is looked for
    ops.check_forced(force, reason, needs_reason=True)
    if parley and not dry_run:
        refuse_without_terminal(as_json)
    ws = workspace(warn=False)
    plan = ops.plan_apply(
        ws, resolve_discussion(file, ws), lead=lead, branch=branch, timeout=timeout,
        force=force, reason=reason, acknowledge_questions=acknowledge_questions, dry_run=dry_run,
        provider=provider,
    )  # fmt: skip
    if dry_run:
        echo_json(plan.to_dict()) if as_json else _show(plan, dry_run=True)
        return
    _consent(plan, yes, as_json)
    _finish(_run(plan, as_json, ask_file if parley else None), as_json)


def _consent(plan: Plan, yes: bool, as_json: bool) -> None:
    """The person's consent to `plan` (shown first), or exit with nothing done."""
    why = "" if yes else no_one_to_ask(as_json)
    if why:
        raise click.ClickException(
            f"an apply needs your consent, and {why}: look at it with --dry-run, then run it "
            "again with --yes to consent. Nothing was run."
        )
    if not as_json:
        _show(plan)
    _ask(plan, yes)


def _finish(done: Applied, as_json: bool) -> None:
    """Say what the apply came to, have the council review it when asked to (`review_after`),
    report; exit 1 unless it committed (or changed nothing), no test failed and a review that
    ran found that the change implements the decision."""
    if not as_json:
        say(_result_line(done.record))
    stream = None if as_json else stderr_stream
    done = ops.review_after(done, on_step=None if as_json else review_step, on_output=stream)
    if done.review is not None and not as_json:
        for line in review_lines(done.review.to_dict()):
            say(line)
    if as_json:
        echo_json(done.to_dict())
    if not done.ok:
        sys.exit(1)


def _show(plan: Plan, *, dry_run: bool = False) -> None:
    """The hand-off and what will run, for the person to consent to."""
    say(plan.prompt().rstrip())
    if plan.problem:
        say()
        say(f"It cannot run here: {plan.problem}")
    say()
    if plan.choice is not None:
        say(f"{plan.reason}.")
    if plan.forced:
        say(f"Not decided ({plan.decided}); forced: {plan.forced}")
    say(f"Branch: {plan.branch} (new, from HEAD; your working tree is not touched)")
    if plan.choice is not None:
        say(f"Command: {plan.command_line()}")
    say(f"Confinement: {plan.confinement()}")
    say(f"Timeout: {plan.timeout:g}s")
    if plan.tests is not None:
        say(f"Tests: {plan.tests.notice()}")
    who = plan.author or "(git user.name / user.email are not set)"
    say(f"Commit author: {who}")
    if dry_run:
        say("Dry run: nothing was run or written.")


def _ask(plan: Plan, yes: bool) -> None:
    """Consent (and the open questions) from the person on the terminal, or exit with
    nothing done."""
    count = plan.open_questions()
    if count and yes:
        raise click.ClickException(
            f"{count} open question(s) are unanswered: answer them in the discussion, or go "
            "ahead with --acknowledge-questions (recorded). Nothing was run."
        )
    if count and not click.confirm(
        f"{count} open question(s) are unanswered. Go ahead anyway (recorded as acknowledged)?",
        default=False,
    ):
        _refused()
    if count:
        plan.acknowledge()
    if not yes and not click.confirm(
        f"Let {plan.lead_choice.participant.name} make this change on {plan.branch}"
        f"{_revisions(plan)}, committed as {plan.author}?",
        default=False,
    ):
        _refused()


def _revisions(plan: Plan) -> str:
    """What the consent also covers when ``apply: review`` has the council review the
    change: the lead's revisions on the review's blockers."""
    n = plan.revisions()
    return f" (and revise it up to {n} time(s) on the review's blockers)" if n else ""


def _refused() -> None:
    say("Not applied: nothing was run or written.", err=True)
    sys.exit(1)


def _run(plan: Plan, as_json: bool, parley: FileChoice | None = None) -> Applied:
    """Run the plan (`ops.decided.apply`) with its output streamed: the turn display on a
    terminal (not during a parley, whose questions take the terminal), the lead's own lines
    on a pipe, nothing with --json."""
    p, provider = plan.lead_choice.participant, plan.lead_choice.provider.name
    live = live_display(as_json) and parley is None
    if not live:
        if not as_json:
            say(f"{p.name} is working on {plan.branch} ({provider})...", err=True)
        return ops.apply(plan, on_output=None if as_json else stderr_stream, parley=parley)
    with Progress(sys.stderr, True, [(p.alias, p.name)], title="discussions apply") as progress:
        progress(TurnEvent("start", p.alias, p.name, provider))
        done = ops.apply(plan, on_output=_live_stream(progress, p.alias, p.name, provider))
        record = done.record
        finished = ParticipantOutcome(p.alias, p.name, "posted" if record.result in ops.DONE else
                                      "failed", provider, duration=record.duration)  # fmt: skip
        finished.vote = record.result  # the display's result column: what the apply came to
        progress(TurnEvent("done", p.alias, p.name, provider, outcome=finished))
    return done


def _live_stream(progress: Progress, alias: str, name: str, provider: str) -> Callable[[str], None]:
    """Feeds the turn display: the latest line the lead wrote, as a turn's providers do."""
    seen: list[str] = []

    def feed(text: str) -> None:
        seen.append(text)
        lines = [ln for ln in "".join(seen[-20:]).splitlines() if ln.strip()]
        if lines:
            progress(TurnEvent("chunk", alias, name, provider, message=lines[-1]))

    return feed


def _result_line(record: ApplyRecord) -> str:
    from ..engine.apply.plan import summary_line

    line = summary_line(record)
    if record.worktree:
        line += f"\nThe clone is kept for you to look at: {record.worktree}"
    return line
