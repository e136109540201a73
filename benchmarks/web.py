"""The live web view (`discussions serve`) in a real headless Chromium: how fast it follows.

    python benchmarks/web.py                       # 10 appends, 5 turns, 5 loads of 2,000 comments
    python benchmarks/web.py --appends 20 --turns 10 --comments 5000
    python benchmarks/web.py --only first --before main   # the first request: main, then this tree

* ``append -> page``: a comment appended by another process (`Discussion.add_comment` + `save`,
  as `discussions comment` does) while the discussion page is open; measured from just after
  `save` returns in that process (Python's clock) to when the comment is in the page's ``#comments``
  (a MutationObserver installed in the page notes ``Date.now()``), and to the next animation
  frame after that. Same machine, same clock. Once on a small discussion and once on the
  2,000-comment one (every change makes the server parse the whole file again).
* ``first chunk -> page``: a turn started with the page's own button; the provider
  (tests/scripts/stamp_print.py, a real subprocess) prints one line holding the time it wrote it
  and waits; measured until that line is in the page's ``#stream``.
* ``2,000 comments``: the page of a 2,000-comment discussion: its server-side render alone (an
  HTTP GET, first with the markdown cache cold, then warm; the page has the newest
  `web.app.FIRST_VIEW` comments, then the older ones fetched by its script, and the page
  with every comment at once, ``?comments=all``, as before), and in the browser the navigation
  timing (response end, DOMContentLoaded end, load end, first contentful paint) of
  `driver.get`, and the time until every comment is in the page.

* ``first request after the start`` (``--only first`` runs this alone, with no browser): a real
  ``discussions serve --port 0`` in a new process, in a project of the 2,000-comment
  ``big.md`` among ``--files`` discussions of ~20 comments (what the server renders in the
  background from its start); the GET of ``/d/big.md`` sent as soon as the address is printed,
  timed to its last byte. Then the same in a folder of ``big.md`` and three discussions of
  three quarters its length, the GET ``--after`` seconds after the address (0.25: a browser
  opening it), while the server renders them ahead. Beside each, the same with the background
  render off (a server whose `create_app` gets ``warm_cache=False``): the page's own cost. With ``--before REV`` (a
  git revision of this repository, exported with ``git archive``, or a folder holding a
  ``src/``), both trees are measured in the same run, their servers started in turn
  (interleaved, the order alternating), ``--starts`` times each; min / median / max and the
  load average.

Targets: the first request after the start under 500 ms, append to page under 500 ms, first streamed chunk under 200 ms, the first render
of a never-rendered 2,000-comment discussion (its GET) under 300 ms, the browser's figures
under 1 s. The server runs with its real follow interval (`web.live.FOLLOW_INTERVAL`). It
prints figures; nothing here asserts.
"""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WORK = Path(tempfile.mkdtemp(prefix="discussions-web-"))
os.environ["DISCUSSIONS_HOME"] = str(WORK / "userdir")
os.environ["XDG_CACHE_HOME"] = str(WORK / "cache")  # the derived-summary cache: this run's own
os.environ["NO_COLOR"] = "1"
os.chdir(WORK)
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from corpus import generate, use_provider  # noqa: E402  (benchmarks/, this script's folder)

TARGETS = {"append": 500.0, "chunk": 200.0, "first": 300.0, "page": 1000.0, "start": 500.0}

OBSERVE_COMMENTS = """
window.__bench = {seen: {}, frame: {}};
new MutationObserver((records) => {
  const now = Date.now();
  for (const r of records) for (const n of r.addedNodes) {
    const m = (n.textContent || "").match(/BENCH-(\\d+)-END/);
    if (m && !(m[1] in window.__bench.seen)) {
      const key = m[1];
      window.__bench.seen[key] = now;
      requestAnimationFrame(() => { window.__bench.frame[key] = Date.now(); });
    }
  }
}).observe(document.getElementById("comments"), {childList: true, subtree: true});
"""

