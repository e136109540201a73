"""The contrarian's after-answer step (docs/council.md, "A contrarian when agreement comes too
fast"): when a phase's agreement came too fast (`derive.contrarian`), a ``CONTRARIAN`` block
says why, and the template's contrarian is asked for the strongest case against, grounded in
the code, before the phase rules record the consensus (which waits for an answer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import OverBudget
from .motions import collect

if TYPE_CHECKING:
    from ...model.discussion import Discussion
    from ..turn.steps import AfterAnswers

WHY = "every voter voted READY at once, no evidence cited, no concern raised"
"""Why the contrarian is called, as its block records it."""

_CALLOUT = (
    "Every voter voted READY in the first round of phase '{phase}', with no evidence cited and "
    "no concern raised. You are the designated contrarian: make the strongest honest case "
    "against the proposal as it stands, grounded in the code. Cite files and lines "
    "(`path:line`), ask for what you need to see with `EVIDENCE: read path:start-end`, and put "
    "each objection the others must answer on a `CONCERN:` line. Do not vote. If you find "
    "nothing serious, say so plainly."
)


def render_challenge(alias: str, phase: str) -> str:
    """The ``CONTRARIAN`` block: its arguments, and a visible line saying why (``&#64;``
    shows as "@" but is no mention: the block sits, to the parser, inside the comment before
    it)."""
    return (
        f"<!-- CONTRARIAN: {alias} | phase: {phase} | why: {WHY} -->\n\n"
        f"**Contrarian: &#64;{alias} is asked for the strongest case against.** In phase "
        f"'{phase}' {WHY}; the consensus waits until another voter answers the challenge or a "
        "person acknowledges it.\n"
    )


def contrarian_step(after: AfterAnswers) -> None:
    """Once something was said: when agreement came too fast and no challenge was made in
    this phase, record the block (under the lock, once) and ask the contrarian; a call the
    budget cannot cover stops the turn (the block stays: the consensus waits for a person)."""
    d = after.discussion
    if not after.heard or not d.too_fast or d.challenge is not None:
        return
    alias = d.template.contrarian if d.template else None
    if not alias or not d.transact(_challenge):
        return
    d.reload()
    try:
        asked = collect(
            after.asker,
            d,
            [d.workspace.participants.get(alias)],
            _CALLOUT.format(phase=d.phase),
            after.provider,
        )
    except OverBudget as exc:
        after.budget_stop(str(exc))
    else:
        after.result.outcomes.extend(asked)
    d.reload()


def _challenge(now: Discussion) -> bool:
    """Queue the ``CONTRARIAN`` block if, in the file as it is now, it is still called for."""
    alias = now.template.contrarian if now.template else None
    if not alias or not now.too_fast or now.challenge is not None:
        return False
    now.add_block(render_challenge(alias, now.phase))
    return True
