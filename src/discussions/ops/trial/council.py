"""The council arm: a real discussion of the task, run by the engine in a temporary file, the
path ``discussions new`` then ``discussions run`` take (`lifecycle.create`, `turns.run`).

The council's answer is read from the discussion as the run left it (`decided_answer`): each
author's latest ``DECISION:`` line that gives an answer (`answers.extract`: ``DECISION:
ANSWER: 42`` or ``DECISION: 42``; a decision said again counts where it was last said)
counts once, and the answer most of them give is the council's, a tie going to the one
written last. A council that agrees has one answer; one that does not is read by its
majority, never by which parallel answer happened to be appended last. No decision, no
answer. Whether the run ended on consensus is reported beside it (`Outcome.decided`). Its calls,
tokens and cost are the discussion's own totals (`Discussion.usage`), as ``status`` shows.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ...derive.state import Item
from ...errors import BadInput
from ...model import journal
from ...model.discussion import Discussion
from ...settings.config import Config
from ...settings.participants import ParticipantRegistry
from ...settings.workspace import Workspace
from ...syntax.text import slugify
from ..lifecycle import create
from ..turns import run
from .answers import answer_of, council_context, extract
from .arms import Arm, Asking, Outcome
from .tasks import Task


@dataclass(frozen=True, slots=True)
class CouncilSettings:
    """How the council arm runs: the template (None: the configured default), the round
    limit (None: the run's own), the provider for every seat (``--provider``), and the
    folder its discussions are kept in (None: each in a temporary folder, deleted)."""

    template: str | None = None
    rounds: int | None = None
    provider: str | None = None
    keep: Path | None = None


class SeatedWorkspace(Workspace):
    """The workspace with the council's seats answered by the providers a mixed arm names:
    each seat's persona with that provider as its hint, tried first (a persona of the user's
    own, not a bundled default: `registry.participant_chain`)."""

    def __init__(self, config: Config, participants: ParticipantRegistry) -> None:
        super().__init__(config)
        self._seated = participants

    @cached_property
    def participants(self) -> ParticipantRegistry:
        return self._seated


def seats(ws: Workspace, template: str | None) -> list[str]:
    """The aliases a new discussion of `template` seats (`Discussion.create`'s rule)."""
    return list(Discussion.create("seats", template=template, workspace=ws).participants)


def seated(ws: Workspace, aliases: list[str], providers: tuple[str, ...]) -> Workspace:
    """`ws` with seat i answered by ``providers[i]``; `BadInput` when more providers are named
    than there are seats."""
    if len(providers) > len(aliases):
        raise BadInput(
            f"council:{','.join(providers)} names {len(providers)} providers for "
            f"{len(aliases)} seats ({', '.join(aliases)}); name at most one a seat",
            "arm",
        )
    changed = [
        ws.participants.get(a).replaced(provider_hint=providers[i % len(providers)], source=None)
        for i, a in enumerate(aliases)
    ]
    return SeatedWorkspace(ws.config, ParticipantRegistry([*ws.participants, *changed]))


def ask_council(
    ws: Workspace, asking: Asking, task: Task, arm: Arm, settings: CouncilSettings
) -> Outcome:
    """Run the council on `task` in a temporary discussion, deleted afterwards (kept, as
    ``ARM--TASK.md``, in `CouncilSettings.keep` when given)."""
    if settings.keep is not None:
        name = f"{slugify(arm.label) or 'council'}--{slugify(task.id) or 'task'}.md"
        return _run_in(settings.keep, name, ws, asking, task, arm, settings)
    folder = Path(tempfile.mkdtemp(prefix="discussions-trial-"))
    try:
        return _run_in(folder, "task.md", ws, asking, task, arm, settings)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        journal.forget(folder)


def _run_in(
    folder: Path,
    name: str,
    ws: Workspace,
    asking: Asking,
    task: Task,
    arm: Arm,
    settings: CouncilSettings,
) -> Outcome:
    forced = settings.provider
    if len(arm.providers) == 1:
        forced = arm.providers[0]
    elif arm.providers:
        ws = seated(ws, seats(ws, settings.template), arm.providers)
        forced = None
    made = create(
        ws,
        f"Trial: {task.id}",
        template=settings.template,
        context=council_context(task),
        directory=folder,
        file_name=name,
    )

    def stop_between_rounds(_event: object) -> None:
        if asking.stopping.is_set():
            raise KeyboardInterrupt  # `run` records the stop and returns

    result = run(
        ws,
        made.discussion.path,
        rounds=settings.rounds,
        provider=forced,
        timeout=asking.timeout,
        on_round=stop_between_rounds,
    )
    d = Discussion.load(made.discussion.path, ws)
    outcome = Outcome(usage=d.usage.total, decided=result.stopped == "consensus")
    outcome.stopped = result.stopped
    outcome.answered_by = set(d.usage.by_provider)
    outcome.answer = decided_answer(task, d.decisions)
    # Ctrl-C ends the calls under way: the run may then stop as a round without answers
    outcome.interrupted = result.stopped == "interrupted" or asking.stopping.is_set()
    if not task.judged and not outcome.interrupted:
        outcome.correct = task.matches(outcome.answer)
    return outcome


def decided_answer(task: Task, decisions: list[Item]) -> str | None:
    """The council's answer (the module docstring's rule)."""
    latest: dict[str, tuple[int, str]] = {}  # author -> (line, answer) of their latest
    for item in decisions:
        found = answer_of(task, item.text) if task.judged else extract(item.text)
        said = [(item.author, item.line), *((r.author, r.line) for r in item.restated)]
        for author, line in said if found else []:
            if line >= latest.get(author, (0, ""))[0]:
                latest[author] = (line, str(found))
    groups: dict[str, list[tuple[int, str]]] = {}
    for line, found in latest.values():
        groups.setdefault(task.vote_key(found), []).append((line, found))
    if not groups:
        return None
    best = max(groups.values(), key=lambda said: (len(said), max(said)[0]))
    return max(best)[1]
