"""The conformance review of an applied change, as `discussions apply --review` (and `apply`
when ``apply: review`` is set) runs it and as `discussions run` reports it
(`engine.conformance`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from .common import echo_json, resolve_discussion, say, workspace

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..engine.conformance import ReviewOutcome
    from ..model.discussion import Discussion
    from ..settings.workspace import Workspace
    from ..syntax.apply import ApplyRecord

STOPPED = ("waiting", "budget")
"""Where a review stopped with nothing recorded: the command exits 1."""


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
    from ..engine.conformance import lead_revise, review_apply
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


APPLY_ONLY = ("--lead", "--branch", "--dry-run", "--force", "--acknowledge-questions")
"""The options of `apply` that belong to a new apply, not to ``--review``."""


def review_only(
    file: str,
    *,
    as_json: bool,
    timeout: float | None,
    yes: bool = False,
    flags: tuple[object, ...] = (),
) -> None:
    """`discussions apply FILE --review`: review the latest applied change; exit 1 when
    nothing could be recorded. The lead revises on blockers only with the person's consent
    (`yes`, or y/N on a terminal); without it the review stops at its blockers. `flags` are
    the values of `APPLY_ONLY`, which must be unset."""
    others = [name for name, value in zip(APPLY_ONLY, flags, strict=False) if value]
    if others:
        raise click.UsageError(
            f"--review reviews the change already applied; {', '.join(others)} belong to a new "
            "apply (run it first, then --review)"
        )
    from ..model.discussion import Discussion

    ws = workspace(warn=False)
    d = Discussion.load(resolve_discussion(file, ws), ws)
    stream = None if as_json else _stderr
    allowed = yes or _revisions_allowed(d)
    outcome = perform_review(
        ws, d, None, as_json=as_json, revise=allowed, timeout=timeout, on_output=stream
    )
    if as_json:
        echo_json({"review": outcome.to_dict()})
    if outcome.stage in STOPPED:
        sys.exit(1)


def _revisions_allowed(d: Discussion) -> bool:
    """The person's y/N, on a terminal, to the lead revising its change when the council
    asks for changes; never implied without a terminal or in CI."""
    import os

    if os.environ.get("CI") or not (sys.stdin.isatty() and sys.stdout.isatty()):
        say(
            "No terminal to ask on (or CI): the lead will not revise; the review stops at its "
            "blockers. Give --yes to let it revise.",
            err=True,
        )
        return False
    return click.confirm(
        "If the council asks for changes, may the lead revise its change on the same branch "
        "(committed in the name of whoever consented to the apply)?",
        default=False,
    )


def _stderr(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()
