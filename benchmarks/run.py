"""Benchmarks for discussions: figures printed as ratios measured in one run on one machine.

    python benchmarks/run.py            # everything
    python benchmarks/run.py --only status,turn
    python benchmarks/run.py --only status,comment --pythonpath /tmp/before/src --pythonpath src

Each figure compares two things measured back to back in this run, so a noisy shared machine
shifts both sides alike. Nothing here asserts; it prints. Wall times are medians of repeats.
"""

from __future__ import annotations

import argparse
import json
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

from corpus import generate

PY = sys.executable
HERE = Path(__file__).resolve().parent
WORK = Path(tempfile.mkdtemp(prefix="discussions-bench-"))
ENV = dict(os.environ, DISCUSSIONS_HOME=str(WORK / "userdir"), NO_COLOR="1")
# An installed package has its bytecode compiled (pip does it), as do the dependencies we compare
# start-up against; an environment that disables writing bytecode would make only our side
# recompile from source at every start.
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
# What the engine keeps between runs (derived summaries, the facts of each file) stays here.
ENV["XDG_CACHE_HOME"] = str(WORK / "cache")
PAIRS: dict[str, int] = {}
"""Pairs measured by a row that compares versions (`--pairs`); a row's own default if not given."""
VERSIONS: list[tuple[str, dict[str, str]]] = [("", ENV)]
"""(label, environment) of each version of the package the rows that compare versions run
(`--pythonpath`); by default one: whatever `python -m discussions` imports here."""


def use_versions(paths: list[str]) -> None:
    """Run the version-comparing rows once for each source folder in `paths` (put first on
    ``PYTHONPATH``), measured in turns within each row."""
    VERSIONS[:] = [
        (path, dict(ENV, PYTHONPATH=os.pathsep.join([str(Path(path).resolve()), str(HERE)])))
        for path in paths
    ]


def cli(
    *args: str, cwd: Path = WORK, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-m", "discussions", *args],
        cwd=cwd,
        env=env or ENV,
        capture_output=True,
        text=True,
        check=check,
    )