OBSERVE_STREAM = """
window.__stamps = {};
const stream = document.getElementById("stream");
new MutationObserver(() => {
  const now = Date.now();
  for (const m of stream.textContent.matchAll(/STAMP (\\d+\\.\\d+)/g)) {
    if (!(m[1] in window.__stamps)) window.__stamps[m[1]] = now;
  }
}).observe(stream, {childList: true, subtree: true, characterData: true});
"""


def missing() -> str | None:
    """Why the benchmark cannot run here, or None."""
    for module, extra in (("starlette", "web"), ("uvicorn", "web"), ("selenium", "test")):
        try:
            __import__(module)
        except ImportError:
            return f"the {module!r} package is not installed (pip install '.[{extra}]')"
    from tests.support.browser import unavailable_reason

    return unavailable_reason()


# -- files -----------------------------------------------------------------------------------


def setup(hold: float) -> None:
    """The stamping provider as the default one, a participant using it."""
    use_provider(WORK, ROOT / "tests" / "scripts" / "stamp_print.py", str(hold))


def new_discussion(title: str) -> Path:
    from discussions.model.discussion import Discussion
    from discussions.settings.workspace import Workspace

    d = Discussion.create(
        title, context="Measure.", participants=["bench"], workspace=Workspace.discover()
    )
    d.save()
    return Path(d.path)


# -- measurements ----------------------------------------------------------------------------


def wait(condition: Any, timeout: float = 20.0, poll: float = 0.01) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(poll)
    return None


def open_page(driver: Any, server: Any, name: str) -> None:
    from tests.support.web import TOKEN

    hub = server.app.state.hub
    driver.get("about:blank")
    wait(lambda: not hub.channels, 10)  # the last page's event stream has closed
    driver.get(f"{server.url}/d/{name}?token={TOKEN}")
    wait(lambda: driver.execute_script("return document.readyState") == "complete")
    # The page's event stream is connected once the server follows the file.
    wait(lambda: hub.channels, 10)


APPEND = """
import sys, time
from discussions.model.discussion import Discussion
from discussions.settings.workspace import Workspace
d = Discussion.load(sys.argv[1], Workspace.discover())
d.add_comment("Robin", sys.argv[2])
d.save()
print(time.time() * 1000)
"""


