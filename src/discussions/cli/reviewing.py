"""The conformance review of an applied change, as `discussions apply --review` (and `apply`
when ``apply: review`` is set) runs it and as `discussions run` reports it
(`engine.council.conformance`)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import click

from .. import ops
from ..model.discussion import Discussion
from .common import echo_json, printable, resolve_discussion, say, workspace

if TYPE_CHECKING:
    from ..model.discussion import Discussion
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


def review_step(text: str) -> None:
    """How each vote of a review went, on standard error as it goes."""
    say(text, err=True)


APPLY_ONLY = (
    "--lead",
    "--provider",
    "--branch",
    "--dry-run",
    "--force",
    "--reason",
    "--acknowledge-questions",
)
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

    ws = workspace(warn=False)
    path = resolve_discussion(file, ws)
    d = Discussion.load(path, ws)
    applied = pending_review(d)  # None: reviewed already, nobody is asked
    allowed = applied is not None and _revisions_allowed(d, applied, yes, as_json, timeout)
    outcome = ops.review_applied(
        ws, path, revise=allowed, timeout=timeout, on_step=None if as_json else review_step,
        on_output=None if as_json else stderr_stream,
    )  # fmt: skip
    if as_json:
        echo_json({"review": outcome.to_dict()})
    else:
        for line in review_lines(outcome.to_dict()):
            say(line)
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
