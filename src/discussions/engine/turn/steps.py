"""After the answers: the steps a turn runs once its answers are in, in order, as `derive` runs
its rules, and the loading, while the providers think, of what only the answers need.

A runner is given its steps (`Step`); the list every runner gets is declared once, above this
wing (`engine.runner.STEPS`), because one of them is the council's: a turn knows a step only
by this protocol. The turn's own steps are here (the phase rules, the summary file), and the
evidence wing's (requests fulfilled, the one follow-up call)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ...errors import DiscussionsError
from ...syntax.code import block_parser
from ...syntax.lazyre import compile_waiting
from ...syntax.record import FrozenRecord, Record
from ..evidence.turn import after_answers

if TYPE_CHECKING:
    from ...model.discussion import Discussion
    from ...settings.participants import Participant
    from .asking import Asker
    from .outcomes import TurnResult


class AfterAnswers(Record):
    """What the after-answer steps of one turn work on and share.
    (A slotted `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = (
        "discussion", "chosen", "result", "asker", "provider", "council", "ask_again",
        "budget_stop",
    )  # fmt: skip
    discussion: Discussion
    chosen: Sequence[Participant]
    """The participants the turn called."""
    result: TurnResult
    """The turn's result, which the steps add to (evidence, the motion, phase changes)."""
    asker: Asker
    """The runner, for a step that asks participants again (seconds, ballots)."""
    provider: str | None
    """The provider the turn was forced to (``--provider``), if any."""
    council: bool
    """Whether an open motion is handled after this turn (``run_turn(council=...)``)."""
    ask_again: Callable[[list[Participant]], None]
    """One more call, in this turn, for these participants (the evidence follow-up)."""
    budget_stop: Callable[[str], None]
    """Stop the turn for a reason: noted in the result and recorded as a ``RUN-STOP`` block."""

    def __init__(
        self,
        discussion: Discussion,
        chosen: Sequence[Participant],
        result: TurnResult,
        asker: Asker,
        provider: str | None,
        council: bool,
        ask_again: Callable[[list[Participant]], None],
        budget_stop: Callable[[str], None],
    ) -> None:
        self.discussion = discussion
        self.chosen = chosen
        self.result = result
        self.asker = asker
        self.provider = provider
        self.council = council
        self.ask_again = ask_again
        self.budget_stop = budget_stop

    @property
    def heard(self) -> bool:
        """Something was said: without it no motion is handled and no phase moves."""
        return not self.result.no_answer


class Step(FrozenRecord):
    """One thing a turn does after its answers, in the order of the runner's list. A step
    that writes the file reloads the discussion (`Discussion.reload`): the steps after it, and
    the turn's result, read it as it then is. (A frozen `Record`, as `AfterAnswers`.)"""

    __slots__ = ("name", "run", "loads")
    name: str
    run: Callable[[AfterAnswers], None]
    loads: tuple[str, ...]
    """Modules `run` imports when it runs: loaded while the providers think (`warm_up`)."""

    def __init__(
        self, name: str, run: Callable[[AfterAnswers], None], loads: tuple[str, ...] = ()
    ) -> None:
        self._init(name, run, loads)


def _fulfil_requests(after: AfterAnswers) -> None:
    """The evidence step: requests the answers made fulfilled, and one follow-up call for
    those whose request was (`evidence.turn.after_answers`)."""
    after_answers(after.discussion, after.chosen, after.result, after.ask_again)
    after.discussion.reload()


def _settle_phases(after: AfterAnswers) -> None:
    """The phase rules applied (`phases.settle`), once something was said."""
    if after.heard:
        from . import phases  # loaded while the providers think

        after.result.changes.extend(phases.settle(after.discussion))


def _refresh_summary(after: AfterAnswers) -> None:
    """The summary file rewritten (``summary_files``), once something was said; a failure is a
    warning (the answers are in, the summary can be rebuilt)."""
    d = after.discussion
    if not after.heard or not d.workspace.config.summary_files:
        return
    from ...model.summary import write_summary

    try:
        write_summary(d)
    except DiscussionsError as exc:
        after.result.warnings.append(f"summary not updated: {exc}")


FULFIL = Step("evidence", _fulfil_requests)
SETTLE = Step("phases", _settle_phases, ("discussions.engine.turn.phases",))
SUMMARY = Step("summary", _refresh_summary)


# -- loading while the providers think ---------------------------------------------------------

_WARM_UP_DELAY = 0.05
"""Seconds before `warm_up` loads: the commands are started by then (a few ms each), and the
imports do not hold the interpreter lock while they start."""

_AFTER_THE_CALLS = (
    "discussions.engine.turn.posting",  # each answer into the record (with `followup`, `answers`)
    "discussions.model.journal",  # the memory of one's own appends
)
"""What only the answers need, whatever the steps: loaded while the providers think, not
before the first call (they are not needed to start it) nor after the last answer (the turn
would wait for them)."""


def warm_up(steps: Sequence[Step] = ()) -> None:
    """Load, while the providers think, the markdown parser that every answer goes through
    (`neutralise`; importing markdown-it takes 15-50 ms), the modules only the answers need
    (`_AFTER_THE_CALLS`) and those the `steps` load, and compile the regular expressions left
    to their first use (`lazyre`): otherwise they would load after the first answer arrives."""
    names = (*_AFTER_THE_CALLS, *(name for step in steps for name in step.loads))
    if not all(name in sys.modules for name in ("markdown_it", *names)):
        timer = threading.Timer(_WARM_UP_DELAY, _load_for_the_answers, (names,))
        timer.daemon = True
        timer.start()


def _load_for_the_answers(names: Sequence[str] = _AFTER_THE_CALLS) -> None:
    """Load the markdown parser and the modules `names`; compile the waiting patterns."""
    import importlib

    block_parser()
    for name in names:
        importlib.import_module(name)
    compile_waiting()
