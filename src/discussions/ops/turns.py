"""The acts that ask the AI participants: a turn (each asked once) and a run (rounds of turns
until the discussion is decided or a stop condition); and evidence, the requests they made
fulfilled by the engine. The CLI, the terminal app, the web API,
the MCP tools and the language server all ask through these, so a turn started anywhere asks
the same participants, under the same budget, with the same checks.

Each takes the workspace and the discussion's path; what to show while it goes on comes back
through `on_event` (each participant's steps, `TurnEvent`) and, for a run, `on_round`; `ready`
hears the discussion as loaded and who will be asked, before anyone is (the CLI says there
what the evidence lacks and draws its progress rows). The results are the engine's own
`TurnResult` and `RunResult`, whose `to_dict` is the JSON every interface answers with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BadInput
from ..model.discussion import Discussion
from ..settings.workspace import Workspace

if TYPE_CHECKING:
    from ..engine.council.deliberation import RoundEvent, RunResult
    from ..engine.evidence.fulfil import Fulfilled
    from ..engine.turn.outcomes import TurnEvent, TurnResult
    from ..settings.participants import Participant

_MAX_ROUNDS = 100
"""Most rounds a run may be asked for."""

_EventSink = Callable[["TurnEvent"], None]
Ready = Callable[[Discussion, "list[Participant]"], None]
"""Called with the discussion as loaded and the participants about to be asked."""


def check_rounds(rounds: int | None) -> None:
    """Refuse a number of rounds a run cannot be asked for (a server checks before it starts
    the run in the background, `run` again)."""
    if rounds is not None and not 1 <= rounds <= _MAX_ROUNDS:
        raise BadInput(f"rounds must be between 1 and {_MAX_ROUNDS}", "rounds")


def asked(
    ws: Workspace, path: Path, participants: Sequence[str] = (), *, council: bool = False
) -> list[Participant]:
    """Who a turn (with `council`: a run's first round) on the discussion at `path` would ask:
    `participants` by alias, else those mentioned and not answered, else the discussion's."""
    from ..engine.turn.routing import select_participants

    return select_participants(Discussion.load(path, ws), participants, council=council)


def turn(
    ws: Workspace,
    path: Path,
    participants: Sequence[str] = (),
    *,
    callout: str | None = None,
    provider: str | None = None,
    sequential: bool = False,
    timeout: float | None = None,
    on_event: _EventSink | None = None,
    ready: Ready | None = None,
) -> TurnResult:
    """Ask `participants` (aliases; ``all`` for every one; default: see `asked`) to answer,
    append their comments and votes, then apply the phase rules and the council's motion."""
    from ..engine.runner import Runner
    from ..engine.turn.routing import select_participants

    d = Discussion.load(path, ws)
    if ready is not None:
        ready(d, select_participants(d, participants))
    runner = Runner(ws, timeout=timeout, on_event=on_event)
    return runner.run_turn(d, list(participants), callout, provider=provider, sequential=sequential)


def run(
    ws: Workspace,
    path: Path,
    participants: Sequence[str] = (),
    *,
    rounds: int | None = None,
    callout: str | None = None,
    provider: str | None = None,
    sequential: bool = False,
    seed: int | None = None,
    timeout: float | None = None,
    max_cost: float | None = None,
    max_calls: int | None = None,
    on_event: _EventSink | None = None,
    on_round: Callable[[RoundEvent], None] | None = None,
    ready: Ready | None = None,
) -> RunResult:
    """Run rounds (at most `rounds`, else the phase's limit) until a stop condition, under the
    discussion's configured ``budget:`` narrowed by `max_cost` dollars and `max_calls` calls."""
    from ..engine.council.deliberation import run_discussion
    from ..engine.runner import Runner
    from ..engine.turn.routing import select_participants
    from ..model.budget import configured_budget

    check_rounds(rounds)
    d = Discussion.load(path, ws)
    if ready is not None:
        ready(d, select_participants(d, participants, council=True))
    budget = configured_budget(d).merged(max_cost, max_calls)
    runner = Runner(ws, timeout=timeout, on_event=on_event, budget=budget)
    return run_discussion(
        runner,
        d,
        list(participants),
        rounds=rounds,
        sequential=sequential,
        provider=provider,
        callout=callout,
        seed=seed,
        on_round=on_round,
    )


def evidence(ws: Workspace, path: Path) -> Fulfilled:
    """Fulfil the discussion's pending ``EVIDENCE:`` requests now (a turn does it after its
    answers): each read from the project, confined to it, and appended as an evidence block;
    one that may not be fulfilled recorded as refused, with the reason."""
    from ..engine.evidence.fulfil import fulfil_pending

    return fulfil_pending(Discussion.load(path, ws))
