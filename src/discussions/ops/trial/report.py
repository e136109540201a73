"""A trial's result (`TrialResult`): per arm the accuracy with its Wilson 95% interval (or the
preference share of judged tasks), calls, tokens, cost and cost per correct answer; as JSON
(`to_dict`) and as markdown (`markdown`), which is also the proposal of the discussion file
``--discussion`` writes.

Every figure of usage is what the providers reported (`derive.usage`): a cost or token count
that some calls did not report is shown as partial ("at least"), one that none reported as
unknown; the built-in mock counts as free. Answers are shown in inline code, one line each,
so nothing a model wrote can become a marker, a mention or a heading of the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...derive.usage import UsageTotals
from .arms import Arm, Outcome, add_usage
from .judge import Judging
from .stats import wilson
from .tasks import Task


@dataclass(slots=True)
class ArmSummary:
    """The figures of one arm over the tasks that finished."""

    arm: Arm
    provider: str
    """Who answered: the providers it named, the default, or ``seats`` (the council's own)."""
    correct: int = 0
    scored: int = 0
    """Tasks with a known answer that finished."""
    usage: UsageTotals = field(default_factory=UsageTotals)
    wins: int = 0
    ties: int = 0
    losses: int = 0
    decided: int | None = None
    """The council: runs that ended on consensus."""

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.scored if self.scored else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.correct, self.scored) if self.scored else None

    @property
    def judged(self) -> int:
        return self.wins + self.ties + self.losses

    @property
    def preference(self) -> float | None:
        """Wins, and half of the ties, over the comparisons it was in."""
        return (self.wins + self.ties / 2) / self.judged if self.judged else None

    @property
    def cost_per_correct(self) -> float | None:
        """Dollars per correct answer; None when no answer was correct or a call's cost is
        unknown (a partial sum would flatter the arm)."""
        u = self.usage
        if not self.correct or u.cost_unknown_calls:
            return None
        return u.cost_usd / self.correct

    def to_dict(self) -> dict[str, Any]:
        interval = self.interval
        pref = self.preference
        out: dict[str, Any] = {
            "arm": self.arm.label,
            "kind": self.arm.kind,
            "provider": self.provider,
            "correct": self.correct,
            "scored": self.scored,
            "accuracy": self.accuracy,
            "wilson95": list(interval) if interval else None,
            "cost_per_correct_usd": self.cost_per_correct,
            "usage": self.usage.to_dict(),
        }
        if self.judged:
            out["preference"] = {
                "share": pref,
                "wilson95": list(wilson(self.wins + self.ties / 2, self.judged)),
                "wins": self.wins,
                "ties": self.ties,
                "losses": self.losses,
            }
        if self.decided is not None:
            out["decided"] = self.decided
        return out


@dataclass(slots=True)
class TrialResult:
    """What `run_trial` found."""

    source: str
    """The task file, as named."""
    tasks: list[Task]
    arms: list[ArmSummary]
    outcomes: dict[str, dict[str, Outcome]] = field(default_factory=dict)
    """By task id, by arm label: the tasks that finished."""
    judging: Judging = field(default_factory=Judging)
    interrupted: bool = False
    """Ctrl-C stopped the trial: the figures cover the tasks that finished."""
    notes: list[str] = field(default_factory=list)

    def summarise(self) -> None:
        """Fill each arm's figures from `outcomes` and `judging`."""
        for summary in self.arms:
            label = summary.arm.label
            for by_arm in self.outcomes.values():
                o = by_arm.get(label)
                if o is None:
                    continue
                add_usage(summary.usage, o.usage)
                if o.correct is not None:
                    summary.scored += 1
                    summary.correct += int(o.correct)
                if o.decided is not None:
                    summary.decided = (summary.decided or 0) + int(o.decided)
            summary.wins, summary.ties, summary.losses = self.judging.record(label)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tasks": self.source,
            "task_count": len(self.tasks),
            "finished": len(self.outcomes),
            "interrupted": self.interrupted,
            "arms": [a.to_dict() for a in self.arms],
            "judge": self._judge_dict(),
            "per_task": {
                tid: {arm: o.to_dict() for arm, o in by_arm.items()}
                for tid, by_arm in self.outcomes.items()
            },
            "notes": list(self.notes),
        }

    def _judge_dict(self) -> dict[str, Any] | None:
        j = self.judging
        if not j.comparisons:
            return None
        return {
            "provider": j.judge,
            "comparisons": [c.to_dict() for c in j.comparisons],
            "inconsistent": sum(1 for c in j.comparisons if c.inconsistent),
            "usage": j.usage.to_dict(),
        }


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _interval(pair: tuple[float, float] | None) -> str:
    return "-" if pair is None else f"{100 * pair[0]:.1f}-{100 * pair[1]:.1f}%"


