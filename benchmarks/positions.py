"""Positions round by round and the flip audit over a long discussion: what they add to a
`discussions status`.

    python benchmarks/positions.py                # 2,000 comments, 3 participants, 1 person
    python benchmarks/positions.py --comments 5000

Generates one discussion file (ROUND blocks every four comments, votes that change now and
then, some citing a comment, a quote or nothing) in a temporary folder and times, warm (the
file's parse cached): deriving the state (`Discussion.comments` of a fresh load), the
positions with their flips (`derive.positions.audit`, which a rule of every derivation
runs: `Discussion.positions`), and the whole `status` lines with
and without them. It prints figures; nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

WORK = Path(tempfile.mkdtemp(prefix="discussions-positions-"))
os.environ["DISCUSSIONS_HOME"] = str(WORK / "userdir")
os.environ["NO_COLOR"] = "1"
os.chdir(WORK)

from discussions.derive.positions import audit  # noqa: E402
from discussions.model.discussion import Discussion  # noqa: E402
from discussions.syntax.render import render_comment  # noqa: E402
from discussions.views import status as status_module  # noqa: E402
from discussions.views.status import status_lines  # noqa: E402

WHO = ["AI-Architect", "AI-Security", "AI-Pragmatist", "Rob"]
VOTES = ["READY", "CHANGES", "REJECT"]


def build(n: int) -> Path:
    rng = random.Random(7)
    d = Discussion.create("Long", participants=["architect", "security", "pragmatist"])
    d.save()
    blocks = []
    for i in range(n):
        if i % 4 == 0:
            blocks.append(f"<!-- ROUND: {i // 4 + 1} | phase: initial_feedback -->\n")
        who = WHO[i % len(WHO)]
        why = rng.choice(["Fine.", f"{WHO[(i + 1) % 4]} has a point.", "> the plan holds."])
        text = f"Point {i}: the plan holds up under load test {i}.\n\n{why}"
        if rng.random() < 0.5:
            text += f"\n\nVOTE: {rng.choice(VOTES)}"
        blocks.append(render_comment(who, text))
    d.add_block("\n".join(blocks))
    d.save()
    return d.path


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--comments", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    try:
        path = build(args.comments)
        d = Discussion.load(path)
        found = d.positions
        derive = best(lambda: Discussion.load(path).comments, args.repeat)
        audited = best(
            lambda: audit(d.comments, d.runs, d.evidence, d.decisions, d.workspace.participants),
            args.repeat,
        )
        status = best(lambda: status_lines(Discussion.load(path)), args.repeat)
        shown, status_module.verdict_texts = status_module.verdict_texts, lambda _d: []
        bare = best(lambda: status_lines(Discussion.load(path)), args.repeat)
        status_module.verdict_texts = shown
        print(
            f"{args.comments} comments, {len(found.rounds)} rounds, "
            f"{len(found.flips)} flips ({len(found.unexplained)} citing nothing new)"
        )
        print(f"derive the state:      {derive * 1000:8.1f} ms")
        print(f"positions and flips:   {audited * 1000:8.1f} ms  ({audited / derive:.2f} x derive)")
        print(f"status lines (all):    {status * 1000:8.1f} ms  ({status / derive:.2f} x derive)")
        print(
            f"status without them:   {bare * 1000:8.1f} ms  ({status / bare:.2f}: with / without)"
        )
        print(f"load: {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
