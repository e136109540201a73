"""Benchmark: the time `discussions apply` adds around the lead's own run.

    python benchmarks/apply.py
    python benchmarks/apply.py --repeat 9 --sleep 0 1
    python benchmarks/apply.py --sandbox off          # the clone without bubblewrap
    python benchmarks/apply.py --src OLD/src          # an older copy (the git worktree)

In a local clone of this repository (with a decided discussion, a persona whose provider has a
write command, and a dirty file), each apply is timed end to end as the command does it after
the person's consent: the plan (hand-off, lead, branch), the lead's run in a new worktree
(`apply_run.execute`: the clone of HEAD and the engine's git folder, the snapshot of the
user's tree, the fake lead (in bubblewrap unless ``--sandbox off``), the comparison, the commit
and its fetch back, numstat, the clone removed) and the APPLY block appended under the lock. The
fake lead sleeps `--sleep` seconds and appends a line to README.md; its own run (process
start to exit) is subtracted. Figures are medians; the target is under 0.5 s, and the clone
and the sandbox add under 1 s to what the git worktree took (compare ``--src``). On a shared
machine the wall times swing with others' work; the CPU time (ours and our children's,
the lead's own small share included) is steadier for comparing two versions.

The files this checkout's git ignores (``.venv/``, caches) are hard-linked into the clone
(``--no-ignored`` leaves them out), so the walk that looks for ignored files written while the
lead ran meets as many as it would here. Clones go to a temporary ``XDG_CACHE_HOME``.
``--src PATH`` times another copy of the package (an older one, to compare: before the clone,
the lead worked in a ``git worktree`` of the user's repository); ``--sandbox auto|off`` sets
``apply.sandbox`` (not given: the package's default; an older copy knows no such key).

Nothing is asserted; the script prints the figures next to the target, with the load.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

LEAD = """\
import sys, time
sys.stdin.read()
time.sleep(float(sys.argv[1]))
with open("README.md", "a", encoding="utf-8") as f:
    f.write("\\nA line the lead added.\\n")
print("added a line to README.md")
"""

DISCUSSION = """\
<!-- DISCUSSION -->
<!-- Title: Bench apply -->
<!-- Phase: initial_feedback -->
<!-- Status: DECIDED -->
<!-- Participants: bench -->

# Bench apply

---

Name: AI-Bench
DECISION: implement one more line in the README.

VOTE: READY

---
"""


def link_ignored(work: Path) -> int:
    """Hard-link what git ignores in this checkout into the clone; how many entries."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, out.split("\0")):
        target = work / name.rstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["cp", "-al", str(REPO / name.rstrip("/")), str(target)], check=False)
    return sum(len(dirs) + len(files) for _, dirs, files in os.walk(work))


def project(work: Path, sleep_script: Path, sandbox: str | None = None) -> Path:
    """A clone of this repository set up for applies; returns the discussion's path."""
    subprocess.run(["git", "clone", "-q", "--local", str(REPO), str(work)], check=True)
    for key, value in (("user.name", "Bench"), ("user.email", "bench@example.com")):
        subprocess.run(["git", "config", key, value], cwd=work, check=True)
    lead = " ".join(shlex.quote(x) for x in (sys.executable, str(sleep_script)))
    userdir = work.parent / "userdir"
    userdir.mkdir()
    (userdir / "providers.yaml").write_text(
        "providers:\n  - name: bench-write\n"
        f"    command: {sys.executable} -c pass\n"
        f'    write_command: "{lead} $BENCH_SLEEP"\n',
        encoding="utf-8",
    )
    os.environ["DISCUSSIONS_HOME"] = str(userdir)
    (work / "participants").mkdir(exist_ok=True)
    (work / "participants" / "bench.yaml").write_text(
        "name: AI-Bench\nalias: bench\nrole: r\npersonality: p\n"
        "capabilities: [logic, docs]\nprovider_hint: bench-write\n",
        encoding="utf-8",
    )
    setting = f"apply:\n  sandbox: '{sandbox}'\n" if sandbox else ""
    (work / "discussions.yaml").write_text(
        "providers:\n  fallback: []\n  detect: false\n" + setting, encoding="utf-8"
    )
    path = work / "discussions" / "bench-apply.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text(DISCUSSION, encoding="utf-8")
    (work / "scratch.txt").write_text("the user's unsaved work\n", encoding="utf-8")
    return path


