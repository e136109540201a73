"""Streaming latency and `discussions ui` start-up.

    python benchmarks/ui.py                 # 500 discussions, 5 latency samples
    python benchmarks/ui.py --files 2000 --samples 10

* ``turn display``: a stand-in provider (a real subprocess) prints one line holding the time it
  wrote it, then keeps running; measured is the time until that line is written by the live
  turn display (`cli.progress.Progress`, as `discussions turn` uses on a terminal).
* ``tui``: the same provider in a turn started from the app (headless, Textual's pilot);
  measured is the time until the line is in the participant's panel and the screen has been
  refreshed after it.
* ``start-up``: `discussions ui` in a pseudo-terminal (80x24) in a fresh process, with N
  discussion files: time to the first painted browser, and to the browser listing all N.

Targets: under 100 ms from first output byte to display; first painted browser under 1 s with
500 discussions. It prints figures; nothing here asserts.

    python benchmarks/ui.py --only startup --files 1000 --starts 7 \
        --pythonpath BEFORE/src --pythonpath src

With ``--pythonpath`` (once or more: each a ``src`` folder, the first the baseline), the
start-up runs for each tree, ``--starts`` times, the trees in turns (the order alternating),
each with its own cache folder: the first start of each is cold (nothing cached), the later
ones warm; then min / median / max of the warm starts per tree, the load, and the last tree's
medians over the first's.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import io
import os
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

CALLED_FROM = Path.cwd()  # --pythonpath is read from here, before the chdir below
WORK = Path(tempfile.mkdtemp(prefix="discussions-ui-"))
os.environ["DISCUSSIONS_HOME"] = str(WORK / "userdir")
os.environ["XDG_CACHE_HOME"] = str(WORK / "cache")  # the derived-summary cache: this run's own
os.environ["NO_COLOR"] = "1"
os.chdir(WORK)
SRC = str(Path(__file__).resolve().parents[1] / "src")
sys.path.insert(0, SRC)

from corpus import use_provider  # noqa: E402  (benchmarks/, this script's folder)

from discussions.model.discussion import Discussion  # noqa: E402
from discussions.settings.workspace import Workspace  # noqa: E402

PROVIDER = """
import sys, time
sys.stdin.read()
sys.stdout.write("STAMP %.6f\\n" % time.time()); sys.stdout.flush()
time.sleep(%(hold)s)
sys.stdout.write("VOTE: READY\\n")
"""


def setup(hold: float) -> Path:
    script = WORK / "stamp.py"
    script.write_text(PROVIDER.replace("%(hold)s", str(hold)), encoding="utf-8")
    use_provider(WORK, script)
    d = Discussion.create(
        "Latency", context="Measure.", participants=["bench"], workspace=Workspace.discover()
    )
    d.save()
    return d.path


class Screen(io.StringIO):
    """A terminal stand-in that notes when the stamped line is first drawn."""

    encoding = "utf-8"

    def __init__(self) -> None:
        super().__init__()
        self.seen: float | None = None
        self.stamp: float | None = None

    def write(self, text: str) -> int:
        if self.seen is None and "STAMP " in text:
            self.seen = time.time()
            self.stamp = float(text.split("STAMP ", 1)[1].split()[0].rstrip("…~"))
        return len(text)

    def isatty(self) -> bool:
        return True


def turn_display(samples: int) -> list[float]:
    from discussions.cli.progress import Progress
    from discussions.engine.runner import Runner

    out = []
    for _ in range(samples):
        path = setup(0.3)
        screen = Screen()
        d = Discussion.load(path, Workspace.discover())
        with Progress(screen, live=True, expected=[("bench", "AI-Bench")], color=False) as p:
            Runner(Workspace.discover(), on_event=p).run_turn(d, ["bench"])
        if screen.seen and screen.stamp:
            out.append((screen.seen - screen.stamp) * 1000)
        path.unlink()
    return out


async def _tui_once() -> float | None:
    from discussions.tui.app import DiscussionsApp
    from discussions.tui.discussion import DiscussionScreen
    from discussions.tui.turn import TurnScreen

    path = setup(0.5)
    ws = Workspace.discover()
    app = DiscussionsApp(path.parent, path, ws)
    async with app.run_test(size=(80, 24)) as pilot:
        while not isinstance(app.screen, DiscussionScreen):
            await pilot.pause(0.01)
        await pilot.press("t")
        while not isinstance(app.screen, TurnScreen):
            await pilot.pause(0.01)
        screen = app.screen
        await pilot.press("ctrl+r")
        seen: float | None = None
        deadline = time.time() + 10
        while seen is None and time.time() < deadline:
            panel = screen.panels.get("bench")
            text = str(panel.render()) if panel else ""
            if "STAMP " in text:
                await pilot.pause(0)  # let the refresh after the update run
                seen = time.time()
                stamp = float(text.split("STAMP ", 1)[1].split()[0])
                break
            await asyncio.sleep(0.001)
        while screen.running:
            await pilot.pause(0.05)
    path.unlink()
    return (seen - stamp) * 1000 if seen else None


def tui(samples: int) -> list[float]:
    out = []
    for _ in range(samples):
        value = asyncio.run(_tui_once())
        if value is not None:
            out.append(value)
    return out


def many(files: int) -> Path:
    """A folder of `files` small discussions (a comment each), made once a run."""
    folder = WORK / "many"
    if folder.exists():
        return folder
    folder.mkdir()
    ws = Workspace.discover()
    template = Discussion.create(
        "Template", context="Lots of text. " * 40, workspace=ws, directory=folder
    )
    template.add_comment(
        "Rob", "A comment.\n\nQ: why?\n\n@architect what do you think?", vote="READY"
    )
    template.save()
    text = template.path.read_text(encoding="utf-8")
    for i in range(files - 1):
        (folder / f"d{i:05d}.md").write_text(text.replace("Template", f"Topic {i}"), "utf-8")
    return folder


def startup(
    files: int, src: str = SRC, cache: str | None = None
) -> tuple[float | None, float | None]:
    """(seconds to the first painted browser, to all `files` listed) of `discussions ui` from
    `src`, with `cache` its cache folder (default: this run's)."""
    folder = many(files)
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": src}
    if cache:
        env["XDG_CACHE_HOME"] = cache
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "discussions", "ui", "--dir", str(folder)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    data = b""
    first = full = None
    deadline = started + 60
    while time.perf_counter() < deadline and full is None:
        ready, _, _ = select.select([master], [], [], 0.01)
        if ready:
            try:
                data += os.read(master, 1 << 16)
            except OSError:
                break
        if first is None and b"Discussions in" in data:
            first = time.perf_counter() - started
        if full is None and f"{files} shown".encode() in data:
            full = time.perf_counter() - started
    os.write(master, b"q")
    end = time.perf_counter() + 10
    while proc.poll() is None and time.perf_counter() < end:
        if select.select([master], [], [], 0.05)[0]:
            try:
                os.read(master, 1 << 16)
            except OSError:
                pass
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    os.close(master)
    return first, full


def show(name: str, values: list[float]) -> None:
    if not values:
        print(f"{name:<34} no sample")
        return
    print(
        f"{name:<34} median {statistics.median(values):6.1f} ms   "
        f"max {max(values):6.1f} ms   ({len(values)} samples)"
    )


def startups(files: int, trees: list[str], count: int) -> None:
    """`startup` `count` times per tree in turns; each tree's cold and warm figures."""
    found: dict[str, list[tuple[float | None, float | None]]] = {src: [] for src in trees}
    for i in range(count):
        for n, src in enumerate(trees) if i % 2 == 0 else reversed(list(enumerate(trees))):
            found[src].append(startup(files, str(Path(src).resolve()), str(WORK / f"cache-{n}")))
    load = "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    print(
        f"ui start-up, {files} discussions, seconds (cold: the first start; warm: min / median / max), {load}"
    )
    medians = {}
    for src, runs in found.items():
        for k, what in enumerate(("first paint", "all listed")):
            cold, warm = runs[0][k], [r[k] for r in runs[1:] if r[k] is not None]
            medians[(src, what)] = statistics.median(warm) if warm else None
            shown = (
                f"{min(warm):.3f} / {statistics.median(warm):.3f} / {max(warm):.3f} (n={len(warm)})"
                if warm
                else "not seen"
            )
            cold_shown = f"{cold:.3f}" if cold is not None else "not seen"
            print(f"  [{src}] {what}: cold {cold_shown}; warm {shown}")
    if len(trees) > 1:
        for what in ("first paint", "all listed"):
            a, b = medians[(trees[-1], what)], medians[(trees[0], what)]
            if a is not None and b is not None:
                print(f"  {what}: [{trees[-1]}] / [{trees[0]}] = {a / b:.3f} (warm medians)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--only", choices=["startup"], help="only the start-up")
    parser.add_argument("--pythonpath", action="append", metavar="SRC", help="a tree to start")
    parser.add_argument("--starts", type=int, default=7, help="starts per tree, with --pythonpath")
    args = parser.parse_args()
    print(f"work folder: {WORK}")
    if args.pythonpath:
        trees = [str((CALLED_FROM / tree).resolve()) for tree in args.pythonpath]
        missing = [tree for tree in trees if not (Path(tree) / "discussions").is_dir()]
        if missing:
            parser.error(f"no discussions package in {', '.join(missing)}")
        startups(args.files, trees, args.starts)
        return
    if args.only == "startup":
        first, full = startup(args.files)
        print(f"ui start-up, {args.files} discussions: first paint {first}, all listed {full}")
        return
    show("first byte -> turn display", turn_display(args.samples))
    show("first byte -> TUI panel", tui(args.samples))
    first, full = startup(args.files)
    f = f"{first * 1000:.0f} ms" if first else "not seen"
    a = f"{full * 1000:.0f} ms" if full else "not seen"
    print(f"ui start-up, {args.files} discussions:  first paint {f}, all listed {a}")


if __name__ == "__main__":
    main()
