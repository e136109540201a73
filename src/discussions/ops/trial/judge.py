"""Blinded pairwise judging of rubric tasks: for each pair of arms, a judge provider is shown the
two answers as "Answer 1" and "Answer 2" (no arm, provider or model named) and asked which
meets the rubric better, once in each order.

A pair's verdict: the arm both orders chose; a tie when both said TIE, when the orders chose
different arms (the judge preferred a position, not an answer: position-inconsistent, counted
apart as well), or when a verdict could not be read. An arm without an answer loses to one
with an answer, and two without tie, with no call made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from ...derive.usage import UsageTotals
from ...syntax.fences import fence_block
from .arms import Asking, Outcome, add_usage, call
from .tasks import Task

_VERDICT = re.compile(r"^\s*[*_]*verdict[*_]*\s*:[*_]*\s*(1|2|tie)\b", re.I | re.M)


@dataclass(slots=True)
class Comparison:
    """One pair of arms judged on one task."""

    task: str
    first: str
    second: str
    winner: str | None
    """The arm preferred in both orders; None: a tie."""
    inconsistent: bool = False
    """The two orders preferred different arms."""
    unreadable: int = 0
    """Verdicts (of 2) that could not be read."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "arms": [self.first, self.second],
            "winner": self.winner,
            "inconsistent": self.inconsistent,
            "unreadable": self.unreadable,
        }


@dataclass(slots=True)
class Judging:
    """Every comparison of a trial, and the judge's calls."""

    judge: str = ""
    comparisons: list[Comparison] = field(default_factory=list)
    usage: UsageTotals = field(default_factory=UsageTotals)

    def record(self, arm: str) -> tuple[int, int, int]:
        """(wins, ties, losses) of `arm`."""
        mine = [c for c in self.comparisons if arm in (c.first, c.second)]
        wins = sum(1 for c in mine if c.winner == arm)
        ties = sum(1 for c in mine if c.winner is None)
        return wins, ties, len(mine) - wins - ties


def judge_prompt(task: Task, one: str, two: str) -> str:
    """What the judge is asked: the question, the rubric and two anonymous answers."""
    parts = ["You are judging two answers to the same question against a rubric.", ""]
    if task.context:
        parts += ["## Context", "", task.context, ""]
    parts += ["## Question", "", task.question, "", "## Rubric", "", task.rubric, ""]
    parts += ["## Answer 1", "", fence_block(one), "## Answer 2", "", fence_block(two)]
    parts.append(
        "Which answer meets the rubric better? Judge the content, not the length or the "
        "position. End your reply with one line: VERDICT: 1, VERDICT: 2 or VERDICT: TIE."
    )
    return "\n".join(parts) + "\n"


def verdict(text: str | None) -> str | None:
    """``1``, ``2`` or ``tie`` from the judge's last VERDICT line; None when there is none."""
    found = _VERDICT.findall(text or "")
    return found[-1].lower() if found else None


def judge_task(
    asking: Asking, judge: str, task: Task, outcomes: dict[str, Outcome]
) -> tuple[list[Comparison], UsageTotals]:
    """Compare every pair of arms on `task` (both orders each); the comparisons and what
    the judge's calls cost."""
    found = []
    usage = UsageTotals()
    for a, b in combinations(outcomes, 2):
        found.append(_compare(asking, judge, task, (a, outcomes[a]), (b, outcomes[b]), usage))
    return found, usage


def _compare(
    asking: Asking,
    judge: str,
    task: Task,
    a: tuple[str, Outcome],
    b: tuple[str, Outcome],
    usage: UsageTotals,
) -> Comparison:
    (name_a, out_a), (name_b, out_b) = a, b
    if out_a.answer is None or out_b.answer is None:
        winner = name_a if out_a.answer else name_b if out_b.answer else None
        return Comparison(task.id, name_a, name_b, winner)
    said = []
    for one, two in ((out_a.answer, out_b.answer), (out_b.answer, out_a.answer)):
        reply = call(asking, judge, judge_prompt(task, one, two))
        add_usage(usage, reply.usage)
        said.append(verdict(reply.text))
    chose = [_chosen(said[0], name_a, name_b), _chosen(said[1], name_b, name_a)]
    comparison = Comparison(task.id, name_a, name_b, None, unreadable=said.count(None))
    if chose[0] == chose[1]:
        comparison.winner = chose[0]
    elif chose[0] is not None and chose[1] is not None:
        comparison.inconsistent = True
    else:
        comparison.inconsistent = said.count(None) == 0  # one order chose, the other tied
    return comparison


def _chosen(said: str | None, first: str, second: str) -> str | None:
    return first if said == "1" else second if said == "2" else None
