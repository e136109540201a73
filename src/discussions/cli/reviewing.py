"""The conformance review of an applied change, as `discussions apply --review` (and `apply`
when ``apply: review`` is set) runs it and as `discussions run` reports it
(`engine.council.conformance`)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import click

from .common import echo_json, printable, resolve_discussion, say, workspace

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..engine.council.conformance import ReviewOutcome
    from ..model.discussion import Discussion
    from ..settings.workspace import Workspace
    from ..syntax.apply import ApplyRecord

IMPLEMENTED = "implemented"
"""The one result of a review after which the command exits 0: every other one (unresolved,
changes, or nothing recorded) leaves the change not known to implement the decision."""


def review_lines(review: dict[str, Any]) -> list[str]:
    """What a review came to, for a person: the result, the blockers that stand, a note."""
    lines = [f"Review of apply {review['apply']}: {review['stage']}."]
    if review["stage"] != "implemented":
        lines += [f"  {b['by']}: {b['text']}" for b in review["blockers"]]
    if review["note"]:
        lines.append(f"  {review['note']}")
    return lines


def perform_review(
    ws: Workspace,
    d: Discussion,
    applied: ApplyRecord | None,
    *,
    as_json: bool,
    revise: bool,
    timeout: float | None = None,
    on_output: Callable[[str], None] | None = None,
) -> ReviewOutcome:
    """Review `applied` (default: the latest committed apply), its lead revising on the
    blockers (only with `revise`: a person consented to it) with `on_output` following it;
    without `as_json`, say how each vote went (on standard error, as it goes) and what the
    review came to."""
    from ..engine.apply.plan import lead_revise
    from ..engine.council.conformance import review_apply
    from ..engine.runner import Runner

    def step(text: str) -> None:
        if not as_json:
            say(text, err=True)

    reviser = lead_revise(d, on_output=on_output, timeout=timeout) if revise else None
    outcome = review_apply(Runner(ws), d, applied, reviser, on_step=step)
    if not as_json:
        for line in review_lines(outcome.to_dict()):
            say(line)
    return outcome


APPLY_ONLY = ("--lead", "--branch", "--dry-run", "--force", "--reason", "--acknowledge-questions")
"""The options of `apply` that belong to a new apply, not to ``--review``."""


def review_only(
    file: str,
    *,
    as_json: bool,
    timeout: float | None,
    yes: bool = False,
    flags: tuple[object, ...] = (),
) -> None:
    """`discussions apply FILE --review`: review the latest applied change; exit 1 unless the
    council found that it implements the decision. The lead revises on blockers only with
    the person's consent (`yes`, or y/N on a terminal); without it the review stops at its
    blockers. `flags` are the values of `APPLY_ONLY`, which must be unset."""
    others = [name for name, value in zip(APPLY_ONLY, flags, strict=True) if value]
    if others:
        raise click.UsageError(
            f"--review reviews the change already applied; {', '.join(others)} belong to a new "
            "apply (run it first, then --review)"
        )
    from ..engine.council.conformance import pending_review
    from ..model.discussion import Discussion

    ws = workspace(warn=False)
    d = Discussion.load(resolve_discussion(file, ws), ws)
    applied = pending_review(d)  # None: reviewed already, nobody is asked
    allowed = applied is not None and _revisions_allowed(d, applied, yes, as_json, timeout)
    stream = None if as_json else stderr_stream
    outcome = perform_review(
        ws, d, None, as_json=as_json, revise=allowed, timeout=timeout, on_output=stream
    )
    if as_json:
        echo_json({"review": outcome.to_dict()})
    if outcome.stage != IMPLEMENTED:
        sys.exit(1)


def _revisions_allowed(
    d: Discussion, applied: ApplyRecord, yes: bool, as_json: bool, timeout: float | None
) -> bool:
    """The person's consent (`yes`, or y/N on a terminal) to the lead revising `applied` when
    the council asks for changes. The question names the branch, the command and the author;
    a branch a lead may not revise is refused (`engine.apply.revision_plan`) before anyone
    votes. Never implied without a terminal, with --json or in CI."""
    why = "" if yes else no_one_to_ask(as_json)
    if why:
        say(
            f"The lead will not revise ({why}): the review stops at its blockers. Give --yes "
            "to let it revise.",
            err=True,
        )
        return False
    from ..engine.apply.plan import revision_plan

    plan = revision_plan(d, applied.number, timeout=timeout)
    return yes or click.confirm(
        f"If the council asks for changes, may {plan.lead_choice.participant.name} revise the "
        f"change on {plan.branch} with `{plan.command_line()}`, committed as {plan.author}?",
        default=False,
    )


def no_one_to_ask(as_json: bool) -> str:
    """Why no person can be asked a y/N here ("" when one can): with ``--json`` the output is
    for a program (a question would corrupt it), in CI nobody answers, and the question needs
    a terminal on standard input and on standard output (``apply F > log`` would send it into
    the file). Consent is never implied by any of these: they need ``--yes``."""
    if as_json:
        return "--json output is for a program, which is not asked"
    if os.environ.get("CI", "").strip():
        return "this is CI"
    if not _terminals():
        return "there is no terminal to ask on"
    return ""


def _terminals() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def stderr_stream(text: str) -> None:
    """Follows a lead's output as it comes, on standard error (standard output keeps what the
    command reports)."""
    sys.stderr.write(printable(text))  # an apply's lead arrives filtered; any control left shows
    sys.stderr.flush()
