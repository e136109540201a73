"""Benchmark: the merge driver, as git runs it, against `git merge-file` and a bare Python.

    python benchmarks/merge.py                       # 10 KB, 1 MB and 10 MB
    python benchmarks/merge.py --size-mb 1 --comments 20 --repeat 15
    python benchmarks/merge.py --pythonpath /tmp/old/src   # a patched (or older) tree
    python benchmarks/merge.py --pythonpath /tmp/before/src --pythonpath src   # before, after

Base: a discussion of the given size the way the engine writes it. Ours and theirs: the base
plus ~20 appended comments each (human comments and AI turns with metadata). Figures, medians
(with min and max) of runs alternated so machine noise hits both alike:

* as git runs them: a process each (the command `discussions init` registers, a small `sh`
  wrapper around `python -I -S .../discussions/git/mergefile.py merge-file` in this tree, or
  `python -P -m discussions merge-file` in a tree from before it, each tree's own; and
  `python -P -m discussions merge-file` alone), vs `git merge-file` and vs `python -P -c pass`;
* in process: `merge.merge_texts` alone (what the driver does besides starting Python);
* `python -I -S -c pass`: the least the registered command's Python costs (no `site`), for
  the 10 KB target; the wrapper, the package's imports and the merge come on top.

With `--pythonpath` given more than once, the trees (the first is the baseline) take turns
within every repeat, so all see the same machine; after checking they merge to the same
bytes, each tree's figures are printed, then the last one's against each other's.

Nothing is asserted; the ROW lines say whether each ratio is within its target (issue 36): at
10 KB within 1.3x a bare `python -P -c pass`, at 1 MB and 10 MB within 1.5x `git merge-file`.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "src"
sys.path.insert(0, str(HERE))

from discussions.git.merge import merge_texts  # noqa: E402
from discussions.syntax.render import (  # noqa: E402
    analyse_tail,
    join_blocks,
    render_comment,
    render_header,
)

PY = sys.executable


def discussion(size_mb: float) -> str:
    text = render_header(
        [
            ("Title", "Big"),
            ("Phase", "initial_feedback"),
            ("Status", "OPEN"),
            ("Template", "feature"),
        ]
    )
    text += "\n# Big\n\n## Context\n\nA long-running design discussion.\n"
    blocks = []
    i = 0
    size = len(text)
    while size < size_mb * 1_000_000:
        blocks.append(comment(i, "base"))
        size += len(blocks[-1]) + 8
        i += 1
    return text + join_blocks(analyse_tail(text, at_file_start=True), blocks)


def comment(i: int, side: str) -> str:
    body = (
        f"Comment {i} ({side}): the trade-offs around caching and consistency still worry me; "
        "we should write down what we expect under load.\n\n"
        f"@architect what about `cache_ttl={i % 300}`?\n\n- first point\n- second point\n"
    )
    if i % 5 == 0:
        body += "\n```python\nVOTE: REJECT  # not a vote\n---\nretry()\n```\n"
    at = f"at: 2026-11-{1 + i // 1440 % 28:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00Z"  # as written
    if i % 2:
        meta = f"provider: mock | duration: {i % 9}.1s | {at}"
        return render_comment("AI-Architect", body, vote="CHANGES", meta=meta)
    return render_comment(["Rob", "Zoë", "Ann"][i % 3], body, vote="READY", meta=at)


def appended(base: str, n: int, side: str) -> str:
    blocks = [comment(i, side) for i in range(n)]
    return base + join_blocks(analyse_tail(base, at_file_start=True), blocks)


CPU: dict[Callable[[], object], list[float]] = {}
"""CPU seconds (user + system) of the processes each function ran, per run."""


def compare(*fns: Callable[[], object], repeat: int) -> list[list[float]]:
    """Wall times of each of `fns`, run in turn `repeat` times so machine noise hits all alike
    (the CPU time of the processes they start into `CPU`: a loaded machine changes it less)."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, times, strict=True):
            cpu = _children_cpu()
            t = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t)
            CPU.setdefault(fn, []).append(_children_cpu() - cpu)
    return times


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def spread(values: list[float]) -> str:
    return (
        f"{min(values) * 1000:.1f} / {statistics.median(values) * 1000:.1f} / "
        f"{max(values) * 1000:.1f} ms"
    )


