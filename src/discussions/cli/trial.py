"""`discussions trial`: run a task file through arms and report whether the council beats one
model (`ops.trial`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..ops.trial import TrialOptions, TrialRun, run_trial, write_discussion
from ..ops.trial.arms import Outcome
from ..ops.trial.report import markdown
from ..ops.trial.tasks import Task
from .common import display_path, echo_json, say, workspace
from .options import json_option


@click.command("trial")
@click.argument("tasks", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--arm",
    "arms",
    multiple=True,
    metavar="ARM",
    help="An arm (repeatable): single[:P], self-consistency[:P], vote:P1,P2,..., "
    "council[:P1,P2,...]. Default: single, self-consistency, council.",
)
@click.option("-p", "--provider", help="The model of the arms that name none (every seat too).")
@click.option("--judge", help="The provider that judges rubric tasks (default: as --provider).")
@click.option(
    "--samples",
    type=click.IntRange(min=1, max=100),
    help="Self-consistency's calls per task (default: as many as the council made).",
)
@click.option("-t", "--template", help="The council's template (default: default_template).")
@click.option("--rounds", type=click.IntRange(min=1, max=100), help="The council's round limit.")
@click.option("--timeout", type=click.FloatRange(min=0.1), help="Seconds per provider call.")
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1, max=32),
    default=4,
    show_default=True,
    help="Tasks run at once.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "json"]),
    default="markdown",
    show_default=True,
    help="The report's form.",
)
@click.option(
    "--discussion",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the report as a new discussion file, to review like any decision.",
)
@click.option(
    "--keep",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep the council's discussions in this folder (ARM--TASK.md) instead of deleting them.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on standard error.")
@json_option("Print the report as JSON (as --format json).")
def trial_command(
    tasks: Path,
    arms: tuple[str, ...],
    provider: str | None,
    judge: str | None,
    samples: int | None,
    template: str | None,
    rounds: int | None,
    timeout: float | None,
    jobs: int,
    fmt: str,
    out: Path | None,
    keep: Path | None,
    quiet: bool,
    as_json: bool,
) -> None:
    """Run a task file through arms and report whether the council beats one model.

    TASKS is a YAML or JSON-lines file of questions, each with a known answer and a match
    rule (exact, case-insensitive, regex, number with a tolerance) or a rubric that a judge
    provider scores pairwise, blinded, in both orders. Each arm answers every task: one
    model with one call, the same model N times with the majority (self-consistency, N =
    the council's calls on the task), a vote of several providers, or the council running a
    real discussion of the task to a DECISION:. The report gives each arm's accuracy (or
    preference share) with a Wilson 95% interval, its calls, tokens, cost and cost per
    correct answer. Ctrl-C stops the trial and reports the tasks that finished.

    \b
    Examples:
      discussions trial examples/trial/arithmetic.yaml
      discussions trial tasks.jsonl --arm single:claude --arm council:claude,codex,gemini
      discussions trial tasks.yaml --arm single --arm self-consistency --samples 5 --json
      discussions trial essays.yaml --judge claude --discussion trial-essays.md
      discussions trial tasks.yaml --arm council --rounds 3 --keep trial-councils
    """
    ws = workspace(warn=False)
    options = TrialOptions(provider, judge, samples, template, rounds, timeout, jobs, keep)
    progress = None if quiet else _Progress()
    running = TrialRun()
    try:
        result = run_trial(ws, tasks, arms, options, on_task=progress, trial=running)
    except KeyboardInterrupt:  # pragma: no cover - run_trial returns what finished
        sys.exit(130)
    if out is not None:
        written = write_discussion(ws, result, out)
        say(f"Wrote {display_path(written)}", err=True)
    if as_json or fmt == "json":
        echo_json(result.to_dict())
    else:
        say(markdown(result), nl=False)
    if result.interrupted:
        sys.exit(130)


class _Progress:
    """One line on standard error per finished task."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, task: Task, outcomes: dict[str, Outcome]) -> None:
        self.count += 1
        marks = ", ".join(f"{arm} {_mark(o)}" for arm, o in outcomes.items())
        say(f"[{self.count}] {task.id}: {marks}", err=True)


def _mark(o: Outcome) -> str:
    if o.correct is None:
        return "answered" if o.answer is not None else "no answer"
    return "right" if o.correct else "wrong"
