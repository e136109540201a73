"""`discussions trial` reproduces the statistics of majority voting, with scripted models on an
openai-compatible server whose accuracy the test sets (the product's HTTP provider, over real
HTTP on loopback, calling a stub that answers each question right with probability 0.6).

Three independent voters, each right with p = 0.6, give the right majority with probability
P(at least 2 of 3) = 3 p^2 (1 - p) + p^3 = 0.432 + 0.216 = 0.648 (each wrong answer is the
same wrong number, so a vote is right or wrong and nothing else). Three copies of one model
(the same seed: perfectly correlated) are no better than the one: 0.6.

Over n tasks an accuracy has a standard error sqrt(p (1 - p) / n): with n = 1000, 0.0151 at
0.648 and 0.0155 at 0.6. The seed is fixed, so the figures are the same on every run; the
tolerance of three standard errors says that the seed is not a lucky one (a seed outside it
would come up about once in 370), and the paired comparison of the majority with its own
first voter (the majority is right where voter 1 is wrong and the other two are right,
p = 0.144, and wrong where voter 1 alone is right, p = 0.096: a mean gain of 0.048 with a
standard deviation of 0.4875 per task, 0.0154 over 1000) is asked to clear two standard
errors, so a vote that took the first answer instead of the majority would fail.
"""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path
from typing import Any

import pytest

from discussions.ops.trial import TrialOptions, run_trial
from discussions.settings.workspace import Workspace

from ..conftest import write
from ..support.openai_stub import StubServer, serve

P = 0.6
N_TASKS = 1000
SEED_TASKS = 7


def scripted(body: dict[str, Any]) -> str:
    """The stub model: the model's name is its seed; right with probability `P` per
    question, else one more than the sum."""
    prompt = body["messages"][-1]["content"]
    found = re.search(r"What is (-?\d+) \+ (-?\d+)\?", prompt)
    assert found is not None
    a, b = int(found.group(1)), int(found.group(2))
    right = random.Random(f"{body['model']}:{a}:{b}").random() < P
    return f"Adding.\nANSWER: {a + b if right else a + b + 1}"


def entries(base_url: str, names: list[str]) -> str:
    lines = ["providers:"]
    for name in names:
        lines += [
            f"  - name: {name}",
            "    type: openai-compatible",
            f"    base_url: {base_url}",
            f"    model: {name}",
            "    stream: false",
        ]
    return "\n".join(lines) + "\n"


def tasks_file(path: Path) -> Path:
    rng = random.Random(SEED_TASKS)
    pairs = set()
    while len(pairs) < N_TASKS:
        pairs.add((rng.randrange(100, 10_000), rng.randrange(100, 10_000)))
    lines = [
        json.dumps({"id": f"{a}+{b}", "question": f"What is {a} + {b}?", "answer": a + b})
        for a, b in sorted(pairs)
    ]
    return write(path, "\n".join(lines) + "\n")


def exact_majority(p: float, voters: int = 3) -> float:
    need = voters // 2 + 1
    return sum(math.comb(voters, k) * p**k * (1 - p) ** (voters - k) for k in range(need, 4))


def standard_error(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_independent_voters_gain_by_majority_and_copies_of_one_do_not(
    isolated: Path, userdir: Path
) -> None:
    assert exact_majority(P) == pytest.approx(0.648)
    tasks = tasks_file(isolated / "sums.jsonl")
    with serve(StubServer(mode="json", reply=scripted)) as stub:
        write(userdir / "providers.yaml", entries(stub.base_url, ["v1", "v2", "v3"]))
        arms = ["single:v1", "vote:v1,v2,v3", "vote:v1,v1,v1", "self-consistency:v1"]
        options = TrialOptions(samples=3, jobs=8)
        result = run_trial(Workspace.discover(), tasks, arms, options)
    by_arm = {a.arm.label: a for a in result.arms}
    single, independent = by_arm["single:v1"], by_arm["vote:v1,v2,v3"]
    copies, consistency = by_arm["vote:v1,v1,v1"], by_arm["self-consistency:v1"]
    assert single.scored == independent.scored == copies.scored == N_TASKS
    tolerance = 3 * standard_error(exact_majority(P), N_TASKS)
    assert independent.accuracy == pytest.approx(exact_majority(P), abs=tolerance)
    assert single.accuracy == pytest.approx(P, abs=3 * standard_error(P, N_TASKS))
    # copies of one answer as the one does, task by task
    assert copies.correct == consistency.correct == single.correct
    for outcomes in result.outcomes.values():
        assert outcomes["vote:v1,v1,v1"].correct == outcomes["single:v1"].correct
    # the majority beats its own first voter by more than two paired standard errors
    gain = (independent.correct - single.correct) / N_TASKS
    assert gain > 2 * 0.4875 / math.sqrt(N_TASKS)
    assert independent.usage.calls == 3 * N_TASKS and single.usage.calls == N_TASKS
    assert single.usage.input_tokens == 42 * N_TASKS  # the server's reported usage
    print(
        f"single {single.accuracy:.3f}, independent majority {independent.accuracy:.3f} "
        f"(exact {exact_majority(P):.3f} +- {tolerance:.3f}), copies {copies.accuracy:.3f}"
    )
