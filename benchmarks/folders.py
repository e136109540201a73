"""Big folders: every discussion of a 1,000-file folder listed, by each reader of the folder.

    python benchmarks/folders.py                 # 1,000 files of ~20 comments, 5 warm runs
    python benchmarks/folders.py --files 100     # the same at 100 files (linear at worst?)
    PYTHONPATH=/path/to/other/src python benchmarks/folders.py   # another version, same figures

Generates discussion files (about 20 comments each by three personas and two people, votes,
concerns, decisions, a REMEMBER: and a REVISIT-WHEN: now and then, most settled) in a
temporary folder, dated an hour back (a folder at rest), and times, each in a process of its
own so a cache in memory helps only where a process lives on:

* ``web: first GET``: the 2,000-comment page (``big.md``) asked for as soon as the server
  has started, while it renders the folder's pages in the background, in a new process each
  time; its baseline is the same request to a server that renders nothing in the background;
* ``list``, ``decisions``, ``memory architect`` (the CLI, ``--json``): cold (an empty user
  cache folder: every file derived, as every run did before the shared cache), then warm (the
  next runs, with what the first kept in ``$XDG_CACHE_HOME``);
* the TUI's browser (every row: `tui.data.summarise` over `discussion_files`), the web list
  page (``GET /``, the server's own app, warming the pages in the background as it does), and
  the editor's workspace symbols (`lsp.symbols.workspace_symbols`): the first call in a
  process (cold), then the next ones (warm).

Prints min / median / max of the warm runs, the cold one, their ratio (the baseline is the
cold run of the same row, measured in this run), the target, and the load average. Nothing
here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import generate  # noqa: E402

NAMES = ["AI-Architect", "AI-Security", "AI-Pragmatist", "Rob", "Zoë"]
STATUSES = ["DECIDED", "DECIDED", "CLOSED", "REJECTED", "OPEN"]
TARGETS = {
    "list": 1.0,
    "decisions": 1.0,
    "memory": 1.0,
    "tui": 2.0,
    "web": 0.3,
    "lsp": 0.3,
    "first": 0.5,
}


def discussion(i: int, rnd: random.Random, comments: int = 20) -> str:
    status = rnd.choice(STATUSES)
    parts = [
        "<!-- DISCUSSION -->\n"
        f"<!-- Title: Topic {i}: caching and retries -->\n<!-- Status: OPEN -->\n"
        f"<!-- Created: 2026-{1 + i % 12:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00Z -->\n"
        "<!-- Template: feature -->\n<!-- Participants: architect, security, pragmatist -->\n\n"
        f"# Topic {i}: caching and retries\n\n## Context\nHow topic {i} works.\n\n"
        "---\n\n*Discussion begins below.*\n\n"
    ]
    for c in range(comments):
        body = (
            f"Comment {c}: the trade-offs around caching still worry me.\n\n"
            f"@{rnd.choice(['architect', 'security'])} what about `cache_ttl={c % 300}`?\n\n"
            + ("```python\ncache = {}\n```\n\n" if c % 5 == 0 else "")
            + (f"CONCERN: retries {c} may storm the backend\n\n" if c % 4 == 0 else "")
            + (f"Q: does topic {i} need a lock?\n\n" if c == 3 else "")
            + (f"REMEMBER: topic {i} chose jitter\n\n" if c == 7 else "")
            + (f"REVISIT-WHEN: traffic on topic {i} doubles\n\n" if c == 9 and i % 10 == 0 else "")
            + (f"DECISION: topic {i} uses a {c}-minute cache\n\n" if c == 12 else "")
        )
        body += f"VOTE: {rnd.choice(['READY', 'CHANGES', 'REJECT'])}\n\n"
        parts.append(f"---\n\nName: {rnd.choice(NAMES)}\n\n{body}")
    parts.append("---\n")
    if status != "OPEN":
        parts.append(f"\n<!-- STATUS-CHANGE: OPEN -> {status} -->\n")
    return "".join(parts)


def make_project(work: Path, files: int) -> Path:
    """`files` discussions of ~20 comments, and ``big.md`` of 2,000 (`corpus.generate`)."""
    project = work / "project"
    folder = project / "discussions"
    folder.mkdir(parents=True)
    generate(folder / "big.md", 2000)
    rnd = random.Random(7)
    past = time.time() - 3600
    for i in range(files):
        path = folder / f"topic-{i:05d}.md"
        path.write_text(discussion(i, rnd), encoding="utf-8")
        os.utime(path, (past, past))
    return project


# In one process: the first call, then `repeat` more; prints the seconds as JSON.
_IN_PROCESS = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from discussions.settings.workspace import Workspace

    what, repeat = sys.argv[1], int(sys.argv[2])
    ws = Workspace.discover()
    folder = ws.config.output_directory

    if what == "tui":
        from discussions.tui import data

        def once():
            try:
                from discussions.model.catalog import briefs
            except ImportError:  # a version without the shared cache
                return [data.summarise(p, ws) for p in data.discussion_files(folder, ws)]
            with briefs(ws, folder) as cache:
                return [data.summarise(p, ws, cache) for p in data.discussion_files(folder, ws)]
    elif what == "lsp":
        from discussions.lsp.symbols import workspace_symbols

        def once():
            return workspace_symbols(ws, "")
    else:
        from starlette.testclient import TestClient
        from discussions.web.app import Settings, create_app

        app = create_app(ws, Settings("t", port=80), warm_cache=what != "alone")
        client = TestClient(app, base_url="http://127.0.0.1")
        client.__enter__()  # the server starts: it renders every page in the background
        address = "/" if what == "web" else "/d/big.md"

        def once():
            r = client.get(address)
            assert r.status_code == 200, r.status_code
            return r.text

    times = []
    for _ in range(1 + repeat):
        t = time.perf_counter()
        once()
        times.append(time.perf_counter() - t)
    print(json.dumps(times))
    """
)


