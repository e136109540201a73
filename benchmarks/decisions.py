"""The decision ledger over a large project: `discussions decisions` on 1,000 discussion files.

    python benchmarks/decisions.py               # 1,000 files of ~20 comments
    python benchmarks/decisions.py --files 5000  # more files
    python benchmarks/decisions.py --repeat 5    # best of 5 runs per case

Generates realistic discussion files (about 20 comments each, code blocks, mentions, votes,
questions) in a temporary folder and times `ledger.scan` on them:

* ``mixed``: a third of the discussions hold decisions (one in twenty has a ``DECISION:`` only
  inside a code block, which is no decision), most are settled;
* ``all``: every discussion holds decisions, so every file is parsed in full (the worst case);
* ``none``: no discussion holds a decision (only the cheap pre-check runs);
* ``memory``: `settled_decisions` for one prompt, first call (cold cache), then again with one
  file appended to (what the next participant's prompt costs);
* ``cli``: the whole `discussions decisions --json` command in a fresh process.

Target: 1,000 files listed in under 2 s. It prints figures; nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

WORK = Path(tempfile.mkdtemp(prefix="discussions-decisions-"))
os.environ["DISCUSSIONS_HOME"] = str(WORK / "userdir")
os.environ["XDG_CACHE_HOME"] = str(WORK / "cache")  # the derived-summary cache: this run's own
os.environ["NO_COLOR"] = "1"
os.chdir(WORK)

from discussions.model import ledger  # noqa: E402
from discussions.model.discussion import Discussion  # noqa: E402
from discussions.settings.workspace import Workspace  # noqa: E402

NAMES = ["AI-Architect", "AI-Security", "AI-Pragmatist", "Rob", "Zoë"]
STATUSES = ["DECIDED", "DECIDED", "CLOSED", "ACCEPTED", "OPEN"]


def discussion(i: int, rnd: random.Random, decisions: str, comments: int = 20) -> str:
    """One realistic discussion file. `decisions`: ``yes``, ``no`` or ``code`` (only in a fence)."""
    status = rnd.choice(STATUSES)
    parts = [
        "<!-- DISCUSSION -->\n"
        f"<!-- Title: Topic {i}: caching and retries -->\n"
        "<!-- Phase: initial_feedback -->\n<!-- Status: OPEN -->\n"
        f"<!-- Created: 2026-{1 + i % 12:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00Z -->\n"
        "<!-- Template: feature -->\n<!-- Participants: architect, security, pragmatist -->\n\n"
        f"# Topic {i}: caching and retries\n\n## Context\nWe need to decide how topic {i} works.\n\n"
        "## Requirements\n- [ ] [Requirement 1]\n\n---\n\n*Discussion begins below.*\n\n"
    ]
    for c in range(comments):
        body = (
            f"Comment {c}: the trade-offs around caching still worry me.\n\n"
            f"@{rnd.choice(['architect', 'security'])} what about `cache_ttl={c % 300}`?\n\n"
            + ("```python\ncache = {}\n```\n\n" if c % 5 == 0 else "")
            + ("- point one\n- point two\n\n    indented code\n\n" if c % 7 == 0 else "")
            + f"Q: question {c}?\n\n"
        )
        if decisions == "yes" and c in (12, 18):
            body += f"DECISION: topic {i} uses a {c}-minute cache with jittered retries\n\n"
        if decisions == "code" and c == 12:
            body += "```text\nDECISION: an example marker, not a decision\n```\n\n"
        body += f"VOTE: {rnd.choice(['READY', 'CHANGES'])}\n\n"
        parts.append(f"---\n\nName: {rnd.choice(NAMES)}\n\n{body}")
    parts.append("---\n")
    if status != "OPEN":
        parts.append(f"\n<!-- STATUS-CHANGE: OPEN -> {status} -->\n")
    return "".join(parts)


def make_folder(name: str, files: int, kind: str) -> Path:
    folder = WORK / name
    folder.mkdir()
    rnd = random.Random(7)
    for i in range(files):
        if kind == "mixed":
            decisions = "code" if i % 20 == 0 else ("yes" if i % 3 == 0 else "no")
        else:
            decisions = "yes" if kind == "all" else "no"
        (folder / f"topic-{i:05d}.md").write_text(discussion(i, rnd, decisions), encoding="utf-8")
    # what else lives in a discussions folder
    (folder / "README.md").write_text("# Our discussions\n\nDECISION: not a discussion\n")
    (folder / "topic-00001.sum.md").write_text("# Summary\n\n- DECISION: x\n")
    return folder


def best(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    times = []
    result: object = None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.files
    ws = Workspace.discover()
    print(f"{n} discussion files of ~20 comments each, in {WORK}")
    print(f"{'case':<40} {'seconds':>8} {'files/s':>9} {'decisions':>10}")
    folders = {}
    for kind in ("mixed", "all", "none"):
        folder = make_folder(kind, n, kind)
        folders[kind] = folder
        size = sum(p.stat().st_size for p in folder.glob("*.md"))
        seconds, result = best(lambda f=folder: ledger.scan(ws, f), args.repeat)
        assert isinstance(result, ledger.Ledger)
        print(
            f"{'scan: ' + kind:<40} {seconds:>8.3f} {n / seconds:>9.0f} {len(result.entries):>10}"
            + (f"   ({size / 1e6:.1f} MB)" if kind == "mixed" else "")
        )

    # The whole state of every file, for comparison: what a scan would cost without the
    # pre-check (every file parsed by `Discussion`).
    folder = folders["mixed"]
    paths = sorted(p for p in folder.glob("topic-*.md") if not p.name.endswith(".sum.md"))
    seconds, _ = best(lambda: [Discussion.load(p, ws).decisions for p in paths], 1)
    print(f"{'full parse of every file (no pre-check)':<40} {seconds:>8.3f} {n / seconds:>9.0f}")

    # Project memory: the first prompt of a turn reads the folder, the next ones only stat it.
    own = Discussion.load(paths[1], ws)
    ledger._CACHE.clear()
    t = time.perf_counter()
    memory = ledger.settled_decisions(own, folder)
    cold = time.perf_counter() - t
    t = time.perf_counter()
    ledger.settled_decisions(own, folder)
    warm = time.perf_counter() - t
    with paths[3].open("a", encoding="utf-8") as f:
        f.write("\n---\n\nName: Rob\n\nDECISION: one more\n\n---\n")
    t = time.perf_counter()
    ledger.settled_decisions(own, folder)
    one_changed = time.perf_counter() - t
    print(f"{'memory: first prompt (cold)':<40} {cold:>8.3f} {n / cold:>9.0f} {len(memory):>10}")
    print(f"{'memory: next prompt (cached)':<40} {warm:>8.3f} {n / warm:>9.0f}")
    print(f"{'memory: after one file changed':<40} {one_changed:>8.3f} {n / one_changed:>9.0f}")

    # The command, in a fresh process (imports included).
    for kind in ("mixed", "all"):
        cmd = [
            sys.executable,
            "-m",
            "discussions",
            "decisions",
            "--json",
            "--dir",
            str(folders[kind]),
        ]
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - t
        print(
            f"{'cli: discussions decisions --json, ' + kind:<40} {seconds:>8.3f} {n / seconds:>9.0f}"
        )
        if out.returncode:
            print(out.stderr, file=sys.stderr)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import discussions.cli"], check=False)
    print(f"{'  (python + import discussions.cli)':<40} {time.perf_counter() - t:>8.3f}")
    print(f"\nTarget: {n} files in under 2 s (scan and cli rows).")


if __name__ == "__main__":
    try:
        main()
    finally:
        os.chdir(tempfile.gettempdir())
        shutil.rmtree(WORK, ignore_errors=True)
