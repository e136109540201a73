"""Benchmark: `discussions drift` and `check --since` on a real repository's history.

    python benchmarks/drift.py                          # this repository
    python benchmarks/drift.py --repo PATH --back 1000 --discussions 20

A clone of the repository (`--repo`, default this one) goes back `--back` commits, where
`--discussions` decided discussions are committed, each with one decision governing one of the
repository's folders or files (``GOVERNS: FOLDER/**``) and one applied decision; then the
original tip is merged in, so every commit since then comes after the decisions. `drift` over
the folder and the drift part of `check --since` (`ops.drift.departing`) over the last
tenth of the range are timed (medians of
`--repeat` runs, in process), with the git processes each ran (one blame, at most one
merge-base and one log per discussion, whatever the number of paths and commits) and what
they found. Nothing is asserted.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def governed_paths(clone: Path, count: int) -> list[str]:
    """`count` folders (or files) of the tree, those with the most files first."""
    sizes: dict[str, int] = {}
    for name in git(clone, "ls-files").splitlines():
        parts = name.split("/")
        key = "/".join(parts[:2]) if len(parts) > 2 else parts[0]
        sizes[key] = sizes.get(key, 0) + 1
    ranked = sorted(sizes, key=lambda k: -sizes[k])[:count]
    return [f"{k}/**" if sizes[k] > 1 else k for k in ranked]


def build(source: Path, clone: Path, back: int, count: int) -> tuple[str, int]:
    """The clone with the decided discussions `back` commits ago, the tip merged in; the tip
    before the merge and the number of commits after the decisions."""
    git(clone.parent, "clone", "-q", str(source), str(clone))
    for key, value in (("user.name", "Bench"), ("user.email", "bench@example.com")):
        git(clone, "config", key, value)
    tip = git(clone, "rev-parse", "HEAD")
    start = git(clone, "rev-list", f"--skip={back}", "--max-count=1", "HEAD")
    git(clone, "checkout", "-q", "-b", "decided", start)
    os.chdir(clone)
    from discussions.model.discussion import Discussion
    from discussions.settings.workspace import Workspace

    (clone / "discussions.yaml").write_text("providers:\n  detect: false\n")
    ws = Workspace.discover()
    for i, path in enumerate(governed_paths(clone, count)):
        d = Discussion.create(f"Decision {i}", workspace=ws)
        d.save()
        d = Discussion.load(d.path, ws)
        d.add_comment("Rob", f"DECISION: {path} keeps its shape\nGOVERNS: {path}")
        d.save()
        d.set_status("DECIDED", strict=False)
        d.save()
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "decide")
    git(clone, "merge", "-q", "--no-edit", "-X", "theirs", tip)
    return tip, int(git(clone, "rev-list", "--count", "decided~1.." + tip))


def counted(call: Callable[[], object]) -> tuple[float, int, object]:
    """(seconds, git processes, result) of `call`."""
    import subprocess as sp

    real = sp.run
    calls = 0

    def run(*args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        return real(*args, **kwargs)  # type: ignore[call-overload]

    sp.run = run  # type: ignore[assignment]
    try:
        start = time.perf_counter()
        result = call()
        return time.perf_counter() - start, calls, result
    finally:
        sp.run = real


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, default=ROOT)
    parser.add_argument("--back", type=int, default=500)
    parser.add_argument("--discussions", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "clone"
        tip, after = build(args.repo.resolve(), clone, args.back, args.discussions)
        from discussions.ops.drift import departing, drift
        from discussions.settings.workspace import Workspace

        ws = Workspace.discover()
        runs = [counted(lambda: drift(ws)) for _ in range(args.repeat)]
        report = runs[-1][2]
        commits = sum(len(d.changes) for d in report.decisions)  # type: ignore[attr-defined]
        print(f"repository: {args.repo} ({git(clone, 'rev-list', '--count', 'HEAD')} commits)")
        print(
            f"decisions: {len(report.decisions)} in {report.discussions} discussions, "  # type: ignore[attr-defined]
            f"{after} commits after them; {commits} commit-decision pairs reported"
        )
        print(
            f"drift: median {statistics.median(r[0] for r in runs):.3f} s, "
            f"{runs[-1][1]} git processes"
        )
        since = git(clone, "rev-list", f"--skip={max(1, args.back // 10)}", "-1", tip)
        checks = [counted(lambda: departing(ws, since)) for _ in range(args.repeat)]
        found = checks[-1][2]
        print(
            f"check --since {since[:12]} (its drift part): median "
            f"{statistics.median(r[0] for r in checks):.3f} s, {checks[-1][1]} git processes, "
            f"{len(found)} departures"  # type: ignore[arg-type]
        )


if __name__ == "__main__":
    main()
