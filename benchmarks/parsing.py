"""Parsing cost against input size: every parsing path should be linear in its input.

    python benchmarks/parsing.py                 # every case
    python benchmarks/parsing.py --only header   # cases whose name contains "header"
    python benchmarks/parsing.py --limit 20      # skip larger sizes once one took over 20 s
    python benchmarks/parsing.py --scale 0.25    # smaller inputs (for a slow, quadratic tree)

For each pathological pattern (issues 7-9; engine blocks whose fence the engine's scan never
sees closed) and for an ordinary file, the input is built at 1x,
4x and 16x its base size and parsed by one entry point: `format.parse_document`,
`markers.extract`, `responses.parse_response`, `format.neutralise`, the whole state
(`Discussion(path).to_dict()` on a temporary file), or what `check` reports (`problems_in`).
The figure to read is the ratio t(16x)/t(1x), measured in this one run: about 16 for a linear path, 256 for a quadratic one.
Ratios over 32 are flagged. Times are the fastest of a few runs. Nothing here asserts. Base sizes are chosen so that
1x takes a few milliseconds at least: below that, timer and cache noise dominate the ratio
(a 1 MB file also falls out of the CPU caches that a 64 KB one fits in).

    python benchmarks/parsing.py --only mention --pythonpath BEFORE/src --pythonpath src

With ``--pythonpath`` (given once or more: each a ``src`` folder, the first the baseline), each
tree measures the cases in a process of its own (this script, its ``src`` first on the path),
``--rounds`` times, the trees in turns (the order alternating), so all see the same machine;
then each case prints, per tree, min / median / max of t(16x)/t(1x) over the rounds, and the
last tree's median t(16x) over the first's, with the load.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SCRIPT = Path(__file__).resolve()  # before the chdir below
WORK = Path(tempfile.mkdtemp(prefix="discussions-parsing-"))
os.environ["DISCUSSIONS_HOME"] = str(WORK / "userdir")
os.environ["NO_COLOR"] = "1"
os.chdir(WORK)

from discussions.model.discussion import Discussion  # noqa: E402

try:
    from discussions.syntax.answers import parse_response
except ImportError:  # an older tree (a baseline): the answer path lived in the engine
    from discussions.engine.responses import parse_response
from discussions.syntax.markers import extract  # noqa: E402
from discussions.syntax.parse import parse_document  # noqa: E402
from discussions.syntax.render import neutralise  # noqa: E402

HEADER = (
    "<!-- DISCUSSION -->\n<!-- Title: Bench -->\n<!-- Phase: initial_feedback -->\n"
    "<!-- Status: OPEN -->\n<!-- Template: feature -->\n"
    "<!-- Participants: architect, security, pragmatist -->\n\n# Bench\n\nContext.\n\n"
)


def in_file(body: str) -> str:
    """A discussion with one comment whose body is `body`."""
    return HEADER + "---\n\nName: Rob\n\n" + body + "\n\n---\n"


def ordinary(n: int) -> str:
    """A realistic discussion of `n` comments (as benchmarks/run.py writes them)."""
    rnd = random.Random(1)
    names = ["AI-Architect", "AI-Security", "AI-Pragmatist", "Rob", "Zoë"]
    parts = [HEADER]
    for i in range(n):
        parts.append(
            f"---\n\nName: {rnd.choice(names)}\n\n"
            f"Comment {i}: the trade-offs around caching still worry me.\n\n"
            f"@{rnd.choice(['architect', 'security'])} what about `cache_ttl={i % 300}`?\n\n"
            + ("```python\ncache = {}\n```\n\n" if i % 5 == 0 else "")
            + ("- point one\n- point two\n\n    indented code\n\n" if i % 7 == 0 else "")
            + f"Q: question {i}?\n\nVOTE: {rnd.choice(['READY', 'CHANGES'])}\n\n"
        )
    return "".join(parts) + "---\n"


def blocks_left_open(kind: str, n: int) -> str:
    """`n` comments, each followed by an engine block of `kind` whose closing fence is indented:
    closed for markdown (so every later block is seen), never for the engine's fence scan."""
    from discussions.syntax.apply import ApplyRecord, render_apply
    from discussions.syntax.drafts import render_draft
    from discussions.syntax.evidence import Block, render_block

    if kind == "apply":
        block = render_apply(
            ApplyRecord(
                1,
                "AI-A",
                "p",
                "b",
                "0" * 40,
                "1" * 40,
                "R <r@x>",
                "committed",
                (("a.py", 1, 0),),
                at="t",
                output="ok",
            )
        )
    elif kind == "evidence":
        block = render_block(Block(1, "read a.py", "AI-A", "fulfilled", "t", "blob 1", "x = 1"))
    else:
        block = render_draft(1, "AI-A", "# Doc\n\nText.", "t")
    block = block.replace("\n```\n", "\n   ```\n")
    parts = [HEADER] + [f"---\n\nName: Rob\n\nComment {i}.\n\n{block}\n" for i in range(n)]
    return "".join(parts) + "---\n"


