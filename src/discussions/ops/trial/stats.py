"""The figures of a trial: the Wilson score interval of a proportion, and the majority of a set
of answers (self-consistency and votes between providers).

Wilson's interval (Wilson 1927; Brown, Cai and DasGupta 2001 recommend it over the normal
approximation for small samples and proportions near 0 or 1):

    centre = (p + z^2 / 2n) / (1 + z^2 / n)
    half   = z * sqrt(p(1-p)/n + z^2 / 4n^2) / (1 + z^2 / n)

with z = 1.959964 for 95%. It never leaves [0, 1] and is not empty at p = 0 or 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

Z95 = 1.959963984540054
"""The standard normal quantile of 0.975: a two-sided 95% interval."""


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of `successes` out of `n` (a half counts: a tie in a
    preference share); (0, 1) when there is nothing to go on (n = 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = min(max(successes / n, 0.0), 1.0)
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def majority(answers: Sequence[str | None], key: Callable[[str], str]) -> str | None:
    """The answer most of `answers` give, grouped by `key` (a task's `vote_key`): the first
    answer of the winning group, as given. A tie between groups goes to the group whose first
    answer comes first in `answers` (the order the calls were made in, not the order they
    finished), so a trial repeats. Calls without an answer (None) do not vote; None when no
    call gave one."""
    counts: dict[str, int] = {}
    first: dict[str, tuple[int, str]] = {}
    for i, answer in enumerate(answers):
        if answer is None:
            continue
        k = key(answer)
        counts[k] = counts.get(k, 0) + 1
        first.setdefault(k, (i, answer))
    if not counts:
        return None
    best = max(counts, key=lambda k: (counts[k], -first[k][0]))
    return first[best][1]
