"""Benchmark: the merge driver against `git merge-file` on a ~1 MB discussion.

    python benchmarks/merge.py
    python benchmarks/merge.py --size-mb 2 --comments 20 --repeat 15

Base: a ~1 MB discussion the way the engine writes it. Ours and theirs: the base plus ~20
appended comments each (human comments and AI turns with metadata). Figures, medians of runs
alternated so machine noise hits both alike:

* as git runs them: a process each (the command `discussions init` registers, a small `sh`
  wrapper around `python -P -m discussions merge-file`, and that Python command alone, vs
  `git merge-file`);
* in process: `merge.merge_texts` alone (what the driver does besides starting Python).

Nothing is asserted; the row it prints says whether the ratio is within its target, 3x.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from discussions.git.merge import merge_texts  # noqa: E402
from discussions.git.setup import driver_command  # noqa: E402
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


def compare(a: Callable[[], object], b: Callable[[], object], repeat: int) -> tuple[float, float]:
    ta: list[float] = []
    tb: list[float] = []
    for _ in range(repeat):
        for fn, times in ((a, ta), (b, tb)):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
    return statistics.median(ta), statistics.median(tb)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mb", type=float, default=1.0)
    parser.add_argument("--comments", type=int, default=20, help="appended on each side")
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument(
        "--pythonpath", help="run the driver from this source folder (to try a patched tree)"
    )
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="discussions-merge-bench-"))
    try:
        base = discussion(args.size_mb)
        ours = appended(base, args.comments, "ours")
        theirs = appended(base, args.comments, "theirs")
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
        if args.pythonpath:
            env["PYTHONPATH"] = args.pythonpath

        def driver() -> None:
            shutil.copyfile(paths["ours"], scratch)
            subprocess.run(
                [
                    PY,
                    "-P",
                    "-m",
                    "discussions",
                    "merge-file",
                    "--marker-size",
                    "7",
                    str(paths["base"]),
                    str(scratch),
                    str(paths["theirs"]),
                    "discussions/big.md",
                ],
                env=env,
                check=True,
            )

        def registered() -> None:
            """The command `discussions init` registers (`setup.driver_command`: a small `sh`
            wrapper with fallbacks), with git's placeholders filled in as git does."""
            shutil.copyfile(paths["ours"], scratch)
            command = driver_command(PY)
            for key, value in (
                ("%O", paths["base"]),
                ("%A", scratch),
                ("%B", paths["theirs"]),
                ("%L", "7"),
                ("%P", "discussions/big.md"),
            ):
                command = command.replace(key, shlex.quote(str(value)))
            subprocess.run(["sh", "-c", command], env=env, check=True, cwd=work)

        def git_line_merge() -> None:
            shutil.copyfile(paths["ours"], scratch)
            # Exit status = number of conflicts: both sides appended, so git conflicts.
            subprocess.run(
                [
                    "git",
                    "merge-file",
                    "-L",
                    "ours",
                    "-L",
                    "base",
                    "-L",
                    "theirs",
                    str(scratch),
                    str(paths["base"]),
                    str(paths["theirs"]),
                ],
                check=False,
            )

        def python_start() -> None:
            subprocess.run([PY, "-P", "-c", "pass"], env=env, check=True)

        def import_package() -> None:
            subprocess.run([PY, "-P", "-c", "import discussions"], env=env, check=True)

        def import_command() -> None:
            subprocess.run(
                [PY, "-P", "-c", "import discussions.git.driver, discussions.git.merge"],
                env=env,
                check=True,
            )

        result = merge_texts(base, ours, theirs)
        assert result.clean, result.reason
        print(
            f"base: {len(base.encode()) / 1e6:.2f} MB, {base.count('Name: ')} comments; "
            f"+{args.comments} comments on each side"
        )

        print("\n== as git runs it: one process per merge (medians)")
        driver()  # warm-up: writes the bytecode cache
        t_driver, t_git = compare(driver, git_line_merge, args.repeat)
        t_registered, t_direct = compare(registered, driver, args.repeat)
        t_py, t_package = compare(python_start, import_package, args.repeat)
        _, t_imports = compare(lambda: None, import_command, args.repeat)
        print(f"git merge-file:               {t_git * 1000:7.1f} ms  (conflicts: both appended)")
        print(f"discussions merge-file:       {t_driver * 1000:7.1f} ms  (clean)")
        print(
            f"  as registered (sh wrapper): {t_registered * 1000:7.1f} ms  (what git runs; "
            f"{t_direct * 1000:.1f} ms alongside without it)"
        )
        print(f"  of which `python -P -c pass`:{t_py * 1000:6.1f} ms")
        print(f"  `import discussions`:       {t_package * 1000:7.1f} ms  (package __init__)")
        print(f"  the driver's imports:       {t_imports * 1000:7.1f} ms  (driver and merge)")
        ratio = t_registered / t_git
        verdict = "meets" if ratio <= 3 else "MISSES"
        print(
            f"ROW | `merge-file` on a {len(base.encode()) / 1e6:.0f} MB discussion vs `git "
            f"merge-file`, as git runs it | {ratio:.2f}x (target <= 3x, {verdict}) | "
            f"{t_registered * 1000:.0f} ms vs {t_git * 1000:.0f} ms"
        )

        print("\n== in process: the block merge alone vs git merge-file")
        t_merge, t_git2 = compare(
            lambda: merge_texts(base, ours, theirs), git_line_merge, args.repeat
        )
        print(f"merge_texts: {t_merge * 1000:.1f} ms   git merge-file: {t_git2 * 1000:.1f} ms")
        print(f"ratio merge_texts/git merge-file = {t_merge / t_git2:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
