"""Benchmark: evidence, fulfilled and shown.

    python benchmarks/evidence.py
    python benchmarks/evidence.py --repeat 20 --blocks 100

Figures, medians of `--repeat` runs, each from a cold start (a new `Confinement`, so the
`git ls-files` that lists what may be read is counted every time):

* a 2,000-line ``read`` in a small git project (target: under 50 ms);
* a ``grep`` over this whole repository (target: under 200 ms);
* the prompt of a participant in a discussion holding `--blocks` evidence blocks from four
  participants (target: within the context budget, the participant's own requests in full).

Nothing is asserted; the script prints the figures next to their targets.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from discussions.engine.evidence.fulfil import fulfil  # noqa: E402
from discussions.engine.evidence.sources import Commands  # noqa: E402
from discussions.git.confine import Confinement  # noqa: E402
from discussions.syntax.evidence import Block, parse_request, render_block  # noqa: E402
from discussions.syntax.render import analyse_tail, join_blocks, render_comment  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
NONE = Commands({}, False)


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def small_project(root: Path) -> None:
    (root / "src").mkdir()
    lines = [f"def function_{n}(value):  # line {n}\n    return value * {n}\n" for n in range(1000)]
    (root / "src" / "big.py").write_text("".join(lines))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "."], cwd=root, check=True)


def bench_read(repeat: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        small_project(root)
        request = parse_request("read src/big.py")

        def once() -> None:
            found = fulfil(request, Confinement.of(root), NONE)
            assert found.content.count("\n") == 1999

        return median_ms(once, repeat)


def bench_grep(repeat: int) -> tuple[float, int]:
    request = parse_request("grep def ")
    hits = 0

    def once() -> None:
        nonlocal hits
        where = Confinement.of(REPO)
        found = fulfil(request, where, NONE)
        hits = len(where.files())
        assert found.content

    return median_ms(once, repeat), hits


def bench_prompt(blocks: int, lines: int) -> None:
    from discussions.engine.prompt.prompts import build_prompt, max_chars_for
    from discussions.model.discussion import Discussion
    from discussions.settings.workspace import Workspace

    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        ws = Workspace.discover()
        d = Discussion.create("Evidence bench", directory=Path(tmp) / "discussions")
        d.save()
        names = ["AI-Architect", "AI-Security", "AI-Pragmatist", "Rob"]
        text = d.path.read_text()
        parts = []
        for n in range(1, blocks + 1):
            by = names[n % 4]
            request = f"read src/module_{n}.py"
            parts.append(render_comment(by, f"Let me look.\n\nEVIDENCE: {request}"))
            content = "\n".join(
                f"{i:>4}  module_{n}.value_{i} = compute({i * n})" for i in range(lines)
            )
            block = Block(n, request, by, "fulfilled", "2026-11-23T10:00:00Z", "blob x", content)
            parts.append(render_block(block))
        d.path.write_text(text + join_blocks(analyse_tail(text, at_file_start=True), parts))
        d = Discussion.load(d.path, ws)
        me = ws.participants.get("architect")
        budget = max_chars_for(d)
        started = time.perf_counter()
        prompt, _ = build_prompt(d, me)
        took = (time.perf_counter() - started) * 1000
        own = [e for e in d.evidence if e.by == me.name]
        intact = sum(1 for e in own if e.content in prompt)
        shown = prompt.count("<evidence number=")
        file_size = len(d.path.read_text())
        print(
            f"prompt with {blocks} evidence blocks of {lines} lines ({file_size:,} chars of discussion): "
            f"{len(prompt):,} chars, budget {budget:,} -> "
            f"{'within' if len(prompt) <= budget else 'OVER'} (target: within); "
            f"own requests in full: {intact}/{len(own)} (target: all); "
            f"{shown} blocks in full, the rest one line each; built in {took:.0f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--blocks", type=int, default=100)
    parser.add_argument("--lines", type=int, default=40, help="lines in each evidence block")
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f} (1 min)")
    read_ms = bench_read(args.repeat)
    print(f"read of 2,000 lines, cold: {read_ms:.1f} ms (target: under 50 ms)")
    grep_ms, files = bench_grep(args.repeat)
    print(
        f"grep over this repository ({files} readable files), cold: {grep_ms:.1f} ms "
        "(target: under 200 ms)"
    )
    bench_prompt(args.blocks, args.lines)


if __name__ == "__main__":
    main()