def append_latency(driver: Any, server: Any, path: Path, samples: int) -> tuple[list, list]:
    """(DOM, next frame) latencies in ms of `samples` appends to `path` by another process,
    with the page open."""
    open_page(driver, server, path.name)
    driver.execute_script(OBSERVE_COMMENTS)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    dom, frame = [], []
    for i in range(samples):
        # Out of step with the server's polling, as a real writer would be.
        time.sleep(0.2 + random.random() * 0.2)
        done = subprocess.run(
            [sys.executable, "-c", APPEND, str(path), f"Appended at once. BENCH-{i}-END"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        written = float(done.stdout.split()[-1])  # just after `save` returned, in that process
        key = str(i)
        got = wait(
            lambda key=key: driver.execute_script(
                "const b = window.__bench; return b.frame[arguments[0]] ? "
                "[b.seen[arguments[0]], b.frame[arguments[0]]] : null",
                key,
            ),
            10,
        )
        if got:
            dom.append(got[0] - written)
            frame.append(got[1] - written)
    return dom, frame


def chunk_latency(driver: Any, server: Any, path: Path, samples: int) -> list[float]:
    from selenium.webdriver.common.by import By

    open_page(driver, server, path.name)
    driver.execute_script(OBSERVE_STREAM)
    out: list[float] = []
    used: set[str] = set()
    for _ in range(samples):
        driver.find_element(By.ID, "turn-button").click()
        notice = driver.find_element(By.ID, "notice")
        if not wait(lambda notice=notice: notice.text == "Turn finished", 30):
            print("  a turn did not finish:", notice.text)
            break
        stamps = driver.execute_script("return window.__stamps")
        new = sorted((float(s), seen, s) for s, seen in stamps.items() if s not in used)
        used.update(stamps)
        if new:
            stamp, seen, _ = new[-1]
            out.append(seen - stamp)
        driver.execute_script("document.getElementById('notice').textContent = ''")
    return out


def get_page(server: Any, name: str, path: str = "/d/{name}") -> tuple[float, int]:
    """(ms, bytes) of one GET of the writable page (with the token's cookie)."""
    from tests.support.web import TOKEN

    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    started = time.perf_counter()
    cookie = f"{server.settings.cookie}={TOKEN}"
    conn.request("GET", path.format(name=name), headers={"Cookie": cookie})
    response = conn.getresponse()
    body = response.read()
    took = (time.perf_counter() - started) * 1000
    conn.close()
    if response.status != 200:
        raise RuntimeError(f"GET /d/{name}: {response.status}")
    return took, len(body)


def warm_up_time(started: float) -> float | None:
    """Seconds from the server's start until its rendering ahead ("discussions-warm") ended."""
    import threading

    if not wait(lambda: not any(t.name == "discussions-warm" for t in threading.enumerate()), 120):
        return None
    return time.perf_counter() - started


NAVIGATION = """
const n = performance.getEntriesByType("navigation")[0];
const p = performance.getEntriesByName("first-contentful-paint")[0];
return [n.responseStart, n.responseEnd, n.domContentLoadedEventEnd, n.loadEventEnd,
        p ? p.startTime : null, document.querySelectorAll("#comments article").length];
"""
ALL_IN = """
const want = arguments[0];
if (document.querySelectorAll("#comments article").length < want) return null;
return performance.now();
"""


def page_load(
    driver: Any, server: Any, name: str, repeat: int, comments: int
) -> dict[str, list[float]]:
    from tests.support.web import TOKEN

    driver.get(f"{server.url}/?token={TOKEN}")  # the token's cookie, for the writable page
    figures: dict[str, list[float]] = {}
    for _ in range(repeat):
        driver.get("about:blank")
        # The last visit's event stream closed: nothing else runs on the server.
        wait(lambda: not server.app.state.hub.channels, 10)
        time.sleep(0.2)
        started = time.perf_counter()
        driver.get(f"{server.url}/d/{name}")
        wall = (time.perf_counter() - started) * 1000
        start, end, dcl, load, fcp, shown = driver.execute_script(NAVIGATION)
        every = wait(lambda: driver.execute_script(ALL_IN, comments), 30, 0.005)
        for key, value in (
            ("driver.get", wall),
            ("first byte", start),
            ("response end", end),
            ("DOMContentLoaded end", dcl),
            ("load end", load),
            ("first contentful paint", fcp),
            ("every comment in the page", every),
            ("comments shown", shown),
        ):
            if value is not None:
                figures.setdefault(key, []).append(float(value))
    return figures


def first_shown(path: Path) -> int:
    """The line of the oldest comment the first view of `path` renders."""
    from discussions.model.discussion import Discussion
    from discussions.web.app import FIRST_VIEW

    comments = Discussion.load(path).comments
    return comments[max(0, len(comments) - FIRST_VIEW)].line


def render_cpu(path: Path, newest: int | None) -> tuple[float, float]:
    """(wall ms, CPU ms of this process) to load, parse and render `path`'s page in this
    process: the newest `newest` comments, or all. The CPU time is what the page costs on a
    machine nobody else is using."""
    from discussions.model.discussion import Discussion
    from discussions.views.html import discussion_page

    wall, cpu = time.perf_counter(), time.process_time()
    discussion_page(Discussion.load(path), newest=newest)
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


# -- the first request after the start -------------------------------------------------------

SERVE_QUIET = """
import sys
from discussions.web import app
real = app.create_app
app.create_app = lambda *a, **k: real(*a, **dict(k, warm_cache=False))
from discussions.cli import main
main()
"""
"""`discussions serve` with no background render (`serve` takes `create_app` from its module
when it is called): the page's own cost, the baseline of the first request."""


def source_tree(before: str) -> Path:
    """The ``src`` folder of the code to compare with: `before`'s own if it is a folder, else
    that git revision of this repository exported into a temporary folder."""
    given = Path(before)
    if given.is_dir():
        return given / "src" if (given / "src").is_dir() else given
    out = Path(tempfile.mkdtemp(prefix="discussions-before-"))
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", before, "src"],
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive.stdout, check=True)
    return out / "src"


def first_project(comments: int, files: int, long: int) -> Path:
    """A project of its own (its own settings file: not this run's other project): ``big.md``
    of `comments` comments among `files` discussions of ~20, dated an hour back, and `long`
    of three quarters its length (rendered ahead before it: smaller)."""
    from folders import discussion

    project = Path(tempfile.mkdtemp(prefix="discussions-first-"))
    (project / "discussions.yaml").write_text("", encoding="utf-8")
    folder = project / "discussions"
    folder.mkdir()
    generate(folder / "big.md", comments)
    for i in range(long):
        generate(folder / f"long-{i}.md", comments * 3 // 4, tag=f" (long {i})")
    rnd = random.Random(7)
    past = time.time() - 3600
    for i in range(files):
        path = folder / f"topic-{i:05d}.md"
        path.write_text(discussion(i, rnd), encoding="utf-8")
        os.utime(path, (past, past))
    return project


def tree_env(src: Path, project: Path, tree: int) -> dict[str, str]:
    """The environment of a server running `src`: its own bytecode (cached as in any
    installation, even where PYTHONDONTWRITEBYTECODE is set) and derived-summary cache."""
    env = dict(
        os.environ,
        PYTHONPATH=str(src),
        PYTHONPYCACHEPREFIX=str(project / f"pycache-{tree}"),
        XDG_CACHE_HOME=str(project / f"cache-{tree}"),
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], env=env, check=True)
    return env


def serve_once(
    env: dict[str, str], project: Path, quiet: bool, after: float = 0.0
) -> tuple[float, float]:
    """(seconds from the spawn of a server (in `env`) to its address printed, seconds of the
    GET of ``/d/big.md`` sent `after` seconds later), the server stopped after."""
    command = ["-c", SERVE_QUIET] if quiet else ["-m", "discussions"]
    started = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, *command, "serve", "--port", "0"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        address = server.stdout.readline().strip() if server.stdout else ""
        ready = time.perf_counter() - started
        if "?token=" not in address:
            raise RuntimeError(f"the server printed {address!r}, not its address")
        port = int(address.split(":")[2].split("/")[0])
        time.sleep(after)  # as a browser opening the address would, or at once
        cookie = f"discussions_token_{port}={address.split('?token=')[1]}"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        sent = time.perf_counter()
        conn.request("GET", "/d/big.md", headers={"Cookie": cookie})
        response = conn.getresponse()
        response.read()
        took = time.perf_counter() - sent
        conn.close()
        if response.status != 200:
            raise RuntimeError(f"GET /d/big.md: {response.status}")
        return ready, took
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def spread(values: list[float]) -> str:
    return f"{min(values):7.3f} {statistics.median(values):7.3f} {max(values):7.3f}"


def first_request(args: argparse.Namespace) -> None:
    """The first request after the start, in two folders, for each tree (before, then this
    one), the servers started in turn: with the background render, and without."""
    trees = {"this tree": ROOT / "src"}
    if args.before:
        trees = {f"before ({args.before})": source_tree(args.before), **trees}
    scenes = (
        (f"among {args.files:,} discussions of ~20 comments, the GET at once", args.files, 0, 0.0),
        (
            f"beside 3 discussions of {args.comments * 3 // 4:,} comments, the GET "
            f"{args.after:g} s after the address (they are being rendered ahead)",
            0,
            3,
            args.after,
        ),
    )
    for scene, files, long, after in scenes:
        project = first_project(args.comments, files, long)
        envs = {name: tree_env(src, project, i) for i, (name, src) in enumerate(trees.items())}
        load = os.getloadavg()
        print(
            f"\nfirst request after the start: /d/big.md ({args.comments:,} comments) {scene}; "
            f"{args.starts} starts of each, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
        )
        for env in envs.values():  # not measured: the libraries' bytecode written
            serve_once(env, project, quiet=False)
        times = starts(envs, project, args.starts, after)
        show_starts(times, scene, args)
        shutil.rmtree(project, ignore_errors=True)
    if args.before and not Path(args.before).is_dir():  # the revision exported for this run
        shutil.rmtree(trees[next(iter(trees))].parent, ignore_errors=True)


def starts(
    envs: dict[str, dict[str, str]], project: Path, count: int, after: float
) -> dict[tuple[str, bool], list[tuple[float, float]]]:
    """`serve_once` `count` times for each tree, with and without the background render,
    interleaved (the order alternating)."""
    runs = [(name, quiet) for name in envs for quiet in (False, True)]
    times: dict[tuple[str, bool], list[tuple[float, float]]] = {run: [] for run in runs}
    for n in range(count):
        for name, quiet in runs if n % 2 == 0 else runs[::-1]:
            times[(name, quiet)].append(serve_once(envs[name], project, quiet, after))
    return times


def show_starts(
    times: dict[tuple[str, bool], list[tuple[float, float]]], scene: str, args: argparse.Namespace
) -> None:
    print(f"  {'seconds':<58} {'min':>7} {'median':>7} {'max':>7}")
    medians: dict[tuple[str, bool], float] = {}
    for (name, quiet), pairs in times.items():
        what = "GET, no background render" if quiet else "GET, the server as it starts"
        if not quiet:
            print(f"  {name + ': spawn -> address printed':<58} {spread([r for r, _ in pairs])}")
        medians[(name, quiet)] = statistics.median(t for _, t in pairs)
        print(f"  {name + ': first ' + what:<58} {spread([t for _, t in pairs])}")
    load = os.getloadavg()
    after = medians[("this tree", False)]
    target = TARGETS["start"] / 1000
    versus = ""
    if args.before:
        before = medians[(next(iter(times))[0], False)]
        versus = f", before {before:.3f} s, after/before {after / before:.2f}"
    print(
        f"ROW | web: first request after the start, {args.comments:,}-comment page ({scene}) | "
        f"{after:.3f} s median{versus}; {after / medians[('this tree', True)]:.2f}x the same "
        f"GET with no background render (target < {target:g} s, "
        f"{'meets' if after < target else 'MISSES'}) | n={args.starts} each, interleaved, "
        f"load {load[0]:.2f} at the end"
    )


# -- output ----------------------------------------------------------------------------------


def row(name: str, values: list[float], target: float | None = None) -> None:
    if not values:
        print(f"  {name:<40} no sample")
        return
    median = statistics.median(values)
    line = f"  {name:<40} median {median:7.1f} ms   max {max(values):7.1f} ms   n={len(values)}"
    if target:
        line += f"   target {target:.0f} ms   ratio {median / target:.2f} (max {max(values) / target:.2f})"
    print(line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--appends", type=int, default=10)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--comments", type=int, default=2000)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--files", type=int, default=1000, help="discussions beside big.md")
    parser.add_argument("--starts", type=int, default=11, help="server starts of each kind")
    parser.add_argument(
        "--after",
        type=float,
        default=0.25,
        help="seconds from the address to the GET, beside long discussions",
    )
    parser.add_argument("--before", help="a git revision or a source tree to measure first")
    parser.add_argument("--only", choices=["first"], help="only the first request after start")
    args = parser.parse_args()
    if args.only == "first":
        first_request(args)
        return 0

    reason = missing()
    if reason:
        print(f"web benchmark skipped: {reason}")
        return 0

    from tests.support.browser import start_browser
    from tests.support.web import LiveServer

    from discussions.settings.workspace import Workspace
    from discussions.web.live import FOLLOW_INTERVAL

    setup(hold=0.2)
    small = new_discussion("Latency")
    streaming = new_discussion("Streaming")
    big = WORK / "discussions" / "big.md"
    generate(big, args.comments)

    driver = start_browser()
    started = time.perf_counter()
    server = LiveServer(Workspace.discover(), interval=FOLLOW_INTERVAL)
    try:
        print(
            f"python {platform.python_version()}, {os.cpu_count()} CPUs, "
            f"Chromium {driver.capabilities.get('browserVersion')}, "
            f"follow interval {FOLLOW_INTERVAL * 1000:.0f} ms, work dir {WORK}"
        )
        warmed = warm_up_time(started)
        print(
            f"server start to discussions rendered ahead ({args.comments + 6} comments in 3 "
            f"files): {f'{warmed:.2f} s' if warmed is not None else 'not finished'}"
        )
        print("\nappend -> page (an append by another process, page open)")
        dom, frame = append_latency(driver, server, small, args.appends)
        row("in the DOM", dom, TARGETS["append"])
        row("next frame", frame, TARGETS["append"])

        print("\nfirst streamed chunk -> page (turn started from the page)")
        row("in #stream", chunk_latency(driver, server, streaming, args.turns), TARGETS["chunk"])

        size_kb = big.stat().st_size / 1024
        print(f"\n{args.comments}-comment discussion ({size_kb:.0f} KB of markdown)")
        # Generated after the start: never rendered ahead (a different tag: no cached comment).
        cold, older = [], []
        for n in range(args.loads):
            fresh = WORK / "discussions" / f"fresh-{n}.md"
            generate(fresh, args.comments, tag=f" (new {n})")
            took, page_bytes = get_page(server, fresh.name)
            cold.append(took)
            before = first_shown(fresh)
            took, older_bytes = get_page(
                server, fresh.name, f"/api/discussions/{{name}}/comments?before={before}"
            )
            older.append(took)
        whole = WORK / "discussions" / "whole.md"
        generate(whole, args.comments, tag=" (whole)")
        from discussions.web.app import FIRST_VIEW

        costs: dict[str, list[tuple[float, float]]] = {"first view": [], "every comment": []}
        for n in range(args.loads):
            for kind, newest in (("first view", FIRST_VIEW), ("every comment", None)):
                alone = WORK / f"alone-{n}.md"  # outside the served folder, never rendered
                generate(alone, args.comments, tag=f" (alone {kind} {n})")
                costs[kind].append(render_cpu(alone, newest))
        cold_all, all_bytes = get_page(server, whole.name, "/d/{name}?comments=all")
        first, _ = get_page(server, big.name)
        warm = [get_page(server, big.name)[0] for _ in range(args.loads)]
        print(
            f"  page: {page_bytes / 1024:.0f} KB of HTML, the older comments "
            f"{older_bytes / 1024:.0f} KB of JSON, the page with all {all_bytes / 1024:.0f} KB"
        )
        row("web: first render (GET, never rendered)", cold, TARGETS["first"])
        median = statistics.median(cold)
        print(
            f"ROW | web: first render of a {args.comments:,}-comment discussion | "
            f"{median:.0f} ms (target < {TARGETS['first']:.0f} ms, "
            f"{'meets' if median < TARGETS['first'] else 'MISSES'}) | median of "
            f"{len(cold)} never-rendered files, load {os.getloadavg()[0]:.2f}"
        )
        for kind, pairs in costs.items():
            row(f"in-process {kind}: wall", [w for w, _ in pairs], TARGETS["first"])
            row(f"in-process {kind}: CPU", [c for _, c in pairs], TARGETS["first"])
        row("server: then the older comments (GET)", older)
        row("server: ?comments=all, never rendered", [cold_all])
        row("server: first GET (rendered ahead)", [first], TARGETS["first"])
        row("server: later GETs", warm, TARGETS["first"])
        figures = page_load(driver, server, big.name, args.loads, args.comments)
        shown = figures.pop("comments shown", [0])
        for key, values in figures.items():
            row(f"browser: {key}", values, TARGETS["page"])
        print(f"  ({int(min(shown))} comments on the page at its load event)")

        print(f"\nappend -> page on the {args.comments}-comment discussion")
        dom, frame = append_latency(driver, server, big, args.appends)
        row("in the DOM", dom, TARGETS["append"])
        row("next frame", frame, TARGETS["append"])
    finally:
        driver.get("about:blank")
        server.stop()
        driver.quit()
    first_request(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