def ratios(a: list[float], b: list[float]) -> list[float]:
    """The ratio of each run of `a` to the run of `b` next to it."""
    return [x / y for x, y in zip(a, b, strict=True)]


def row(figure: str, values: list[float], target: float, against: str) -> None:
    m = statistics.median(values)
    verdict = "meets" if m <= target else "MISSES"
    print(
        f"ROW | {figure} | {m:.2f}x (min {min(values):.2f}, max {max(values):.2f}; target "
        f"<= {target:g}x, {verdict}) | against {against}; load {os.getloadavg()[0]:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--size-mb", default="0.01,1,10", help="sizes of the base, comma-separated (MB)"
    )
    parser.add_argument("--comments", type=int, default=20, help="appended on each side")
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument(
        "--pythonpath",
        action="append",
        help="run the driver from this source folder (a patched or older tree); given more "
        "than once, the trees take turns (the first is the baseline, the ROW lines the last)",
    )
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    for size in args.size_mb.split(","):
        work = Path(tempfile.mkdtemp(prefix="discussions-merge-bench-"))
        try:
            bench(work, float(size), args.comments, args.repeat, args.pythonpath or [None])
        finally:
            shutil.rmtree(work, ignore_errors=True)


def bench(work: Path, size_mb: float, comments: int, repeat: int, trees: list[str | None]) -> None:
    base = discussion(size_mb)
    ours = appended(base, comments, "ours")
    theirs = appended(base, comments, "theirs")
    paths = {}
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        paths[name] = work / f"{name}.md"
        paths[name].write_text(text, encoding="utf-8")
    scratch = work / "scratch.md"
    # Bytecode cached as in any installation (in a private folder, not in the source tree),
    # even where PYTHONDONTWRITEBYTECODE is set; the first (warm-up) run writes it.
    env = dict(os.environ, DISCUSSIONS_HOME=str(work / "userdir"), NO_COLOR="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    envs = [
        env if tree is None else dict(env, PYTHONPATH=str(Path(tree).resolve())) for tree in trees
    ]
    args = ["--marker-size", "7", str(paths["base"]), str(scratch), str(paths["theirs"])]

    def registered(tree_env: dict[str, str]) -> Callable[[], None]:
        """The command `discussions init` registers (`setup.driver_command`: a small `sh`
        script with fallbacks), with git's placeholders filled in as git does: the tree's
        own (asked of it; without ``--pythonpath``, this one's), since the command names a
        file of the tree and, with ``-I``, no PYTHONPATH is read when it runs."""
        own = dict(tree_env, PYTHONPATH=tree_env.get("PYTHONPATH", str(HERE)))
        command = subprocess.run(
            [
                PY,
                "-P",
                "-c",
                "from discussions.git.setup import driver_command as d; "
                f"print(d({PY!r}) if d.__code__.co_argcount else d())",  # older trees: no argument
            ],
            env=own,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.rstrip("\n")
        for key, value in (
            ("%O", paths["base"]),
            ("%A", scratch),
            ("%B", paths["theirs"]),
            ("%L", "7"),
            ("%P", "discussions/big.md"),
        ):
            command = command.replace(key, shlex.quote(str(value)))

        def run() -> None:
            shutil.copyfile(paths["ours"], scratch)
            subprocess.run(["sh", "-c", command], env=tree_env, check=True, cwd=work)

        return run

    def driver() -> None:
        shutil.copyfile(paths["ours"], scratch)
        subprocess.run(
            [PY, "-P", "-m", "discussions", "merge-file", *args, "discussions/big.md"],
            env=envs[-1],
            check=True,
        )

    def git_line_merge() -> None:
        shutil.copyfile(paths["ours"], scratch)
        # Exit status = number of conflicts: both sides appended, so git conflicts.
        subprocess.run(
            ["git", "merge-file", "-L", "ours", "-L", "base", "-L", "theirs"]
            + [str(scratch), str(paths["base"]), str(paths["theirs"])],
            check=False,
        )

    def python_start() -> None:
        subprocess.run([PY, "-P", "-c", "pass"], env=env, check=True)

    def python_re() -> None:
        """The least the registered command's Python costs: it starts without `site`."""
        subprocess.run([PY, "-I", "-S", "-c", "pass"], env=env, check=True)

    def import_command() -> None:
        subprocess.run(
            [PY, "-P", "-c", "import discussions.git.driver, discussions.git.merge"],
            env=envs[-1],
            check=True,
        )

    result = merge_texts(base, ours, theirs)
    assert result.clean, result.reason
    mb = len(base.encode()) / 1e6
    size = f"{mb * 1000:.0f} KB" if mb < 0.5 else f"{mb:.0f} MB"
    print(f"\n== base {size}, {base.count('Name: ')} comments; +{comments} on each side")
    runs = [registered(e) for e in envs]
    outputs = set()
    for run in runs:  # warm-up (writes the bytecode cache); every tree merges alike
        run()
        outputs.add(scratch.read_bytes())
    assert len(outputs) == 1, "the trees' merges differ"
    driver()
    *t_regs, t_git, t_py, t_re, t_drv, t_imp = compare(
        *runs, git_line_merge, python_start, python_re, driver, import_command, repeat=repeat
    )
    t_reg = t_regs[-1]
    print("as git runs it, one process per merge (min / median / max):")
    for tree, times in zip(trees, t_regs, strict=True):
        print(f"  as registered (sh wrapper):  {spread(times)}  (what git runs; {tree or 'here'})")
    print(f"  python -P -m discussions:    {spread(t_drv)}  (without the wrapper)")
    print(f"  git merge-file:              {spread(t_git)}  (conflicts: both appended)")
    print(f"  python -P -c pass:           {spread(t_py)}")
    print(f"  python -I -S -c pass:        {spread(t_re)}  (the least the command's Python costs)")
    print(f"  the driver's imports alone:  {spread(t_imp)}  (python -P -c 'import ...')")
    (t_merge,) = compare(lambda: merge_texts(base, ours, theirs), repeat=repeat)
    print(f"  in process, merge_texts:     {spread(t_merge)}")
    print("CPU time of the processes (min / median / max):")
    for tree, run in zip(trees, runs, strict=True):
        print(f"  {'as registered:':28} {spread(CPU[run])}  ({tree or 'here'})")
    for label, fn in (
        ("python -P -m discussions", driver),
        ("git merge-file", git_line_merge),
        ("python -P -c pass", python_start),
        ("python -I -S -c pass", python_re),
    ):
        print(f"  {label + ':':28} {spread(CPU[fn])}")
    for tree, times in zip(trees, t_regs, strict=True):
        against = [("git merge-file", t_git), ("python -P -c pass", t_py)]
        print(
            f"  {tree or 'here'}: "
            + ", ".join(
                f"{statistics.median(ratios(times, t)):.2f}x {name} (min {min(ratios(times, t)):.2f}, "
                f"max {max(ratios(times, t)):.2f})"
                for name, t in against
            )
        )
    for tree, times, run in zip(trees[:-1], t_regs, runs, strict=False):
        wall, cpu = ratios(t_reg, times), ratios(CPU[runs[-1]], CPU[run])
        print(
            f"  {trees[-1]} / {tree}: wall {statistics.median(wall):.2f}x (min {min(wall):.2f}, "
            f"max {max(wall):.2f}), CPU {statistics.median(cpu):.2f}x"
        )
    what = f"the merge driver as git runs it (registered `sh -c` wrapper), {size}"
    if mb < 0.5:
        row(f"{what} vs `python -P -c pass`", ratios(t_reg, t_py), 1.3, "a bare Python")
        floor = ratios(t_re, t_py)
        print(f"  (python -I -S -c pass vs python -P -c pass: {statistics.median(floor):.2f}x)")
        for tree, run in zip(trees, runs, strict=True):
            cpu = ratios(CPU[run], CPU[python_start])
            print(
                f"  (CPU, as registered vs python -P -c pass: {statistics.median(cpu):.2f}x, "
                f"min {min(cpu):.2f}, max {max(cpu):.2f}; {tree or 'here'})"
            )
    else:  # the row's target vs git is for 1 MB and 10 MB; at 10 KB git's own start dominates
        row(f"{what} vs `git merge-file`", ratios(t_reg, t_git), 1.5, "`git merge-file`")


if __name__ == "__main__":
    main()
