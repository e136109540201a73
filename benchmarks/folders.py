"""Big folders: every discussion of a 1,000-file folder listed, by each reader of the folder.

    python benchmarks/folders.py                 # 1,000 files of ~20 comments, 5 warm runs
    python benchmarks/folders.py --files 100,1000   # 100 then 1,000 files: linear at worst?
    python benchmarks/folders.py --pythonpath BEFORE/src --pythonpath src --rounds 2

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
cold run of the same row, measured in this run), the median CPU time of a warm run (the
process's own and its children's: steadier than the wall time on a shared machine), the
target, and the load average. Nothing here asserts.

With ``--pythonpath`` given more than once (the first is the baseline: an older tree's
``src``), every row runs for each tree in turns, so all see the same machine: a CLI row runs
its processes one tree after the other, the order alternating; an in-process row runs one
process per tree, ``--rounds`` times, the order alternating. Each tree keeps its own cache
folder. Then each row prints the last tree's warm median over the first's (wall and CPU).
With ``--files`` a list of counts, each count gets its own folder, and each row prints how
its warm median grew from the fewest files to the most, beside how the count grew.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
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
        vote = rnd.choice(["READY", "CHANGES", "REJECT"])
        parts.append(f"---\n\n{signed(rnd.choice(NAMES), body, vote, c)}\n")
    parts.append("---\n")
    if status != "OPEN":
        # Closed by a separator, as the engine writes it (else the last comment runs on).
        parts.append(f"\n<!-- STATUS-CHANGE: OPEN -> {status} -->\n\n---\n")
    return "".join(parts)


def signed(name: str, body: str, vote: str, c: int) -> str:
    """A comment by `name`: a participant's signed as the engine writes it (unsigned, `check`
    would report it and its votes and markers would count for nothing), a person's as typed."""
    if not name.startswith("AI-"):
        return f"Name: {name}\n\n{body}VOTE: {vote}\n"
    from discussions.derive.signatures import render_signed

    at = f"at: 2026-01-01T10:{c % 60:02d}:00Z"
    return render_signed(name, body.rstrip("\n"), ["provider: mock", at], vote)


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

    times, cpus = [], []
    for _ in range(1 + repeat):
        t, c = time.perf_counter(), time.process_time()
        once()
        times.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    print(json.dumps([times, cpus]))
    """
)

Tree = tuple[str, dict[str, str]]
"""(label, environment) of a version of the package: its ``src`` first on ``PYTHONPATH``
(none given: whatever this process's environment imports), its own cache folder."""
Times = tuple[list[float], list[float]]
"""(wall seconds, CPU seconds) of the cold run, then of each warm run."""


def make_trees(work: Path, paths: list[str] | None) -> list[Tree]:
    """One `Tree` per source folder in `paths` (or one for this environment)."""
    base = {
        **os.environ,
        "DISCUSSIONS_HOME": str(work / "userdir"),
        "NO_COLOR": "1",
    }
    base.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: bytecode kept
    if not paths:
        return [("", {**base, "XDG_CACHE_HOME": str(work / "cache-0")})]
    return [
        (
            tree_label(path),
            {
                **base,
                "PYTHONPATH": str(Path(path).resolve()),
                "XDG_CACHE_HOME": str(work / f"cache-{i}"),
            },
        )
        for i, path in enumerate(paths)
    ]


def tree_label(path: str) -> str:
    """A short name for the tree of source folder `path`: its checkout's folder name."""
    folder = Path(path).resolve()
    return folder.parent.name if folder.name == "src" else folder.name


def in_turns(trees: list[Tree], i: int) -> list[Tree]:
    """`trees` in the order of turn `i`: forwards, then backwards, so neither goes first always."""
    return trees if i % 2 == 0 else trees[::-1]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli_times(project: Path, trees: list[Tree], args: list[str], repeat: int) -> dict[str, Times]:
    """Per tree: a cold run (fresh cache folder) of ``discussions ARGS``, then `repeat` warm,
    the trees' runs in turns."""
    found: dict[str, Times] = {label: ([], []) for label, _ in trees}
    for _, env in trees:
        shutil.rmtree(Path(env["XDG_CACHE_HOME"]), ignore_errors=True)
    for i in range(1 + repeat):
        for label, env in in_turns(trees, i):
            t, c = time.perf_counter(), children_cpu()
            subprocess.run(
                [sys.executable, "-m", "discussions", *args],
                cwd=project,
                env=env,
                check=True,
                stdout=subprocess.DEVNULL,
            )
            found[label][0].append(time.perf_counter() - t)
            found[label][1].append(children_cpu() - c)
    return found


def process_times(project: Path, env: dict[str, str], what: str, repeat: int) -> Times:
    shutil.rmtree(Path(env["XDG_CACHE_HOME"]), ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-c", _IN_PROCESS, what, str(repeat)],
        cwd=project,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    walls, cpus = json.loads(done.stdout.strip().splitlines()[-1])
    return [float(x) for x in walls], [float(x) for x in cpus]


def rounds_of(
    project: Path, trees: list[Tree], what: str, repeat: int, rounds: int
) -> dict[str, Times]:
    """`process_times` of each tree, `rounds` times, the trees in turns; per tree, the first
    round's cold run, then every round's warm runs (the later rounds' cold runs left out)."""
    found: dict[str, Times] = {}
    for i in range(rounds):
        for label, env in in_turns(trees, i):
            walls, cpus = process_times(project, env, what, repeat)
            if label not in found:
                found[label] = (walls[:1], cpus[:1])
            found[label][0].extend(walls[1:])
            found[label][1].extend(cpus[1:])
    return found


def first_request(project: Path, trees: list[Tree], repeat: int) -> None:
    """The first request after the start for the 2,000-comment page, while the server renders
    the folder's pages in the background, against the same request with nothing beside it."""
    runs: dict[tuple[str, str], list[float]] = {}
    for i in range(repeat):
        for label, env in in_turns(trees, i):
            for what in ("first", "alone") if i % 2 == 0 else ("alone", "first"):
                took = process_times(project, env, what, 0)[0][0]
                runs.setdefault((label, what), []).append(took)
    for label, _ in trees:
        first, alone = runs[(label, "first")], runs[(label, "alone")]
        mid, base = statistics.median(first), statistics.median(alone)
        verdict = "met" if mid < TARGETS["first"] else "NOT met"
        print(
            f"{labelled('web: first GET of 2,000 comments', label):<42} {base:>7.3f} "
            f"{min(first):>7.3f} {mid:>7.3f} {max(first):>7.3f} {mid / base:>6.3f}x  "
            f"< {TARGETS['first']:g} s: {verdict}  (baseline: the same GET with no background "
            f"render, median; n={len(first)}, {load_now()})"
        )


def labelled(name: str, label: str) -> str:
    return f"{name} [{label}]" if label else name


def load_now() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def show(name: str, key: str, found: dict[str, Times]) -> dict[str, tuple[float, float]]:
    """Prints each tree's figures of a row; returns each tree's (wall, CPU) warm medians."""
    medians = {}
    target = TARGETS[key]
    for label, (walls, cpus) in found.items():
        cold, warm = walls[0], walls[1:]
        mid, cpu = statistics.median(warm), statistics.median(cpus[1:])
        medians[label] = (mid, cpu)
        verdict = "met" if mid < target else "NOT met"
        print(
            f"{labelled(name, label):<42} {cold:>7.3f} {min(warm):>7.3f} {mid:>7.3f} "
            f"{max(warm):>7.3f} {mid / cold:>6.3f}x {cpu:>7.3f}  < {target:g} s: {verdict}  "
            f"(n={len(warm)}, {load_now()})"
        )
    if len(medians) > 1:
        (first, (w0, c0)), *_, (last, (w1, c1)) = medians.items()
        print(
            f"  {name}: [{last}] / [{first}], warm medians: wall {w1 / w0:.3f}x, CPU {c1 / c0:.3f}x"
        )
    return medians


COMMANDS = {
    "list": ["list", "--json"],
    "decisions": ["decisions", "--json"],
    "memory": ["memory", "architect", "--json"],
}
IN_PROCESS = {
    "tui": "TUI: every row",
    "web": "web: GET / (list page)",
    "lsp": "LSP: workspace symbols",
}


def one_folder(
    work: Path, files: int, trees: list[Tree], args: argparse.Namespace
) -> dict[str, dict[str, tuple[float, float]]]:
    """Every wanted row on a folder of `files` discussions; returns each row's warm medians."""
    project = make_project(work / f"files-{files}", files)
    wanted = set((args.only or ",".join(TARGETS)).split(","))
    print(f"\n{files} discussion files of ~20 comments, in {project}; {load_now()} at the start")
    print(f"{'seconds':<42} {'cold':>7} {'min':>7} {'median':>7} {'max':>7} warm/cold {'CPU':>7}")
    medians = {}
    for key, argv in COMMANDS.items():
        if key in wanted:
            found = cli_times(project, trees, argv, args.repeat)
            medians[key] = show(f"`{' '.join(argv)}` (a new process)", key, found)
    for key, name in IN_PROCESS.items():
        if key in wanted:
            found = rounds_of(project, trees, key, args.repeat, args.rounds)
            medians[key] = show(name, key, found)
    if "first" in wanted:
        first_request(project, trees, args.repeat)
    shutil.rmtree(project, ignore_errors=True)
    return medians


def growth(by_count: dict[int, dict[str, dict[str, tuple[float, float]]]]) -> None:
    """How each row's warm median grew from the fewest files to the most."""
    low, high = min(by_count), max(by_count)
    print(f"\nfrom {low} to {high} files ({high / low:g}x the files): warm medians grew")
    for key, trees in by_count[high].items():
        for label, (wall, cpu) in trees.items():
            wall0, cpu0 = by_count[low][key][label]
            print(f"  {labelled(key, label):<42} wall {wall / wall0:.2f}x, CPU {cpu / cpu0:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", default="1000", help="a count, or counts: 100,1000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=1, help="processes per tree, in-process rows")
    parser.add_argument("--only", help="comma-separated: list,decisions,memory,tui,web,lsp,first")
    parser.add_argument(
        "--pythonpath",
        action="append",
        metavar="SRC",
        help="a source folder of the package to measure; twice or more: trees in turns",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="discussions-folders-"))
    try:
        trees = make_trees(work, args.pythonpath)
        counts = sorted(int(n) for n in args.files.split(","))
        by_count = {files: one_folder(work, files, trees, args) for files in counts}
        if len(counts) > 1:
            growth(by_count)
        print(f"{load_now()} at the end")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
