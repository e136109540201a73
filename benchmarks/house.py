"""Benchmark: the shape of the house and what starting it costs, for one source tree or two.

    python benchmarks/house.py                              # this tree
    python benchmarks/house.py --before /tmp/old/src        # this tree against an older one
    python benchmarks/house.py --repeat 15 --skip-startup   # the counts alone

Counts (read from the source, nothing imported): modules per package, public top-level names
(functions, classes and assignments whose name does not start with ``_``, in modules whose own
name does not), and imports inside function bodies (the start-up laziness spread through the
code). Start-up: ``discussions --help``, ``discussions status`` on a small discussion and the
merge driver's import (``python -P -m discussions merge-file`` on three small files) as
processes, alternated with a bare ``python -P -c pass`` so the machine's noise hits all alike;
medians (min-max) and the ratio to the bare Python, in wall time and in the CPU time of the
processes (which a loaded machine changes less). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import ast
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "src"


def counts(src: Path) -> dict[str, object]:
    """Modules per package, public top-level names and imports inside functions under `src`."""
    package = src / "discussions"
    per_package: Counter[str] = Counter()
    public = inner = 0
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(package)
        per_package[str(rel.parent) if rel.parent != Path(".") else "(root)"] += 1
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not path.stem.startswith("_") or path.stem == "__init__":
            public += sum(1 for name in _top_names(tree) if not name.startswith("_"))
        inner += _imports_in_functions(tree)
    return {"modules": dict(sorted(per_package.items())), "public": public, "inner": inner}


def _top_names(tree: ast.Module) -> list[str]:
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [n for n in names if n != "__all__"]


def _imports_in_functions(tree: ast.Module) -> int:
    found: set[int] = set()  # a nested function's imports are counted once
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found |= {
                id(sub) for sub in ast.walk(node) if isinstance(sub, ast.Import | ast.ImportFrom)
            }
    return len(found)


def _project(work: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    (work / "small.md").write_text(
        "# Small\n\n<!-- discussions: phase=discussion status=open -->\n\n"
        "---\n\n**alice:** A first thought. VOTE: READY\n",
        encoding="utf-8",
    )
    for name in ("base", "ours", "theirs"):
        (work / f"{name}.md").write_text((work / "small.md").read_text(), encoding="utf-8")


def _timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of running `argv`."""
    cpu = _children_cpu()
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - started, _children_cpu() - cpu


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def startup(trees: dict[str, Path], repeat: int) -> None:
    """Each command of each tree alternated with a bare Python; medians and ratios."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        _project(work)
        py = [sys.executable, "-P"]
        commands = {
            "--help": ["-m", "discussions", "--help"],
            "status": ["-m", "discussions", "status", "small.md"],
            "merge-file": ["-m", "discussions", "merge-file", "base.md", "ours.md", "theirs.md"],
        }
        times: dict[str, list[tuple[float, float]]] = {}
        base_env = {**os.environ, "HOME": str(work), "NO_COLOR": "1"}
        for _ in range(repeat):
            times.setdefault("python -c pass", []).append(
                _timed([*py, "-c", "pass"], base_env, work)
            )
            for label, src in trees.items():
                env = {**base_env, "PYTHONPATH": str(src)}
                for name, args in commands.items():
                    times.setdefault(f"{label} {name}", []).append(_timed([*py, *args], env, work))
        for i, what in ((0, "wall"), (1, "CPU")):
            print(f"{what} time (median (min-max), ratio of the medians):")
            bare = statistics.median(t[i] for t in times["python -c pass"])
            for key, pairs in times.items():
                values = [t[i] for t in pairs]
                med = statistics.median(values)
                print(
                    f"  {key:28} {med * 1000:7.1f} ms "
                    f"({min(values) * 1000:.1f}-{max(values) * 1000:.1f})"
                    f"  {med / bare:5.2f}x python -c pass"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, help="an older tree's src folder to compare")
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--skip-startup", action="store_true")
    args = parser.parse_args()
    trees = {"now": HERE}
    if args.before:
        trees = {"before": args.before, "now": HERE}
    for label, src in trees.items():
        found = counts(src)
        modules = found["modules"]
        assert isinstance(modules, dict)
        print(
            f"{label}: {sum(modules.values())} modules, {found['public']} public top-level "
            f"names, {found['inner']} imports inside functions"
        )
        print("   " + ", ".join(f"{k} {v}" for k, v in modules.items()))
    print(f"load: {os.getloadavg()[0]:.2f}")
    if not args.skip_startup:
        startup(trees, args.repeat)


if __name__ == "__main__":
    main()
