"""Benchmark: what `discussions turn` and `run` add to the providers' own time.

    python benchmarks/turn.py                   # turn, and run of 3 rounds
    python benchmarks/turn.py --repeat 9 --sleep 1 --rounds 3
    python benchmarks/turn.py --pythonpath src  # a patched tree
    python benchmarks/turn.py --pythonpath ../main-copy/src --pythonpath src   # before, after
    python benchmarks/turn.py --instructions    # and each tree's instructions to the first CLI

Three fake AI CLIs (shell scripts that read the prompt, sleep, answer, and log when they
started and ended) answer for participants a, b and c. Figures, medians over runs alternated
with a bare `python -c pass` so machine noise hits both alike:

* the turn: wall time minus the sleep minus `python -c pass` (the engine's own time), and its
  timeline: process start to the first CLI started, the CLIs' spread, last CLI ended to exit;
* the run: per round after the first, (t(N) - t(1)) / (N - 1) minus the sleep, where t(N) is
  the wall time of `run --rounds N` (the start-up is the turn's figure); and, start-up shared
  out, (t(N) - `python -c pass`) / N minus the sleep; and from the CLIs' log, the engine's gap
  between rounds (a round's last CLI ended to the next round's first started: what the
  wall-time figure holds besides the fake CLIs' own start and exit).

With `--pythonpath` given more than once, the trees (the first is the baseline) take turns
within every repeat, so that all see the same machine; each tree's figures are printed, then
the medians against the baseline's. Nothing is asserted; the ROW lines say whether the figure
is within its target (0.05 s).

With `--instructions` (valgrind installed), each tree's turn is also counted in instructions
up to the moment it starts its first CLI (an audit hook ends it there), against `python -c
pass`: unlike any time, the count does not change with the machine's load, so it shows a
change of a few percent that the wall time of a shared machine hides.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PY = sys.executable
FAKES = ("fake-a", "fake-b", "fake-c")
FAKE_CLI = """#!/bin/sh
# A fake AI CLI: logs its start, reads the prompt, thinks for $1 seconds, answers (with a vote,
# so a voting phase asks no follow-up), logs its end.
echo "start $(date +%s.%N)" >>"$2"
cat >/dev/null
sleep "$1"
printf '%s\\n' '{"comment": "I thought about it.", "vote": "CHANGES"}'
echo "end $(date +%s.%N)" >>"$2"
"""
TARGET = 0.05


def project(work: Path, sleep: float, log: Path) -> Path:
    """A project whose participants a, b, c each use their own fake CLI of `sleep` seconds."""
    root = work / "project"
    bin_dir = work / "bin"
    for folder in (root / "participants", bin_dir, work / "userdir"):
        folder.mkdir(parents=True, exist_ok=True)
    for name in FAKES:
        script = bin_dir / name
        script.write_text(FAKE_CLI, encoding="utf-8")
        script.chmod(0o755)
        alias = name[-1]
        (root / "participants" / f"{alias}.yaml").write_text(
            f"name: AI-{alias.upper()}\nalias: {alias}\nrole: Reviewer {alias}\n"
            f"personality: You review.\nprovider_hint: {name}\n",
            encoding="utf-8",
        )
    (work / "userdir" / "providers.yaml").write_text(
        "providers:\n"
        + "".join(f"  - name: {n}\n    command: {bin_dir / n} {sleep:g} {log}\n" for n in FAKES),
        encoding="utf-8",
    )
    (root / "discussions.yaml").write_text("providers:\n  detect: false\n", encoding="utf-8")
    return root


class Bench:
    def __init__(self, work: Path, env: dict[str, str], sleep: float) -> None:
        self.work = work
        self.env = env
        self.sleep = sleep
        self.log = work / "cli.log"
        self.root = project(work, sleep, self.log)
        self.count = 0
        self.tree = "(installed)"
        """Where discussions is run from (`--pythonpath`)."""
        self.cpu: list[float] = []
        """CPU seconds (user + system) of each command run, children included."""

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        before = _children_cpu()
        done = subprocess.run(
            [PY, "-m", "discussions", *args],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )
        self.cpu.append(_children_cpu() - before)
        return done

    def fresh(self) -> Path:
        """A new discussion; the folder holds the warm-up's and this one only, so that the
        figures do not grow with the repeats (each prompt's memory reads the folder)."""
        for old in (self.root / "discussions").glob("d*.md"):
            if old.name != "d1.md":
                old.unlink()
        self.count += 1
        name = f"d{self.count}"
        out = self.cli("new", f"Bench {name}", "--file", name, "--participants", "a,b,c")
        if out.returncode:
            raise SystemExit(out.stderr)
        return self.root / "discussions" / f"{name}.md"

    def timed(self, *args: str) -> tuple[float, float, list[tuple[str, float]]]:
        """Wall time of one command, its start (epoch), and the CLIs' log lines."""
        self.log.write_text("", encoding="utf-8")
        start = time.time()
        t = time.perf_counter()
        out = self.cli(*args)
        wall = time.perf_counter() - t
        if out.returncode not in (0, 1) or "posted via" not in out.stdout + out.stderr:
            raise SystemExit(f"{args[0]} failed: {out.stdout}{out.stderr}")
        lines = [line.split() for line in self.log.read_text().splitlines() if line.strip()]
        return wall, start, [(kind, float(at)) for kind, at in lines]

    def python_pass(self) -> float:
        before = _children_cpu()
        t = time.perf_counter()
        subprocess.run([PY, "-c", "pass"], env=self.env, check=True)
        wall = time.perf_counter() - t
        self.cpu.append(_children_cpu() - before)
        return wall

    def instructions(self) -> tuple[int, int]:
        """Instructions (valgrind) of a turn on a fresh discussion up to the start of its first
        CLI, and of `python -c pass`."""
        target = str(self.fresh())
        turn = _instructions([PY, "-c", _TO_FIRST_CLI, "turn", target, "@a", "@b", "@c"], self)
        return turn, _instructions([PY, "-c", "pass"], self)

    def turn(self) -> tuple[float, float, float, float]:
        """The turn's wall time, then process start to first CLI start, first to last CLI
        start, and last CLI end to the process's exit."""
        wall, start, log = self.timed("turn", str(self.fresh()), "@a", "@b", "@c")
        starts = [at for kind, at in log if kind == "start"]
        ends = [at for kind, at in log if kind == "end"]
        return wall, min(starts) - start, max(starts) - min(starts), start + wall - max(ends)

    def run(self, rounds: int) -> tuple[float, list[float]]:
        """The run's wall time, and the engine's gap between each round and the next (a
        round's last CLI ended to the next round's first started)."""
        f = self.fresh()
        wall, _, log = self.timed("run", str(f), "@a", "@b", "@c", "--rounds", str(rounds))
        calls = sum(1 for kind, _ in log if kind == "start")
        if calls != 3 * rounds:  # a follow-up call or a round fewer: not the figure we want
            raise SystemExit(f"run --rounds {rounds} made {calls} calls, not {3 * rounds}")
        events = sorted(log, key=lambda e: e[1])
        return wall, [
            events[i + 1][1] - at
            for i, (kind, at) in enumerate(events[:-1])
            if kind == "end" and events[i + 1][0] == "start"
        ]


_TO_FIRST_CLI = (
    "import os, sys\n"
    "sys.addaudithook(lambda event, args: os._exit(0) if event == 'subprocess.Popen' else None)\n"
    "sys.argv = ['discussions', *sys.argv[1:]]\n"
    "from discussions.cli import main\n"
    "main()\n"
)
"""`discussions ARGS`, ended as its first subprocess (the first CLI) is about to start."""


def _instructions(argv: list[str], bench: Bench) -> int:
    """The instructions `argv` runs (valgrind's callgrind, run in `bench`'s project)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        cwd=bench.root,
        env=bench.env,
        capture_output=True,
        text=True,
        check=False,
    )
    found = [line for line in done.stderr.splitlines() if "Collected :" in line]
    if not found:
        raise SystemExit(f"valgrind counted nothing: {done.stderr[-500:]}")
    return int(found[-1].split()[-1])


def bench_instructions(benches: list[Bench]) -> None:
    """Each tree's instructions to its first CLI, beyond `python -c pass` (one count each:
    the count does not change from run to run by more than ~2%)."""
    print("\n== instructions to the first CLI started (valgrind)")
    for bench in benches:
        turn, bare = bench.instructions()
        print(
            f"{bench.tree}: {turn / 1e6:.0f} M, `python -c pass` {bare / 1e6:.0f} M; "
            f"beyond it {(turn - bare) / 1e6:.0f} M"
        )


def _children_cpu() -> float:
    """CPU seconds the finished child processes used: unlike wall time, hardly changed by
    other work on a loaded machine."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def spread(values: list[float]) -> str:
    return (
        f"min {min(values) * 1000:.0f} / median {statistics.median(values) * 1000:.0f} / "
        f"max {max(values) * 1000:.0f} ms"
    )