def cli_times(project: Path, env: dict[str, str], args: list[str], repeat: int) -> list[float]:
    """Seconds of a cold run (fresh cache folder) of ``discussions ARGS``, then `repeat` warm."""
    cache = Path(env["XDG_CACHE_HOME"])
    shutil.rmtree(cache, ignore_errors=True)
    times = []
    for _ in range(1 + repeat):
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "discussions", *args],
            cwd=project,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        times.append(time.perf_counter() - t)
    return times


def process_times(project: Path, env: dict[str, str], what: str, repeat: int) -> list[float]:
    shutil.rmtree(Path(env["XDG_CACHE_HOME"]), ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-c", _IN_PROCESS, what, str(repeat)],
        cwd=project,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return [float(x) for x in json.loads(done.stdout.strip().splitlines()[-1])]


def first_request(project: Path, env: dict[str, str], repeat: int) -> None:
    """The first request after the start for the 2,000-comment page, while the server renders
    the folder's pages in the background, against the same request with nothing beside it."""
    runs = {
        what: [process_times(project, env, what, 0)[0] for _ in range(repeat)]
        for what in ("first", "alone")
    }
    first, alone = runs["first"], runs["alone"]
    mid, base = statistics.median(first), statistics.median(alone)
    verdict = "met" if mid < TARGETS["first"] else "NOT met"
    print(
        f"{'web: first GET of 2,000 comments':<42} {base:>7.3f} {min(first):>7.3f} "
        f"{mid:>7.3f} {max(first):>7.3f} {mid / base:>6.3f}x  < {TARGETS['first']:g} s: "
        f"{verdict}  (baseline: the same GET with no background render, median)"
    )


def show(name: str, key: str, times: list[float]) -> None:
    cold, warm = times[0], times[1:]
    target = TARGETS[key]
    mid = statistics.median(warm)
    verdict = "met" if mid < target else "NOT met"
    print(
        f"{name:<42} {cold:>7.3f} {min(warm):>7.3f} {mid:>7.3f} {max(warm):>7.3f} "
        f"{mid / cold:>6.3f}x  < {target:g} s: {verdict}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", help="comma-separated: list,decisions,memory,tui,web,lsp,first")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="discussions-folders-"))
    try:
        project = make_project(work, args.files)
        env = {
            **os.environ,
            "DISCUSSIONS_HOME": str(work / "userdir"),
            "XDG_CACHE_HOME": str(work / "cache"),
            "NO_COLOR": "1",
        }
        wanted = set((args.only or ",".join(TARGETS)).split(","))
        load = os.getloadavg()
        print(f"{args.files} discussion files of ~20 comments, in {project}")
        print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the start")
        print(f"{'seconds':<42} {'cold':>7} {'min':>7} {'median':>7} {'max':>7} warm/cold")
        commands = {
            "list": ["list", "--json"],
            "decisions": ["decisions", "--json"],
            "memory": ["memory", "architect", "--json"],
        }
        for key, argv in commands.items():
            if key in wanted:
                show(
                    f"`{' '.join(argv)}` (a new process)",
                    key,
                    cli_times(project, env, argv, args.repeat),
                )
        labels = {
            "tui": "TUI: every row",
            "web": "web: GET / (list page)",
            "lsp": "LSP: workspace symbols",
        }
        for key, label in labels.items():
            if key in wanted:
                show(label, key, process_times(project, env, key, args.repeat))
        if "first" in wanted:
            first_request(project, env, args.repeat)
        load = os.getloadavg()
        print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