def full_state(text: str) -> Callable[[], object]:
    path = WORK / f"d{abs(hash(text)) % 10**9}.md"
    path.write_text(text, encoding="utf-8")
    return lambda: Discussion(path).to_dict()


def problems(text: str) -> Callable[[], object]:
    """What `check` reports on `text` as a file: the state, then each problem's columns."""
    try:
        from discussions.ops.check import problems_in
    except ImportError:  # an older tree (a baseline): the check lived in the engine
        from discussions.engine.check import problems_in

    path = WORK / f"c{abs(hash(text)) % 10**9}.md"
    path.write_text(text, encoding="utf-8")
    return lambda: problems_in(Discussion(path), path.name)


def parse_doc(text: str) -> Callable[[], object]:
    return lambda: parse_document(text)


def markers(text: str) -> Callable[[], object]:
    return lambda: extract(text, 1)


def answer(text: str) -> Callable[[], object]:
    return lambda: parse_response(text)


def neutral(text: str) -> Callable[[], object]:
    return lambda: neutralise(text)


# name -> (base size, builds the timed call for size n)
CASES: dict[str, tuple[int, Callable[[int], Callable[[], object]]]] = {
    "answer: lines of ```a": (1000, lambda n: answer("```a\n" * n)),
    "answer: Q: x `a` + spaces": (1_000_000, lambda n: answer("Q: x `a`\n" + " " * n)),
    "answer: { x n": (64_000, lambda n: answer("{" * n)),
    'answer: {"comment":"{{{ x n': (500_000, lambda n: answer('{"comment": "' + "{" * n)),
    "answer: fences with { x n": (500, lambda n: answer("```\n{\n" * n)),
    "answer: /* unclosed x n": (2000, lambda n: answer('{"comment": 1 /*' * n)),
    "answer: ordinary JSON, long": (
        200,
        lambda n: answer(
            '{"comment": "' + "Some words, @rob, `code`.\\n" * n + '", "vote": "READY"}'
        ),
    ),
    "answer: markdown, long": (
        200,
        lambda n: answer("Para @rob `x`.\n\n- item\n" * n + "VOTE: READY\n"),
    ),
    "answer: deep [ x n": (30000, lambda n: answer("[" * n + "]" * n)),
    "header: <!-- + spaces": (400_000, lambda n: parse_doc("<!-- " + " " * n + "x\n")),
    "header: field + spaces": (1_000_000, lambda n: parse_doc("<!-- Title" + " " * n + "x -->\n")),
    "header: many header lines": (8000, lambda n: parse_doc("<!-- K: v -->\n" * n)),
    "file: marker line + trailing spaces": (
        1_000_000,
        lambda n: parse_doc(in_file("Q: x" + " " * n + "y")),
    ),
    "markers: marker + spaces": (1_000_000, lambda n: markers("Q: x" + " " * n + "y\n")),
    "markers: mentions on one line": (2000, lambda n: markers("@rob " * n)),
    "markers: distinct mentions": (2000, lambda n: markers(" ".join(f"@p{i}" for i in range(n)))),
    "markers: spaces line before `": (60000, lambda n: markers("Q: x\n" + " " * n + "\n`x`\n")),
    "markers: many code spans + hits": (1000, lambda n: markers("`a` Q: x\n@rob `b`\n" * n)),
    "markers: unmatched backtick runs": (
        8000,
        lambda n: markers("".join("`" * (i % 50 + 1) + " x " for i in range(n)) + "\nQ: y\n"),
    ),
    "markers: fences + markers": (1000, lambda n: markers("```\ncode\n```\nQ: x\n" * n)),
    "markers: indented + markers": (1000, lambda n: markers("text\n\n    code\n\nQ: x\n" * n)),
    "file: engine marker + spaces": (
        500_000,
        lambda n: parse_doc(in_file("<!-- PHASE-TRANSITION: a" + " " * n + "b -->")),
    ),
    "file: fences + engine markers": (
        1000,
        lambda n: parse_doc(in_file("```\nx\n```\n<!-- VOTE-RESET: a -->\n" * n)),
    ),
    "file: mid-file BOMs": (16000, lambda n: parse_doc(in_file("\ufeffline\n" * n))),
    "file: --- lines, no Name:": (16000, lambda n: parse_doc(in_file("---\n\n" * n))),
    "file: --- runs before Name:": (
        4000,
        lambda n: parse_doc(in_file("---\n\n---\n\nName: A\n\nx\n\n" * n)),
    ),
    "file: Name: lines, no ---": (4000, lambda n: parse_doc(in_file("Name: A\n\nx\n\n" * n))),
    "file: Name: lines in fences": (
        2000,
        lambda n: parse_doc(in_file("```\nName: A\n```\n\nName: B\n\n" * n)),
    ),
    "state: <!-- provider: + spaces": (
        1_000_000,
        lambda n: full_state(in_file("<!-- provider: x" + " " * n + "y")),
    ),
    "state: # heading + spaces": (
        1_000_000,
        lambda n: full_state("# " + " " * n + "x\n\n---\n\nName: Rob\n\nhi\n"),
    ),
    "state: distinct mentions": (
        1000,
        lambda n: full_state(in_file(" ".join(f"@p{i}" for i in range(n)))),
    ),
    # Issue 36: each unknown mention close to a participant's alias is a problem whose column
    # was searched for from the start of its line.
    "check: distinct unknown mentions, one line": (
        1000,
        lambda n: problems(in_file(" ".join(f"@architect{i}" for i in range(n)))),
    ),
    "state: Q: x `a` + spaces": (1_000_000, lambda n: full_state(in_file("Q: x `a`\n" + " " * n))),
    "state: ordinary file": (400, lambda n: full_state(ordinary(n))),
    "state: apply blocks, fences left open": (
        250,
        lambda n: full_state(blocks_left_open("apply", n)),
    ),
    "state: evidence blocks, fences left open": (
        250,
        lambda n: full_state(blocks_left_open("evidence", n)),
    ),
    "state: draft blocks, fences left open": (
        250,
        lambda n: full_state(blocks_left_open("draft", n)),
    ),
    "parse: ordinary file": (1600, lambda n: parse_doc(ordinary(n))),
    "neutralise: dangerous lines": (
        200,
        lambda n: neutral("---\nName: X\n<script>\n```\n===\n\ufeff<!-- x -->\n    y\n" * n),
    ),
    "neutralise: nested <!-- x n": (1000, lambda n: neutral("<!--\n" * n)),
}