def one(path: Path, branch: str) -> tuple[dict[str, float], str]:
    """One apply as `discussions apply --yes` makes it; seconds of each part, and the
    confinement the lead ran in."""
    from discussions.engine.apply import run as apply_run
    from discussions.engine.apply.plan import (
        ApplyOptions,
        append_record,
        job_of,
        prepare,
        record_of,
    )
    from discussions.model.discussion import Discussion
    from discussions.settings.workspace import Workspace

    cpu = os.times()
    started = time.perf_counter()
    d = Discussion.load(path, Workspace.discover(path.parent))
    plan = prepare(d, ApplyOptions(branch=branch))
    planned = time.perf_counter()
    result = apply_run.execute(job_of(plan))
    ran = time.perf_counter()
    append_record(d, record_of(plan, result))
    done = time.perf_counter()
    end = os.times()
    assert result.result == "committed", result.reason
    confinement = getattr(result, "sandbox", "") or "none (a git worktree)"
    return {
        "cpu": sum(end[:4]) - sum(cpu[:4]),
        "plan": planned - started,
        "worktree+commit": (ran - planned) - result.lead_seconds,
        "record": done - ran,
        "lead": result.lead_seconds,
        "added": (done - started) - result.lead_seconds,
    }, confinement


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--sleep", type=float, nargs="+", default=[0.0, 1.0])
    parser.add_argument("--no-ignored", action="store_true")
    parser.add_argument("--src", type=Path, default=REPO / "src")
    parser.add_argument("--sandbox", choices=("auto", "off"))
    args = parser.parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        script = Path(tmp) / "lead.py"
        script.write_text(LEAD, encoding="utf-8")
        work = Path(tmp) / "repo"
        path = project(work, script, args.sandbox)
        entries = 0 if args.no_ignored else link_ignored(work)
        os.chdir(work)
        files = len(
            subprocess.run(
                ["git", "ls-files"], cwd=work, capture_output=True, text=True, check=True
            ).stdout.splitlines()
        )
        print(
            f"load before: {os.getloadavg()[0]:.2f} (1 min); a clone of this repository, "
            f"{files} tracked files, {entries or 'no'} entries in all with the ignored ones; "
            f"package timed: {args.src}"
        )
        try:
            try:
                from discussions.git import watch as walker
            except ImportError:  # an older copy: the walk was in git.worktree
                from discussions.git import worktree as walker  # type: ignore[no-redef]

            began = time.perf_counter()
            seen = walker.written_since(work, 0)
            print(
                f"one walk for ignored files written during a run: "
                f"{(time.perf_counter() - began) * 1000:.0f} ms ({len(seen)} entries)"
            )
        except AttributeError:
            print("(this copy of the package does not walk for ignored files)")
        for sleep in args.sleep:
            os.environ["BENCH_SLEEP"] = str(sleep)
            timed = [one(path, f"bench/{sleep:g}-{i}") for i in range(args.repeat)]
            runs, confinement = [t[0] for t in timed], timed[0][1]
            med = {k: statistics.median(r[k] for r in runs) * 1000 for k in runs[0]}
            verdict = "within" if med["added"] < 500 else "OVER"
            print(
                f"lead sleeping {sleep:g}s, sandbox: {confinement}: apply "
                f"adds {med['added']:.0f} ms "
                f"(target: under 500 ms: {verdict}): plan {med['plan']:.0f} ms, clone + "
                f"snapshot + commit {med['worktree+commit']:.0f} ms, record "
                f"{med['record']:.0f} ms; the lead's own run {med['lead']:.0f} ms "
                f"(median of {args.repeat}; max added "
                f"{max(r['added'] for r in runs) * 1000:.0f} ms); CPU time of the whole apply, "
                f"ours and git's (the lead's included): {med['cpu']:.0f} ms"
            )
        print(f"load after: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()
