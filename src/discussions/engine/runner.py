"""The runner people make (`discussions.Runner`): a turn runner with the after-answer steps
every turn runs, declared once here, above the wings, because one of them is the council's.

In order, as `derive` runs its rules: the evidence the answers asked for (and one follow-up
call), the council's open motion (seconds, sealed ballots, the count), the contrarian when
agreement came too fast, the phase rules, the summary file. A step is loaded when it first
runs, or while the providers think (its `Step.loads`), never before a turn's first call."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .council.memory_step import COUNCIL_MEMORY
from .turn.runner import TurnRunner
from .turn.steps import FULFIL, SETTLE, SUMMARY, AfterAnswers, Step

if TYPE_CHECKING:
    from ..model.budget import Budget
    from ..providers.registry import ProviderRegistry
    from ..settings.workspace import Workspace
    from .turn.outcomes import TurnEvent


def _handle_motion(after: AfterAnswers) -> None:
    """The council's step (`council.motions.motion_step`)."""
    from .council.motions import motion_step  # loaded while the providers think

    motion_step(after)


MOTION = Step("motion", _handle_motion, ("discussions.engine.council.motions",))


def _challenge(after: AfterAnswers) -> None:
    """The contrarian's step (`council.contrarian.contrarian_step`), before the phase rules:
    agreement that came too fast is challenged before the consensus is recorded. Without a
    template that names a contrarian, the file is not derived again for it."""
    d = after.discussion
    called = d.too_fast or d.jump is not None  # a jump on citations: resolved there
    if after.heard and any(t.contrarian for t in d.workspace.templates) and called:
        from .council.contrarian import contrarian_step  # loaded only when called for

        contrarian_step(after)


CONTRARIAN = Step("contrarian", _challenge)

STEPS: tuple[Step, ...] = (FULFIL, MOTION, CONTRARIAN, SETTLE, SUMMARY, COUNCIL_MEMORY)
"""What every turn does after its answers, in order."""


class Runner(TurnRunner):
    """Runs turns (`TurnRunner`), each followed by `STEPS` unless other `steps` are given.
    `on_event` is called (from worker threads) as participants progress."""

    def __init__(
        self,
        workspace: Workspace | None = None,
        *,
        steps: Sequence[Step] = STEPS,
        providers: ProviderRegistry | None = None,
        timeout: float | None = None,
        on_event: Callable[[TurnEvent], None] | None = None,
        budget: Budget | None = None,
    ) -> None:
        super().__init__(
            workspace,
            steps=steps,
            providers=providers,
            timeout=timeout,
            on_event=on_event,
            budget=budget,
        )