def row(figure: str, values: list[float], detail: str) -> None:
    m = statistics.median(values)
    verdict = "meets" if m <= TARGET else "MISSES"
    print(
        f"ROW | {figure} | {m:.3f} s = {m / TARGET:.1f}x the target (<= {TARGET} s, {verdict}) "
        f"| {spread(values)}; {detail}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sleep", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=("turn", "run"))
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each tree's instructions to its first CLI (needs valgrind)",
    )
    parser.add_argument(
        "--pythonpath",
        action="append",
        help="run discussions from this source folder; again for another tree, measured in "
        "the same repeats (the first is the baseline)",
    )
    args = parser.parse_args()
    top = Path(tempfile.mkdtemp(prefix="discussions-turn-bench-"))
    try:
        benches = [
            _bench(top / str(i), tree, args.sleep)
            for i, tree in enumerate(args.pythonpath or [None])
        ]
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {_load()}")
        turns: list[list[float]] = []
        runs: list[list[float]] = []
        if args.only != "run":
            turns = bench_turn(benches, args.repeat)
        if args.only != "turn":
            runs = bench_run(benches, args.repeat, args.rounds)
        compare(benches, turns, runs)
        if args.instructions:
            bench_instructions(benches)
        print(f"load after: {_load()}")
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _load() -> str:
    return "{:.2f} / {:.2f} / {:.2f} (1, 5, 15 min)".format(*os.getloadavg())


