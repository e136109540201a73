"""`discussions trial`: does the council beat one model? Tasks with known answers (or rubrics)
run through arms (`arms`: one call, self-consistency, a vote of providers, the council), scored
by match rules or a blinded judge, reported with Wilson intervals and what the calls cost
(`report`).

`run_trial` is the operation. Tasks run at once up to `jobs` (a provider's own ``parallel``
limit holds besides); within a task the council runs first, so that self-consistency makes as
many calls as the council made on the same task (unless ``samples`` says how many; with no
council arm, as many as the council has seats). Ctrl-C (`TrialRun.stop`) stops new calls,
ends the running ones, and leaves the result of the tasks that finished.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from ...errors import BadInput
from ...providers.chains import provider_chain
from ...providers.command import terminate_all
from ...providers.registry import ProviderRegistry
from ...settings.workspace import Workspace, display_path
from ..lifecycle import create
from .arms import DEFAULT_ARMS, Arm, Asking, Outcome, add_usage, ask_many, ask_once, parse_arm
from .council import CouncilSettings, ask_council, seats
from .judge import Judging, judge_task
from .report import ArmSummary, TrialResult, markdown
from .tasks import Task, load_tasks

__all__ = ["TrialOptions", "TrialResult", "TrialRun", "run_trial", "write_discussion"]

_MAX_JOBS = 32


@dataclass(frozen=True, slots=True)
class TrialOptions:
    """How a trial runs, besides its tasks and arms."""

    provider: str | None = None
    """The model of the arms that name none (and of every council seat); None: see `arms`."""
    judge: str | None = None
    """Who judges rubric tasks (None: the arms' default provider)."""
    samples: int | None = None
    """Self-consistency's calls per task (None: the council's, see the module docstring)."""
    template: str | None = None
    rounds: int | None = None
    timeout: float | None = None
    jobs: int = 4
    keep: Path | None = None
    """Where the council's discussions are kept (None: deleted after each task)."""


class TrialRun:
    """One trial in progress: `stop` (from another thread, or on Ctrl-C) ends it early."""

    def __init__(self) -> None:
        self.stopping = threading.Event()

    def stop(self) -> None:
        """No new call starts; the running ones are ended (their process groups killed)."""
        self.stopping.set()
        terminate_all()


def run_trial(
    ws: Workspace,
    tasks_path: Path,
    arms: Sequence[str] = (),
    options: TrialOptions | None = None,
    *,
    on_task: Callable[[Task, dict[str, Outcome]], None] | None = None,
    trial: TrialRun | None = None,
) -> TrialResult:
    """Run the tasks of `tasks_path` through `arms` (default `DEFAULT_ARMS`). `on_task` hears
    each task as it finishes. KeyboardInterrupt in the calling thread stops the trial and
    returns what finished (`TrialResult.interrupted`)."""
    options = options or TrialOptions()
    if not 1 <= options.jobs <= _MAX_JOBS:
        raise BadInput(f"jobs must be between 1 and {_MAX_JOBS}", "jobs")
    tasks = load_tasks(tasks_path)
    parsed = _unique([parse_arm(a) for a in (arms or DEFAULT_ARMS)])
    registry = ProviderRegistry.load(ws.config.base_dir)
    default = options.provider or _default_provider(ws, registry)
    _check_providers(registry, parsed, default, options)
    trial = trial or TrialRun()
    timeout = options.timeout or ws.config.provider_timeout
    asking = Asking(registry, timeout, trial.stopping, options.jobs)
    plan = _Plan(ws, asking, parsed, default, options)
    result = TrialResult(display_path(tasks_path), tasks, [plan.summary(a) for a in parsed])
    result.judging.judge = options.judge or default
    result.interrupted = _run_all(plan, tasks, result, on_task, trial)
    result.summarise()
    result.notes += _notes(result)
    return result


def _unique(arms: list[Arm]) -> list[Arm]:
    labels = [a.label for a in arms]
    for label in labels:
        if labels.count(label) > 1:
            raise BadInput(f"arm {label!r} is named twice", "arm")
    return arms


def _default_provider(ws: Workspace, registry: ProviderRegistry) -> str:
    """The first installed provider of the configured chain (`provider_chain`), else the
    mock: the model a participant without a hint of its own would get."""
    chain = provider_chain(
        registry,
        hint=None,
        default=ws.config.default_provider,
        fallbacks=ws.config.fallback_providers,
        detect=bool(ws.config.section("providers").get("detect", True)),
    )
    return next((name for name in chain if registry.installed(name)), "mock")


def _check_providers(
    registry: ProviderRegistry, arms: list[Arm], default: str, options: TrialOptions
) -> None:
    """Refuse, before any call, a provider named that cannot run here."""
    names = {default, options.judge or default}
    for arm in arms:
        names.update(arm.providers)
    for name in sorted(names):
        registry.require(name)


class _Plan:
    """The arms of a trial and how each asks."""

    def __init__(
        self, ws: Workspace, asking: Asking, arms: list[Arm], default: str, options: TrialOptions
    ) -> None:
        self.ws, self.asking, self.arms, self.default = ws, asking, arms, default
        self.options = options
        self.council = CouncilSettings(
            options.template, options.rounds, options.provider, options.keep
        )
        self.judging = Judging()
        self._seats = 0

    def summary(self, arm: Arm) -> ArmSummary:
        if arm.providers:
            shown = ",".join(arm.providers)
        elif arm.kind == "council":
            shown = self.options.provider or "seats' own"
        else:
            shown = self.default
        return ArmSummary(arm, shown)

    def samples(self, council: Outcome | None) -> int:
        """Self-consistency's calls for a task: ``samples``, else the council's calls on it,
        else the council's seats."""
        if self.options.samples:
            return self.options.samples
        if council is not None and council.usage.calls:
            return council.usage.calls
        if not self._seats:
            self._seats = len(seats(self.ws, self.options.template)) or 1
        return self._seats

    def run_task(self, task: Task) -> dict[str, Outcome]:
        """Every arm on `task`: the councils first (self-consistency matches their calls)."""
        done: dict[str, Outcome] = {}
        for arm in sorted(self.arms, key=lambda a: a.kind != "council"):
            done[arm.label] = self._one(arm, task, done)
        return {a.label: done[a.label] for a in self.arms}

    def _one(self, arm: Arm, task: Task, done: dict[str, Outcome]) -> Outcome:
        if arm.kind == "council":
            return ask_council(self.ws, self.asking, task, arm, self.council)
        provider = arm.providers[0] if arm.providers else self.default
        if arm.kind == "single":
            return ask_once(self.asking, task, provider)
        if arm.kind == "vote":
            return ask_many(self.asking, task, arm.providers)
        council = next((done[a.label] for a in self.arms if a.kind == "council"), None)
        return ask_many(self.asking, task, [provider] * self.samples(council))


def _run_all(
    plan: _Plan,
    tasks: list[Task],
    result: TrialResult,
    on_task: Callable[[Task, dict[str, Outcome]], None] | None,
    trial: TrialRun,
) -> bool:
    """Run every task (at most `jobs` at once) into `result`; whether it was interrupted."""
    judge = result.judging.judge
    pool = ThreadPoolExecutor(max_workers=plan.asking.jobs)
    futures: dict[Future[dict[str, Outcome]], Task] = {
        pool.submit(_task_and_judging, plan, judge, t, result): t for t in tasks
    }
    try:
        _collect(futures, result, on_task)
    except KeyboardInterrupt:
        trial.stop()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if trial.stopping.is_set():
        _collect_finished(futures, result)
    return trial.stopping.is_set()


def _task_and_judging(
    plan: _Plan, judge: str, task: Task, result: TrialResult
) -> dict[str, Outcome]:
    outcomes = plan.run_task(task)
    if task.judged and len(outcomes) > 1 and not _interrupted(outcomes):
        found, usage = judge_task(plan.asking, judge, task, outcomes)
        with _judging_lock:
            result.judging.comparisons += found
            add_usage(result.judging.usage, usage)
    return outcomes


_judging_lock = threading.Lock()


def _interrupted(outcomes: dict[str, Outcome]) -> bool:
    return any(o.interrupted for o in outcomes.values())


def _collect(
    futures: dict[Future[dict[str, Outcome]], Task],
    result: TrialResult,
    on_task: Callable[[Task, dict[str, Outcome]], None] | None,
) -> None:
    """Wait for the tasks in short slices (so Ctrl-C reaches this thread), keeping each one
    that finished whole, in the order of the task file."""
    pending = set(futures)
    while pending:
        finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
        for future in finished:
            outcomes = future.result()
            if not _interrupted(outcomes):
                result.outcomes[futures[future].id] = outcomes
                if on_task is not None:
                    on_task(futures[future], outcomes)
    _in_task_order(result)


def _collect_finished(futures: dict[Future[dict[str, Outcome]], Task], result: TrialResult) -> None:
    for future, task in futures.items():
        if future.done() and not future.cancelled() and future.exception() is None:
            outcomes = future.result()
            if not _interrupted(outcomes):
                result.outcomes[task.id] = outcomes
    _in_task_order(result)


def _in_task_order(result: TrialResult) -> None:
    order = {t.id: i for i, t in enumerate(result.tasks)}
    result.outcomes = dict(sorted(result.outcomes.items(), key=lambda kv: order[kv[0]]))
    result.judging.comparisons.sort(key=lambda c: order[c.task])


def _notes(result: TrialResult) -> list[str]:
    notes = []
    outcomes = [o for by_arm in result.outcomes.values() for o in by_arm.values()]
    answered = {name for o in outcomes for name in o.answered_by}
    if "mock" in answered or (result.judging.comparisons and result.judging.judge == "mock"):
        notes.append(
            "The built-in mock answered some arms: its answers are placeholders, not a "
            "model's, so these figures show the trial working, not how good a model is."
        )
    if result.interrupted:
        notes.append("Interrupted: tasks that had not finished are left out of every figure.")
    return notes


_REVIEW = (
    "A trial made by `discussions trial`, for review: are the tasks, the arms and the "
    "figures sound, and what should this project conclude from them about its council?\n\n"
)


def write_discussion(ws: Workspace, result: TrialResult, out: Path) -> Path:
    """Write the report as a new discussion file at `out` (never over an existing file), its
    proposal the markdown report: reviewable like any decision (`discussions run` on it)."""
    title = f"Trial of {Path(result.source).name}"
    made = create(
        ws,
        title,
        context=_REVIEW + markdown(result, heading="###"),
        directory=out.parent,
        file_name=out.name,
    )
    return made.discussion.path
