"""Benchmark: what `discussions turn` and `run` add to the providers' own time.

    python benchmarks/turn.py                   # turn, and run of 3 rounds
    python benchmarks/turn.py --repeat 9 --sleep 1 --rounds 3
    python benchmarks/turn.py --pythonpath src  # a patched tree

Three fake AI CLIs (shell scripts that read the prompt, sleep, answer, and log when they
started and ended) answer for participants a, b and c. Figures, medians over runs alternated
with a bare `python -c pass` so machine noise hits both alike:

* the turn: wall time minus the sleep minus `python -c pass` (the engine's own time), and its
  timeline: process start to the first CLI started, the CLIs' spread, last CLI ended to exit;
* the run: per round after the first, (t(N) - t(1)) / (N - 1) minus the sleep, where t(N) is
  the wall time of `run --rounds N` (the start-up is the turn's figure); and, start-up shared
  out, (t(N) - `python -c pass`) / N minus the sleep.

Nothing is asserted; the ROW lines say whether the figure is within its target (0.05 s).
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

    def turn(self) -> tuple[float, float, float, float]:
        """The turn's wall time, then process start to first CLI start, first to last CLI
        start, and last CLI end to the process's exit."""
        wall, start, log = self.timed("turn", str(self.fresh()), "@a", "@b", "@c")
        starts = [at for kind, at in log if kind == "start"]
        ends = [at for kind, at in log if kind == "end"]
        return wall, min(starts) - start, max(starts) - min(starts), start + wall - max(ends)

    def run(self, rounds: int) -> float:
        f = self.fresh()
        wall, _, log = self.timed("run", str(f), "@a", "@b", "@c", "--rounds", str(rounds))
        calls = sum(1 for kind, _ in log if kind == "start")
        if calls != 3 * rounds:  # a follow-up call or a round fewer: not the figure we want
            raise SystemExit(f"run --rounds {rounds} made {calls} calls, not {3 * rounds}")
        return wall


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
    parser.add_argument("--pythonpath", help="run discussions from this source folder")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="discussions-turn-bench-"))
    env = dict(os.environ, DISCUSSIONS_HOME=str(work / "userdir"), NO_COLOR="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached, as in any installation
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    if args.pythonpath:
        env["PYTHONPATH"] = str(Path(args.pythonpath).resolve())
    try:
        bench = Bench(work, env, args.sleep)
        bench.turn()  # warm-up: writes the bytecode cache
        load = os.getloadavg()[0]
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {load:.2f}")
        if args.only != "run":
            bench_turn(bench, args.repeat)
        if args.only != "turn":
            bench_run(bench, args.repeat, args.rounds)
        print(f"load after: {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def bench_turn(bench: Bench, repeat: int) -> None:
    over, first, starts, tail, bare, cpu = [], [], [], [], [], []
    for _ in range(repeat):
        t_pass = bench.python_pass()
        cpu_pass = bench.cpu[-1]
        wall, to_first, spread_, after = bench.turn()
        cpu.append(bench.cpu[-1] - cpu_pass)
        bare.append(t_pass)
        over.append(wall - bench.sleep - t_pass)
        first.append(to_first - t_pass)
        starts.append(spread_)
        tail.append(after)
    print(f"\n== turn, 3 fake CLIs of {bench.sleep:g} s (interleaved with `python -c pass`)")
    print(f"python -c pass:                        {spread(bare)}")
    print(f"process start to first CLI, beyond it: {spread(first)}")
    print(f"first to last CLI started:             {spread(starts)}")
    print(f"last CLI ended to exit:                {spread(tail)}")
    print(f"CPU time beyond `python -c pass`:      {spread(cpu)}  (the CLIs' sh included)")
    row(
        "`turn`, 3 parallel providers: time beyond the slowest provider plus `python -c pass`",
        over,
        f"load {os.getloadavg()[0]:.2f}",
    )
    print(json.dumps({"turn_overhead_s": over}))


def bench_run(bench: Bench, repeat: int, rounds: int) -> None:
    per, marginal = [], []
    for _ in range(max(3, repeat // 2)):
        t_pass = bench.python_pass()
        t_n = bench.run(rounds)
        t_1 = bench.run(1)
        per.append((t_n - t_pass) / rounds - bench.sleep)
        marginal.append((t_n - t_1) / (rounds - 1) - bench.sleep)
    print(f"\n== run --rounds {rounds}, 3 fake CLIs of {bench.sleep:g} s")
    print(f"per round beyond the sleep, start-up shared out: {spread(per)}")
    print(f"per round after the first, beyond the sleep:    {spread(marginal)}")
    row(
        f"`run`, per round beyond the slowest provider (rounds 2 to {rounds})",
        marginal,
        f"start-up shared out over {rounds} rounds {spread(per)}; load {os.getloadavg()[0]:.2f}",
    )


if __name__ == "__main__":
    main()