def _bench(work: Path, tree: str | None, sleep: float) -> Bench:
    """A project in `work` whose commands run discussions from `tree` (None: as installed),
    warmed up (the bytecode cache written)."""
    env = dict(os.environ, DISCUSSIONS_HOME=str(work / "userdir"), NO_COLOR="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached, as in any installation
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    if tree:
        env["PYTHONPATH"] = str(Path(tree).resolve())
    bench = Bench(work, env, sleep)
    bench.tree = tree or "(installed)"
    bench.turn()  # warm-up: writes the bytecode cache
    return bench


class _TurnFigures:
    """One tree's turn figures, in seconds, one per repeat."""

    def __init__(self) -> None:
        self.over: list[float] = []
        self.first: list[float] = []
        self.starts: list[float] = []
        self.tail: list[float] = []
        self.bare: list[float] = []
        self.cpu: list[float] = []

    def measure(self, bench: Bench) -> None:
        t_pass = bench.python_pass()
        cpu_pass = bench.cpu[-1]
        wall, to_first, spread_, after = bench.turn()
        self.cpu.append(bench.cpu[-1] - cpu_pass)
        self.bare.append(t_pass)
        self.over.append(wall - bench.sleep - t_pass)
        self.first.append(to_first - t_pass)
        self.starts.append(spread_)
        self.tail.append(after)

    def show(self, bench: Bench) -> None:
        print(f"\n== turn, 3 fake CLIs of {bench.sleep:g} s; {bench.tree}")
        print(f"python -c pass:                        {spread(self.bare)}")
        print(f"process start to first CLI, beyond it: {spread(self.first)}")
        print(f"first to last CLI started:             {spread(self.starts)}")
        print(f"last CLI ended to exit:                {spread(self.tail)}")
        print(f"CPU time beyond `python -c pass`:      {spread(self.cpu)}  (the CLIs' sh too)")
        row(
            "`turn`, 3 parallel providers: time beyond the slowest provider plus `python -c pass`",
            self.over,
            f"load {_load()}; {bench.tree}",
        )
        print(json.dumps({"tree": bench.tree, "turn_overhead_s": self.over}))


def bench_turn(benches: list[Bench], repeat: int) -> list[list[float]]:
    """Each tree's turn beyond the slowest provider; the trees take turns in each repeat,
    each turn next to its own `python -c pass`."""
    found = [_TurnFigures() for _ in benches]
    for _ in range(repeat):
        for bench, figures in zip(benches, found, strict=True):
            figures.measure(bench)
    for bench, figures in zip(benches, found, strict=True):
        figures.show(bench)
    return [figures.over for figures in found]


def bench_run(benches: list[Bench], repeat: int, rounds: int) -> list[list[float]]:
    """Each tree's run figures (per round after the first); the trees take turns in each
    repeat."""
    per: list[list[float]] = [[] for _ in benches]
    marginal: list[list[float]] = [[] for _ in benches]
    gaps: list[list[float]] = [[] for _ in benches]
    for _ in range(max(3, repeat // 2)):
        for i, bench in enumerate(benches):
            t_pass = bench.python_pass()
            t_n, between = bench.run(rounds)
            t_1, _ = bench.run(1)
            per[i].append((t_n - t_pass) / rounds - bench.sleep)
            marginal[i].append((t_n - t_1) / (rounds - 1) - bench.sleep)
            gaps[i].extend(between)
    for i, bench in enumerate(benches):
        print(f"\n== run --rounds {rounds}, 3 fake CLIs of {bench.sleep:g} s; {bench.tree}")
        print(f"per round beyond the sleep, start-up shared out: {spread(per[i])}")
        print(f"per round after the first, beyond the sleep:    {spread(marginal[i])}")
        print(f"engine between rounds (a round's last CLI end to the next's first start): "
              f"{spread(gaps[i])}")  # fmt: skip
        row(
            f"`run`, per round beyond the slowest provider (rounds 2 to {rounds})",
            marginal[i],
            f"start-up shared out over {rounds} rounds {spread(per[i])}; "
            f"load {_load()}; {bench.tree}",
        )
    return marginal


def compare(benches: list[Bench], turns: list[list[float]], runs: list[list[float]]) -> None:
    """Each tree's medians against the first tree's (measured in the same repeats)."""
    if len(benches) < 2:
        return
    print(f"\n== against the baseline {benches[0].tree}")
    for figures, what in ((turns, "turn beyond the slowest provider"), (runs, "run per round")):
        if not figures:
            continue
        base = statistics.median(figures[0])
        for bench, values in zip(benches[1:], figures[1:], strict=True):
            m = statistics.median(values)
            print(f"{what}: {bench.tree}: median {m:.3f} s vs {base:.3f} s = {m / base:.2f}x")


if __name__ == "__main__":
    main()