def timed(fn: Callable[[], object], repeat: int) -> float:
    """The fastest of `repeat` runs (the least disturbed by other work on the machine), with
    the cyclic garbage collector paused: its full passes over a heap that grows with the input
    are amortised linear, but land in one run or another and blur the ratio."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        finally:
            gc.enable()
    return min(times)


def measure(args: argparse.Namespace) -> dict[str, list[float]]:
    """Every wanted case at 1x, 4x and 16x, printed as a table; returns each case's times."""
    found: dict[str, list[float]] = {}
    print(f"{'case':40} {'1x (s)':>9} {'4x (s)':>9} {'16x (s)':>9} {'16x/1x':>8}  flag")
    for name, (base, build) in CASES.items():
        if args.only and args.only not in name:
            continue
        times: list[float] = []
        try:
            for k in (1, 4, 16):
                if times and times[-1] > args.limit:
                    break
                fn = build(max(1, int(base * args.scale)) * k)
                repeat = 5 if not times or times[-1] < 0.05 else 2
                if k == 1:
                    fn()  # warm-up (imports, the markdown parser)
                times.append(timed(fn, repeat))
        except Exception as exc:  # another module mid-change: say so, go on
            print(f"{name:40} error: {type(exc).__name__}: {exc}", flush=True)
            continue
        found[name] = times
        shown = [f"{t:9.4f}" for t in times] + [f"{'skipped':>9}"] * (3 - len(times))
        if len(times) == 1:
            print(f"{name:40} {' '.join(shown)} {'?':>8}  1x over --limit", flush=True)
        elif len(times) == 3:
            ratio = times[2] / max(times[0], 1e-9)
            flag = "SUPERLINEAR" if ratio > 32 else ""
            print(f"{name:40} {' '.join(shown)} {ratio:8.1f}  {flag}", flush=True)
        else:
            ratio = times[1] / max(times[0], 1e-9)
            flag = "SUPERLINEAR" if ratio > 5.6 else ""
            print(
                f"{name:40} {' '.join(shown)} {'4x:' + format(ratio, '.1f'):>8}  {flag}", flush=True
            )
    sys.stdout.flush()
    return found