def timed(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def compare(a: Callable[[], object], b: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median times of `a` and `b`, run alternately so machine noise hits both alike."""
    ta, tb = [], []
    for _ in range(repeat):
        for fn, times in ((a, ta), (b, tb)):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
    return statistics.median(ta), statistics.median(tb)


def section(title: str) -> None:
    print(f"\n== {title}")


# --------------------------------------------------------------------------- issue 2


def row(figure: str, ratio: float, target: float, detail: str = "") -> None:
    """One row of the performance table: the figure, the ratio measured in this run, the
    target, and whether it is met."""
    verdict = "meets" if ratio <= target else "MISSES"
    print(f"ROW | {figure} | {ratio:.2f}x (target <= {target:g}x, {verdict}) | {detail}")


class Ratio(float):
    """A ratio of wall times, with the ratio of the CPU times of the same two runs (their
    child processes' user + system time: what a loaded machine changes less)."""

    cpu: float

    def __new__(cls, wall: float, cpu: float) -> Ratio:
        ratio = super().__new__(cls, wall)
        ratio.cpu = cpu
        return ratio


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def ratios(
    a: Callable[[], object], b: Callable[[], object], repeat: int, first: int = 0
) -> list[float]:
    """t(a)/t(b) for `repeat` pairs (each a `Ratio`: wall, and CPU of the processes `a` and
    `b` run), each pair run back to back (in turns, which goes first; `first` is the number of
    the first pair), so the load of a shared machine weighs on both sides of each ratio alike."""
    found: list[float] = []
    for i in range(first, first + repeat):
        times, cpus = {}, {}
        for name, fn in (("a", a), ("b", b)) if i % 2 == 0 else (("b", b), ("a", a)):
            t, c = time.perf_counter(), children_cpu()
            fn()
            times[name] = time.perf_counter() - t
            cpus[name] = children_cpu() - c
        found.append(Ratio(times["a"] / times["b"], cpus["a"] / max(cpus["b"], 1e-9)))
    return found


def version_ratios(
    a: Callable[[dict[str, str]], object], b: Callable[[dict[str, str]], object], repeat: int
) -> dict[str, list[float]]:
    """`ratios` of `a` and `b` for each of `VERSIONS` (called with its environment), the
    versions' pairs in turns: each round of pairs measures every version back to back."""
    found: dict[str, list[float]] = {label: [] for label, _ in VERSIONS}
    for i in range(repeat):
        for label, env in VERSIONS:
            found[label] += ratios(lambda env=env: a(env), lambda env=env: b(env), 1, first=i)
    return found


def labelled(label: str, text: str) -> str:
    """`text` with the version it measured, when the run compares versions."""
    return f"{text} [{label}]" if label else text


def spread(found: list[float]) -> str:
    """min / median / max of ratios (and of their CPU ratios), and the load average now."""
    load = "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    cpu = [r.cpu for r in found if isinstance(r, Ratio)]
    in_cpu = (
        f"; CPU min {min(cpu):.2f} / median {statistics.median(cpu):.2f} / max {max(cpu):.2f}"
        if cpu
        else ""
    )
    return (
        f"min {min(found):.2f} / median {statistics.median(found):.2f} / max {max(found):.2f}"
        f"{in_cpu} over {len(found)} pairs, load {load}"
    )


def big_file() -> Path:
    """The 20,000-comment discussion of AI answers (`corpus.generate` with answers), written
    once a run."""
    big = WORK / "big.md"
    if not big.exists():
        generate(big, 20_000, answers=True)
    return big


def bench_status() -> None:
    section(
        "status (text, --json) on a 20,000-comment file of AI answers (nested lists, code under "
        "list items, a ROUND marker every 3 comments) vs one markdown-it parse of the text"
    )
    big = big_file()
    size_mb = big.stat().st_size / 1e6
    parse = (
        "import sys, markdown_it; t = open(sys.argv[1], encoding='utf-8').read(); "
        "markdown_it.MarkdownIt('commonmark').parse(t)"
    )
    for label, env in VERSIONS:
        n = len(json.loads(cli("status", "--json", str(big), env=env).stdout)["comments"])
        shown = len(cli("status", str(big), env=env).stdout.encode())
        print(
            labelled(
                label, f"file: {size_mb:.1f} MB, {n} comments; `status` prints {shown / 1e6:.2f} MB"
            )
        )
    for args in (("status",), ("status", "--json")):
        by_version = version_ratios(
            lambda env, args=args: cli(*args, str(big), env=env),
            lambda env: subprocess.run([PY, "-c", parse, str(big)], check=True),
            PAIRS.get("status", 5),
        )
        for label, found in by_version.items():
            print(labelled(label, f"{' '.join(args)}: {spread(found)}"))
            row(
                labelled(
                    label,
                    f"`{' '.join(args)}` on a {size_mb:.0f} MB, {n:,}-comment file vs one "
                    "markdown-it parse",
                ),
                statistics.median(found),
                0.15,
                spread(found),
            )

    if len(VERSIONS) > 1:  # the versions side by side, without the parse's own noise
        (first, env_a), (last, env_b) = VERSIONS[0], VERSIONS[-1]
        for args in (("status",), ("status", "--json")):
            found = ratios(
                lambda args=args: cli(*args, str(big), env=env_b),
                lambda args=args: cli(*args, str(big), env=env_a),
                PAIRS.get("status", 9),
            )
            shown = " ".join(args)
            print(f"{shown} [{last}] / {shown} [{first}]: {spread(found)}")

    small = WORK / "small.md"
    generate(small, 10, signed=True)
    section("status --json on a small file vs `python -c 'import click, yaml, markdown_it'`")
    t_imports, t_small_status = compare(
        lambda: subprocess.run([PY, "-c", "import click, yaml, markdown_it"], check=True),
        lambda: cli("status", "--json", str(small)),
        21,
    )
    print(f"imports: {t_imports * 1000:.0f} ms   status --json: {t_small_status * 1000:.0f} ms")
    row(
        "`status` start-up (`status --json`, 10 comments) vs importing click + yaml + markdown_it",
        t_small_status / t_imports,
        1.1,
        f"{t_small_status * 1000:.0f} ms vs {t_imports * 1000:.0f} ms",
    )


def bench_comment() -> None:
    section("comment on the 20,000-comment file vs on a 10-comment file")
    big, small = big_file(), WORK / "small-comment.md"
    generate(small, 10, signed=True)
    files = {}
    for i, (label, _env) in enumerate(VERSIONS):  # each version appends to copies of its own
        files[label] = (WORK / f"big-comment-{i}.md", WORK / f"small-comment-{i}.md")
        shutil.copyfile(big, files[label][0])
        shutil.copyfile(small, files[label][1])
    n = 20_000

    def on(which: int) -> Callable[[dict[str, str]], object]:
        def post(env: dict[str, str]) -> object:
            label = next(lb for lb, e in VERSIONS if e is env)
            path = str(files[label][which])
            return cli("comment", path, "benchmark comment", "--author", "Robin", env=env)

        return post

    by_version = version_ratios(on(0), on(1), PAIRS.get("comment", 11))
    for label, found in by_version.items():
        print(labelled(label, f"comment: {spread(found)}"))
        row(
            labelled(label, f"`comment` on the {n:,}-comment file vs on a 10-comment file"),
            statistics.median(found),
            1.1,
            spread(found),
        )


# --------------------------------------------------------------------------- issue 3


def _providers(sleep: float) -> None:
    user = WORK / "userdir"
    user.mkdir(parents=True, exist_ok=True)
    script = WORK / "sleeper.py"
    script.write_text(
        "import sys, time, json\nsys.stdin.read()\ntime.sleep(float(sys.argv[1]))\n"
        "print(json.dumps({'comment': 'slept', 'vote': None}))\n"
    )
    cmd = f"{shlex.quote(PY)} {shlex.quote(str(script))} {sleep}"
    (user / "providers.yaml").write_text(
        f"providers:\n  - name: sleeper\n    command: {json.dumps(cmd)}\n", encoding="utf-8"
    )


def bench_turn() -> None:
    sleep = 1.0
    _providers(sleep)
    project = WORK / "turns"
    project.mkdir(exist_ok=True)
    aliases = ["architect", "security", "pragmatist", "perfectionist", "designer", "moderator"]
    section(f"turn wall time, providers that each sleep {sleep:.1f}s")
    for n in (3, 6):
        f = project / f"t{n}.md"
        generate(f, 10, seed=n)
        who = [f"@{a}" for a in aliases[:n]]
        t_par = timed(
            lambda f=f, who=who: cli("turn", str(f), *who, "--provider", "sleeper", cwd=project), 3
        )
        t_seq = timed(
            lambda f=f, who=who: cli(
                "turn", str(f), *who, "--provider", "sleeper", "--sequential", cwd=project
            ),
            1,
        )
        print(
            f"{n} participants: parallel {t_par:.2f}s = {t_par / sleep:.2f}x the sleep "
            f"(target <= {1.1 * sleep + 0.2:.2f}s); sequential {t_seq:.2f}s; "
            f"parallel/sequential = {t_par / t_seq:.2f}"
        )

    section("orchestration overhead per participant, mock provider (in process)")
    code = (
        "import time, sys\nfrom discussions import Discussion, Runner\n"
        "d = Discussion.load(sys.argv[1])\nr = Runner()\n"
        "al = ['architect','security','pragmatist','perfectionist','designer','moderator']\n"
        "t = time.perf_counter(); r.run_turn(d, al[:1], provider='mock'); t1 = time.perf_counter() - t\n"
        "t = time.perf_counter(); r.run_turn(d, al, provider='mock'); t6 = time.perf_counter() - t\n"
        "print(t1, t6)\n"
    )
    f = project / "mock.md"
    generate(f, 200)
    out = subprocess.run(
        [PY, "-c", code, str(f)], cwd=project, env=ENV, capture_output=True, text=True, check=True
    ).stdout.split()
    t1, t6 = float(out[0]), float(out[1])
    print(
        f"1 participant: {t1 * 1000:.1f} ms; 6 participants: {t6 * 1000:.1f} ms "
        f"({t6 / 6 * 1000:.1f} ms each) on a 200-comment file"
    )
    t_cli, t_status = compare(
        lambda: cli("turn", str(f), "@architect", "--provider", "mock", cwd=project),
        lambda: cli("status", str(f), cwd=project),
        7,
    )
    print(
        f"`turn @architect --provider mock` {t_cli * 1000:.0f} ms vs `status` "
        f"{t_status * 1000:.0f} ms: ratio {t_cli / t_status:.2f}"
    )

    section("many concurrent writers on one file: comments expected vs found")
    for run in range(3):
        f = project / f"conc{run}.md"
        generate(f, 5)
        before = len(json.loads(cli("status", "--json", str(f)).stdout)["comments"])
        procs = []
        turns, per_turn, comments = 4, 3, 12
        for _ in range(turns):
            procs.append(
                subprocess.Popen(
                    [
                        PY,
                        "-m",
                        "discussions",
                        "turn",
                        str(f),
                        "@architect",
                        "@security",
                        "@pragmatist",
                        "--provider",
                        "mock",
                    ],
                    cwd=project,
                    env=ENV,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        for i in range(comments):
            procs.append(
                subprocess.Popen(
                    [PY, "-m", "discussions", "comment", str(f), f"human {i}", "--author", f"H{i}"],
                    cwd=project,
                    env=ENV,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        codes = [p.wait() for p in procs]
        data = json.loads(cli("status", "--json", str(f)).stdout)
        expected = before + turns * per_turn + comments
        print(
            f"run {run + 1}: expected {expected}, found {len(data['comments'])}, "
            f"non-zero exits {sum(1 for c in codes if c)}, warnings {len(data['warnings'])}"
        )


# --------------------------------------------------------------------------- issue 4


def bench_watch() -> None:
    section("watch: save-to-provider-start latency")
    project = WORK / "watch"
    folder = project / "discussions"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = WORK / "provider-started"
    script = WORK / "stamper.py"
    script.write_text(
        "import sys, time, json\nfrom pathlib import Path\n"
        "t = repr(time.time()); p = Path(sys.argv[1]); tmp = p.with_suffix('.tmp')\n"
        "tmp.write_text(t); tmp.replace(p)\nsys.stdin.read()\n"
        "print(json.dumps({'comment': 'seen', 'vote': None}))\n"
    )
    user = WORK / "userdir"
    user.mkdir(parents=True, exist_ok=True)
    cmd = f"{shlex.quote(PY)} {shlex.quote(str(script))} {shlex.quote(str(stamp))}"
    (user / "providers.yaml").write_text(
        f"providers:\n  - name: stamper\n    command: {json.dumps(cmd)}\n", encoding="utf-8"
    )
    f = folder / "w.md"
    generate(f, 50)
    for debounce in (0.2, 1.0):
        proc = subprocess.Popen(
            [
                PY,
                "-m",
                "discussions",
                "watch",
                str(folder),
                "--debounce",
                str(debounce),
                "--provider",
                "stamper",
            ],
            cwd=project,
            env=ENV,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(2.0)
        latencies = []
        for i in range(5):
            stamp.unlink(missing_ok=True)
            saved = time.time()
            with f.open("a", encoding="utf-8") as fh:  # a person typing and saving
                fh.write(f"\n---\n\nName: Rob\n\n@architect question {i}?\n")
            deadline = time.time() + 30
            while not stamp.exists() and time.time() < deadline:
                time.sleep(0.01)
            if stamp.exists():
                latencies.append(float(stamp.read_text()) - saved)
            time.sleep(1.5)
        proc.terminate()
        proc.wait(timeout=10)
        med = statistics.median(latencies) if latencies else float("nan")
        print(
            f"debounce {debounce:.1f}s: median save-to-provider-start {med:.2f}s over "
            f"{len(latencies)} saves; above the debounce: {med - debounce:.2f}s"
        )


def bench_prompt() -> None:
    section("prompt size per turn (context.max_chars = 60000 default)")
    code = (
        "import sys\nfrom discussions import Discussion\nfrom discussions.engine.prompt.prompts import build_prompt\n"
        "d = Discussion.load(sys.argv[1])\np = d.workspace.participants.get('security')\n"
        "prompt, ctx = build_prompt(d, p)\n"
        "print(len(d.text), len(prompt), ctx.full_comments, ctx.digested_comments, ctx.omitted_comments)\n"
    )
    for n in (20, 200, 2000, 20000):
        f = WORK / f"prompt{n}.md"
        generate(f, n, seed=n)
        out = subprocess.run(
            [PY, "-c", code, str(f)], env=ENV, capture_output=True, text=True, check=True
        ).stdout.split()
        size, plen, full, dig, omit = (int(x) for x in out)
        print(
            f"{n:>6} comments, file {size:>9,} chars: prompt {plen:>7,} chars "
            f"({full} in full, {dig} digested, {omit} left out)"
        )


# --------------------------------------------------------------------------- issue 10


def bench_run() -> None:
    """A 10-round `run` against 10 x one parallel turn, three providers that sleep 1 s."""
    sleep = 1.0
    _providers(sleep)
    project = WORK / "runs"
    project.mkdir(exist_ok=True)
    (project / "discussions.yaml").write_text("providers:\n  detect: false\n", encoding="utf-8")
    (project / "templates").mkdir(exist_ok=True)
    (project / "templates" / "bench.yaml").write_text(
        "name: bench\nparticipants: [architect, security, pragmatist]\nphases:\n"
        "  - id: vote\n    title: Vote\n    voting_mode: true\n    auto_trigger: consensus\n",
        encoding="utf-8",
    )
    section(f"run: 10 rounds, 3 participants, providers that each sleep {sleep:.1f}s")
    who = ["@architect", "@security", "@pragmatist"]
    turn_file = project / "turn.md"
    generate(turn_file, 10, seed=3)
    t_turn = timed(
        lambda: cli("turn", str(turn_file), *who, "--provider", "sleeper", cwd=project), 3
    )
    cli("new", "Run bench", "--template", "bench", "--file", "run", cwd=project)
    run_file = project / "discussions" / "run.md"
    t = time.perf_counter()
    out = cli(
        "run",
        str(run_file),
        *who,
        "--rounds",
        "10",
        "--provider",
        "sleeper",
        "--json",
        cwd=project,
        check=False,
    )
    t_run = time.perf_counter() - t
    rounds = json.loads(out.stdout)["rounds"] if out.stdout.strip() else 0
    print(
        f"one parallel turn: {t_turn:.2f}s   run of {rounds} rounds: {t_run:.2f}s   "
        f"ratio run/({rounds} x turn) = {t_run / (max(rounds, 1) * t_turn):.2f}  (target <= 1.1)"
    )


# --------------------------------------------------------------------------- the round


FAKE_CLI = """#!/bin/sh
# A fake AI CLI: reads the prompt, thinks for $1 seconds, answers.
cat >/dev/null
sleep "$1"
printf '%s\\n' '{"comment": "I thought about it and I agree.", "vote": null}'
"""
FAKES = ("fake-a", "fake-b", "fake-c")


def fake_clis(folder: Path) -> Path:
    """Three fake AI CLIs (shell scripts that sleep for their first argument) in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in FAKES:
        script = folder / name
        script.write_text(FAKE_CLI, encoding="utf-8")
        script.chmod(0o755)
    return folder


def round_project(project: Path, bin_dir: Path, sleep: float) -> list[str]:
    """A project whose participants a, b, c each use their own fake CLI of `sleep` seconds;
    returns the @aliases."""
    user = WORK / "userdir"
    user.mkdir(parents=True, exist_ok=True)
    (user / "providers.yaml").write_text(
        "providers:\n"
        + "".join(f"  - name: {n}\n    command: {bin_dir / n} {sleep:g}\n" for n in FAKES),
        encoding="utf-8",
    )
    (project / "participants").mkdir(parents=True, exist_ok=True)
    for name in FAKES:
        alias = name[-1]
        (project / "participants" / f"{alias}.yaml").write_text(
            f"name: AI-{alias.upper()}\nalias: {alias}\nrole: Reviewer {alias}\n"
            f"personality: You review.\nprovider_hint: {name}\n",
            encoding="utf-8",
        )
    (project / "discussions.yaml").write_text("providers:\n  detect: false\n", encoding="utf-8")
    return [f"@{n[-1]}" for n in FAKES]


def time_round(project: Path, who: list[str], command: str, repeat: int) -> float:
    """Median wall time of `discussions turn` (or `run --rounds 1`) on a fresh discussion."""
    times = []
    for i in range(repeat):
        name = f"{command}-{i}"
        cli("new", f"Round {name}", "--file", name, "--participants", "a,b,c", cwd=project)
        f = project / "discussions" / f"{name}.md"
        extra = ["--rounds", "1"] if command == "run" else []
        t = time.perf_counter()
        out = cli(command, str(f), *who, *extra, cwd=project, check=False)
        times.append(time.perf_counter() - t)
        if out.returncode not in (0, 1) or "posted via" not in out.stdout + out.stderr:
            raise SystemExit(f"{command} failed: {out.stdout}{out.stderr}")
    return statistics.median(times)


def bench_round() -> None:
    """One round with 3 providers of 2 s, and a turn with 3 providers of 1 s, as a CLI."""
    bin_dir = fake_clis(WORK / "fakebin")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    section(f"one round, 3 fake CLIs of 2 s each, as a CLI (load {load:.2f})")
    project = WORK / "round2"
    who = round_project(project, bin_dir, 2.0)
    for command in ("turn", "run"):
        t = time_round(project, who, command, 3)
        label = "turn" if command == "turn" else "run --rounds 1"
        verdict = "meets" if t <= 2.15 else "MISSES"
        print(f"`discussions {label}`: {t:.2f}s  (target <= 2.15s)")
        print(
            f"ROW | one round, 3 providers of 2 s, as a CLI (`{label}`) | {t:.2f} s "
            f"(target <= 2.15 s, {verdict}) | load {load:.2f}"
        )
    section("turn, 3 fake CLIs of 1 s each, as a CLI")
    project = WORK / "round1"
    who = round_project(project, bin_dir, 1.0)
    t = time_round(project, who, "turn", 5)
    print(f"`discussions turn`: {t:.2f}s = {t / 1.0:.2f}x the sleep  (target <= 1.25x)")
    row("turn, 3 providers of 1 s, as a CLI, vs the sleep", t / 1.0, 1.25, f"{t:.2f} s")
    print(f"load after: {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "")


BENCHES = {
    "round": bench_round,
    "status": bench_status,
    "turn": bench_turn,
    "comment": bench_comment,
    "watch": bench_watch,
    "prompt": bench_prompt,
    "run": bench_run,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", help="comma-separated: " + ",".join(BENCHES))
    parser.add_argument(
        "--pythonpath",
        action="append",
        metavar="SRC",
        help="a source folder of the package to measure (put first on PYTHONPATH); give it "
        "twice or more to measure versions back to back in the rows that compare them "
        "(status, comment), e.g. a `git worktree` of main and this checkout's src",
    )
    parser.add_argument(
        "--pairs",
        type=int,
        help="pairs each row comparing versions measures (status: 5 and 9, comment: 11)",
    )
    args = parser.parse_args()
    if args.pairs:
        PAIRS.update(status=args.pairs, comment=args.pairs)
    if args.pythonpath:
        use_versions(args.pythonpath)
    names = args.only.split(",") if args.only else list(BENCHES)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, work dir {WORK}")
    for name in names:
        BENCHES[name]()


if __name__ == "__main__":
    main()
