"""Persona memory over a large project: one participant's history over 1,000 discussion files.

    python benchmarks/memory.py               # 1,000 files of ~20 comments
    python benchmarks/memory.py --files 3000  # more files
    python benchmarks/memory.py --repeat 5    # best of 5 runs per warm case

Generates discussion files (about 20 comments each by three participants and two people,
votes, concerns, a REMEMBER: and a REVISIT-WHEN: now and then, most settled) in a temporary
folder and times what a prompt costs (`memory_prompt.reminder` and `build_persona_memory`,
through the per-file cache, `model.memory`):

* ``cold``: the first call in a process (every file read and derived once);
* ``warm``: the next call (every file only stat'ed): the target, under 0.5 s;
* ``one changed``: after one file was appended to (only that file read again);
* ``prompt section``: the rendered record for a prompt, warm;
* ``revisits``: every REVISIT-WHEN a later discussion mentions (`discussions decisions`), warm.

It prints figures and the target; nothing here asserts.
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

WORK = Path(tempfile.mkdtemp(prefix="discussions-memory-"))
os.environ["DISCUSSIONS_HOME"] = str(WORK / "userdir")
os.environ["XDG_CACHE_HOME"] = str(WORK / "cache")  # the derived-summary cache: this run's own
os.environ["NO_COLOR"] = "1"
os.chdir(WORK)

from discussions.engine.prompt.memory import build_persona_memory, reminder  # noqa: E402
from discussions.model import memory  # noqa: E402
from discussions.model.discussion import Discussion  # noqa: E402
from discussions.settings.workspace import Workspace  # noqa: E402

NAMES = ["AI-Architect", "AI-Security", "AI-Pragmatist", "Rob", "Zoë"]
STATUSES = ["DECIDED", "DECIDED", "CLOSED", "REJECTED", "OPEN"]
TARGET = 0.5


def discussion(i: int, rnd: random.Random, comments: int = 20) -> str:
    status = rnd.choice(STATUSES)
    parts = [
        "<!-- DISCUSSION -->\n"
        f"<!-- Title: Topic {i}: caching and retries -->\n<!-- Status: OPEN -->\n"
        f"<!-- Created: 2026-{1 + i % 12:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00Z -->\n"
        "<!-- Template: feature -->\n<!-- Participants: architect, security, pragmatist -->\n\n"
        f"# Topic {i}: caching and retries\n\n## Context\nHow topic {i} works.\n\n"
        "---\n\n*Discussion begins below.*\n\n"
    ]
    for c in range(comments):
        body = (
            f"Comment {c}: the trade-offs around caching still worry me.\n\n"
            f"@{rnd.choice(['architect', 'security'])} what about `cache_ttl={c % 300}`?\n\n"
            + ("```python\ncache = {}\n```\n\n" if c % 5 == 0 else "")
            + (f"CONCERN: retries {c} may storm the backend\n\n" if c % 4 == 0 else "")
            + (f"REMEMBER: topic {i} chose jitter\n\n" if c == 7 else "")
            + (f"REVISIT-WHEN: traffic on topic {i} doubles\n\n" if c == 9 and i % 10 == 0 else "")
            + (f"DECISION: topic {i} uses a {c}-minute cache\n\n" if c == 12 else "")
        )
        body += f"VOTE: {rnd.choice(['READY', 'CHANGES', 'REJECT'])}\n\n"
        parts.append(f"---\n\nName: {rnd.choice(NAMES)}\n\n{body}")
    parts.append("---\n")
    if status != "OPEN":
        parts.append(f"\n<!-- STATUS-CHANGE: OPEN -> {status} -->\n")
    return "".join(parts)


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def timed(fn: Callable[[], object]) -> float:
    return best(fn, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.files
    folder = WORK / "discussions"
    folder.mkdir()
    rnd = random.Random(7)
    for i in range(n):
        (folder / f"topic-{i:05d}.md").write_text(discussion(i, rnd), encoding="utf-8")
    ws = Workspace.discover()
    architect = ws.participants.get("architect")
    current = Discussion.load(folder / "topic-00001.md", ws)
    load = os.getloadavg()
    print(f"{n} discussion files of ~20 comments each, in {WORK}")
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 cores shared)")
    memory._CACHE.clear()
    cold = timed(lambda: reminder(ws, architect, exclude=current.path))
    warm = best(lambda: reminder(ws, architect, exclude=current.path), args.repeat)
    found = reminder(ws, architect, exclude=current.path)
    with (folder / "topic-00003.md").open("a", encoding="utf-8") as f:
        f.write("\nName: AI-Architect\n\nREMEMBER: one more\n\n---\n")
    changed = timed(lambda: reminder(ws, architect, exclude=current.path))
    section = best(lambda: build_persona_memory(current, architect, 3_000), args.repeat)
    revisits = best(lambda: memory.triggered_revisits(ws, folder), args.repeat)
    episodes = len(memory.history(ws, architect))
    print(f"{'case':<44} {'seconds':>8}")
    print(f"{'reminder, cold (every file derived)':<44} {cold:>8.3f}")
    print(f"{'reminder, warm (every file stat-ed)':<44} {warm:>8.3f}")
    print(f"{'reminder, after one file changed':<44} {changed:>8.3f}")
    print(f"{'prompt section (build_persona_memory), warm':<44} {section:>8.3f}")
    print(f"{'triggered revisits of the folder, warm':<44} {revisits:>8.3f}")
    print(
        f"\narchitect wrote in {episodes} of {n} discussions; the reminder shows "
        f"{len(found.episodes)} and counts {found.left_out} left out."
    )
    verdict = "met" if warm < TARGET else "NOT met"
    print(
        f"Target: one persona's memory over {n} files under {TARGET} s warm: "
        f"{warm:.3f} s, {verdict} ({warm / TARGET:.0%} of the target)."
    )


if __name__ == "__main__":
    try:
        main()
    finally:
        os.chdir(tempfile.gettempdir())
        shutil.rmtree(WORK, ignore_errors=True)