def in_tree(src: str, args: argparse.Namespace) -> dict[str, list[float]]:
    """`measure` in a process of its own, with `src` first on the path."""
    command = [sys.executable, str(SCRIPT), "--json", "--only", args.only]
    command += ["--limit", str(args.limit), "--scale", str(args.scale)]
    env = dict(os.environ, PYTHONPATH=str(Path(src).resolve()))
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare_trees(args: argparse.Namespace) -> None:
    """`in_tree` for each of ``--pythonpath``, ``--rounds`` times in turns; the ratios."""
    trees: list[str] = args.pythonpath
    runs: dict[str, list[dict[str, list[float]]]] = {src: [] for src in trees}
    for i in range(args.rounds):
        for src in trees if i % 2 == 0 else trees[::-1]:
            runs[src].append(in_tree(src, args))
    load = "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    print(f"t(16x)/t(1x), min / median / max over {args.rounds} rounds per tree, {load}")
    for name in (name for name in CASES if args.only in name):
        top: dict[str, float] = {}
        for src in trees:
            cases = [run[name] for run in runs[src] if len(run.get(name, [])) == 3]
            if not cases:
                print(f"  {name} [{src}]: not measured (an error, or over --limit)")
                continue
            ratios = [t[2] / max(t[0], 1e-9) for t in cases]
            top[src] = statistics.median(t[2] for t in cases)
            print(
                f"  {name} [{src}]: {min(ratios):.1f} / {statistics.median(ratios):.1f} / "
                f"{max(ratios):.1f}  (16x: median {top[src]:.4f} s, n={len(ratios)})"
            )
        if trees[0] in top and trees[-1] in top and len(trees) > 1:
            print(
                f"  {name}: t(16x) [{trees[-1]}] / [{trees[0]}] = {top[trees[-1]] / top[trees[0]]:.3f}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="run cases whose name contains this")
    ap.add_argument("--limit", type=float, default=20.0, help="skip larger sizes after this (s)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every base size")
    ap.add_argument("--pythonpath", action="append", metavar="SRC", help="a tree to measure")
    ap.add_argument("--rounds", type=int, default=7, help="runs per tree, with --pythonpath")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    try:
        if args.pythonpath:
            compare_trees(args)
            return
        found = measure(args)
        if args.json:
            print(json.dumps(found))
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
