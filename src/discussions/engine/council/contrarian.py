"""The contrarian's after-answer step (docs/council.md, "A contrarian when agreement comes too
fast"): when a phase's agreement came too fast (`derive.contrarian`), a ``CONTRARIAN`` block
says why, and the template's contrarian is asked for the strongest case against, grounded in
the code, before the phase rules record the consensus (which waits for an answer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...derive.contrarian import came_too_fast, jumped_too_fast
from ...errors import OverBudget
from ...model import storage
from ..turn.failures import record_failure
from .motions import collect

if TYPE_CHECKING:
    from ...model.discussion import Discussion
    from ..turn.outcomes import ParticipantOutcome
    from ..turn.steps import AfterAnswers

WHY = "every voter voted READY at once, no evidence cited, no concern raised"
"""Why the contrarian is called when the first round was unanimous, as its block records it."""
WHY_JUMP = (
    "the voters went from {before} to unanimous READY with no evidence, grounded "
    "citation or answered concern in between"
)
"""Why it is called when agreement jumped (`derive.contrarian.Jump`; `before`: the ballot
it jumped from, `Jump.before`)."""

_CALLOUT = (
    "{why_sentence} You are the designated contrarian: make the strongest honest case "
    "against the proposal as it stands, grounded in the code. Cite files and lines "
    "(`path:line`), ask for what you need to see with `EVIDENCE: read path:start-end`, and put "
    "each objection the others must answer on a `CONCERN:` line. Do not vote. If you find "
    "nothing serious, say so plainly."
)
_AT_ONCE = (
    "Every voter voted READY in the first round of phase '{phase}', with no evidence cited "
    "and no concern raised."
)
_JUMPED = (
    "In phase '{phase}' the voters went from {before} to unanimous READY with no "
    "evidence, no grounded citation and no answer to a concern in between."
)


def why(d: Discussion) -> str:
    """Why the contrarian is called in `d` now: a jump, or a unanimous first round."""
    jump = d.jump
    if jump is None or not jumped_too_fast(d, d.grounding):
        return WHY
    return WHY_JUMP.format(before=jump.before)


def render_challenge(alias: str, phase: str, reason: str = WHY) -> str:
    """The ``CONTRARIAN`` block: its arguments, and a visible line saying why (``&#64;``
    shows as "@" but is no mention: the block sits, to the parser, inside the comment before
    it)."""
    return (
        f"<!-- CONTRARIAN: {alias} | phase: {phase} | why: {reason} -->\n\n"
        f"**Contrarian: &#64;{alias} is asked for the strongest case against.** In phase "
        f"'{phase}' {reason}; the consensus waits until another voter answers the challenge or "
        "a person acknowledges it.\n"
    )


def agreed_too_fast(d: Discussion) -> bool:
    """Whether agreement came too fast in `d` (`derive.contrarian.came_too_fast`), its
    citations resolved first when only they could justify a jump (`git.grounding`), so the
    engine calls the contrarian on what `status` shows."""
    if not d.too_fast and d.jump is not None and d.grounding is None:
        from ...git.grounding import ground

        ground(d)
    return came_too_fast(d, d.grounding)


def contrarian_step(after: AfterAnswers) -> None:
    """Once something was said: when agreement came too fast and no challenge was made in
    this phase, record the block (under the lock, once) and ask the contrarian; a call the
    budget cannot cover stops the turn (the block stays: the consensus waits for a person)."""
    d = after.discussion
    if not after.heard or d.challenge is not None or not agreed_too_fast(d):
        return
    alias = d.template.contrarian if d.template else None
    jump = d.jump if jumped_too_fast(d, d.grounding) else None
    sentence = (_JUMPED if jump else _AT_ONCE).format(
        phase=d.phase, before=jump.before if jump else ""
    )
    if not alias or not d.transact(_challenge):
        return
    d.reload()
    try:
        asked = collect(
            after.asker,
            d,
            [d.workspace.participants.get(alias)],
            _CALLOUT.format(why_sentence=sentence),
            after.provider,
        )
    except OverBudget as exc:
        after.budget_stop(str(exc))
    else:
        after.result.outcomes.extend(asked)
        _record_failures(d, asked)
    d.reload()
    d.grounding = None  # the file grew: the phase rules resolve its citations afresh


def _record_failures(d: Discussion, asked: list[ParticipantOutcome]) -> None:
    """A ``FAILED`` block for the contrarian when none of its providers answered, as any
    seat's failure leaves (`turn.failures`): the record says the challenge got no answer,
    from whom and why (the consensus still waits for a person's or a voter's answer)."""
    root = d.workspace.config.base_dir
    for outcome in asked:
        if outcome.status == "failed":  # no answer (`motions.collect` posts none)
            record_failure(d, outcome, lambda block: storage.append(d.path, [block], root=root))


def _challenge(now: Discussion) -> bool:
    """Queue the ``CONTRARIAN`` block if, in the file as it is now, it is still called for."""
    alias = now.template.contrarian if now.template else None
    if not alias or now.challenge is not None or not agreed_too_fast(now):
        return False
    now.add_block(render_challenge(alias, now.phase, why(now)))
    return True