def _dollars(u: UsageTotals) -> str:
    if u.calls and u.cost_unknown_calls >= u.calls:
        return "unknown"
    prefix = "at least " if u.cost_unknown_calls else ""
    return f"{prefix}${u.cost_usd:.4f}"


def _tokens(u: UsageTotals) -> str:
    if u.calls and u.unknown_calls >= u.calls:
        return "unknown"
    prefix = "at least " if u.unknown_calls else ""
    return f"{prefix}{u.input_tokens} in / {u.output_tokens} out"


def _code(text: str | None, limit: int = 60) -> str:
    """`text` as one line of inline code for a table cell (or ``-``)."""
    if text is None:
        return "-"
    line = " ".join(text.split()).replace("|", "\\|")
    line = line if len(line) <= limit else line[: limit - 3] + "..."
    fence = "``" if "`" in line else "`"
    return f"{fence} {line} {fence}" if fence == "``" else f"`{line}`"


def markdown(result: TrialResult, heading: str = "#") -> str:
    """The report as markdown; `heading` is the level of its title (``###`` inside a
    discussion's proposal)."""
    sub = heading + "#"
    lines = [f"{heading} Trial: {result.source}", ""]
    finished = len(result.outcomes)
    lines.append(
        f"{finished} of {len(result.tasks)} task(s) finished"
        + (" (interrupted: the figures cover these)." if result.interrupted else ".")
    )
    lines += ["", *_arm_table(result)]
    if any(a.judged for a in result.arms):
        lines += ["", f"{sub} Judged tasks (blinded, both orders)", "", *_judged(result)]
    lines += ["", f"{sub} Per task", "", *_per_task(result)]
    if result.notes:
        lines += ["", f"{sub} Notes", ""] + [f"- {n}" for n in result.notes]
    return "\n".join(lines) + "\n"


def _arm_table(result: TrialResult) -> list[str]:
    rows = [
        "| arm | provider | accuracy | Wilson 95% | correct | calls | tokens | cost | "
        "cost per correct |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for a in result.arms:
        u = a.usage
        per = "-" if a.cost_per_correct is None else f"${a.cost_per_correct:.4f}"
        decided = f" ({a.decided} decided)" if a.decided is not None else ""
        calls = f"{u.calls}" + (f" (+{u.failed_calls} failed)" if u.failed_calls else "")
        rows.append(
            f"| {a.arm.label} | {a.provider} | {_percent(a.accuracy)} | "
            f"{_interval(a.interval)} | {a.correct}/{a.scored}{decided} | {calls} | "
            f"{_tokens(u)} | {_dollars(u)} | {per} |"
        )
    return rows


def _judged(result: TrialResult) -> list[str]:
    j = result.judging
    rows = [
        f"Judge: {j.judge}; {len(j.comparisons)} comparison(s), "
        f"{sum(1 for c in j.comparisons if c.inconsistent)} position-inconsistent "
        f"(counted as ties); judge calls: {j.usage.calls}, tokens {_tokens(j.usage)}, "
        f"cost {_dollars(j.usage)}.",
        "",
        "| arm | preference | Wilson 95% | wins | ties | losses |",
        "|---|---|---|---|---|---|",
    ]
    for a in result.arms:
        if a.judged:
            share = wilson(a.wins + a.ties / 2, a.judged)
            rows.append(
                f"| {a.arm.label} | {_percent(a.preference)} | {_interval(share)} | "
                f"{a.wins} | {a.ties} | {a.losses} |"
            )
    return rows


def _per_task(result: TrialResult) -> list[str]:
    labels = [a.arm.label for a in result.arms]
    rows = ["| task | known answer | " + " | ".join(labels) + " |"]
    rows.append("|---|---|" + "---|" * len(labels))
    for t in result.tasks:
        by_arm = result.outcomes.get(t.id)
        if by_arm is None:
            continue
        cells = []
        for label in labels:
            o = by_arm.get(label)
            mark = "" if o is None or o.correct is None else (" ✓" if o.correct else " ✗")
            cells.append(("-" if o is None else _code(o.answer)) + mark)
        known = _code(t.answer) if t.answer is not None else "(rubric)"
        rows.append(f"| {_code(t.id, 40)} | {known} | " + " | ".join(cells) + " |")
    return rows
