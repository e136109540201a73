"""One round of three AI CLIs, `discussions` next to a peer tool, on the same fake CLIs.

    python benchmarks/peers.py                          # finds ai-roundtable on PATH
    python benchmarks/peers.py --peer-python /tmp/peer/bin/python --repeat 5

The fake CLIs (fake-a, fake-b, fake-c) are shell scripts on PATH that read their prompt,
sleep 2 s and answer. `discussions` runs them as three providers (`turn` and
`run --rounds 1`); ai-roundtable (a terminal app, `pip install ai-roundtable` in a virtualenv
of its own: it is never a dependency of ours) runs them as three generic agents in one
"quick round" (`core.quick.QuickSession.ask`, what its app does when a question is typed),
driven without its screen from a script run by its own Python, after importing what its
command imports. The peer is skipped, with a message, when it is not installed. Medians of
runs taken alternately, so machine noise hits both alike; nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PY = sys.executable
SLEEP = 2.0
FAKES = ("fake-a", "fake-b", "fake-c")
FAKE_CLI = """#!/bin/sh
# A fake AI CLI: reads a prompt on standard input (if any), thinks, answers.
cat >/dev/null
sleep {sleep}
printf '%s\\n' '{{"comment": "I thought about it and I agree.", "vote": null}}'
"""

PEER_ROUND = """
import asyncio, sys, time
import ai_roundtable.main  # what the `ai-roundtable` command loads (textual, the app)
from ai_roundtable.adapters import AgentPool
from ai_roundtable.config import available_agents, default_paths, ensure_user_files, load_config
from ai_roundtable.core.prompts import PromptLoader
from ai_roundtable.core.quick import QuickSession
from ai_roundtable.core.store import SessionStore

paths = default_paths()
ensure_user_files(paths)
config = load_config(paths)
agents = available_agents(config)
pool = AgentPool(config, log_path=paths.cli_log)
answers = []

def emit(event):
    if type(event).__name__ == "AgentResponded":
        answers.append(event.content)

session = QuickSession("bench", agents, pool, PromptLoader(paths.prompts_dir),
                       SessionStore(config, paths.sessions_dir), config, emit)

async def one_round():
    await session.ask("Should we adopt the proposal?")
    session.close()  # its background title request is not part of the round

started = time.perf_counter()
asyncio.run(one_round())
inside = time.perf_counter() - started
pool.kill_all()
print(inside, len(agents), sum("agree" in a for a in answers))
"""


def fake_clis(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in FAKES:
        script = folder / name
        script.write_text(FAKE_CLI.format(sleep=f"{SLEEP:g}"), encoding="utf-8")
        script.chmod(0o755)


def our_project(work: Path, env: dict[str, str]) -> Path:
    """A project with participants a, b, c, each on its own fake CLI."""
    project = work / "ours"
    (project / "participants").mkdir(parents=True)
    user = Path(env["DISCUSSIONS_HOME"])
    user.mkdir(parents=True)
    (user / "providers.yaml").write_text(
        "providers:\n" + "".join(f"  - name: {n}\n    command: {n}\n" for n in FAKES),
        encoding="utf-8",
    )
    for name in FAKES:
        alias = name[-1]
        (project / "participants" / f"{alias}.yaml").write_text(
            f"name: AI-{alias.upper()}\nalias: {alias}\nrole: Reviewer {alias}\n"
            f"personality: You review.\nprovider_hint: {name}\n",
            encoding="utf-8",
        )
    (project / "discussions.yaml").write_text("providers:\n  detect: false\n", encoding="utf-8")
    return project


def peer_home(work: Path, env: dict[str, str]) -> dict[str, str]:
    """ai-roundtable's configuration (its own agents off, the fakes on), all under `work`."""
    home = work / "peer-home"
    config = home / ".config" / "ai-roundtable"
    config.mkdir(parents=True)
    ais = {name: {"enabled": False} for name in ("claude", "agy", "codex", "kimi")}
    ais.update({n: {"cmd": n, "enabled": True} for n in FAKES})
    (config / "config.yml").write_text(json.dumps({"ais": ais}), encoding="utf-8")  # JSON is YAML
    return dict(
        env,
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
    )


def find_peer(given: str | None) -> str | None:
    """The Python that has ai-roundtable installed: `given`, else the interpreter of the
    `ai-roundtable` command on PATH."""
    if given:
        return given
    exe = shutil.which("ai-roundtable")
    if exe is None:
        return None
    first = Path(exe).read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
    return first[2:].strip() if first.startswith("#!") else None


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    t = time.perf_counter()
    out = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - t
    if out.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv[:4])} failed ({out.returncode}): {out.stderr[-2000:]}")
    return elapsed, out.stdout + out.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--peer-python", help="the Python that has ai-roundtable installed")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="discussions-peers-"))
    fake_clis(work / "bin")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PATH=f"{work / 'bin'}{os.pathsep}{env.get('PATH', '')}", NO_COLOR="1")
    env["DISCUSSIONS_HOME"] = str(work / "userdir")
    project = our_project(work, env)
    peer = find_peer(args.peer_python)
    if (
        peer is not None
        and subprocess.run(
            [peer, "-c", "import ai_roundtable"], capture_output=True, check=False
        ).returncode
    ):
        peer = None
    peer_env = peer_home(work, env)
    load = os.getloadavg()[0]
    print(f"one round, 3 fake CLIs of {SLEEP:g} s each; {args.repeat} runs each, load {load:.2f}")
    times: dict[str, list[float]] = {"discussions turn": [], "discussions run --rounds 1": []}
    if peer is None:
        print(
            "ai-roundtable: not installed, skipped (pip install ai-roundtable into a virtualenv "
            "of its own, then pass --peer-python or put its `ai-roundtable` on PATH)"
        )
    else:
        times["ai-roundtable quick round"] = []
        times["  its round alone (no start-up or exit)"] = []
    for i in range(args.repeat):
        for command in ("turn", "run"):
            name = f"{command}-{i}"
            subprocess.run(
                [
                    PY,
                    "-m",
                    "discussions",
                    "new",
                    f"Peers {name}",
                    "--file",
                    name,
                    "--participants",
                    "a,b,c",
                ],
                cwd=project,
                env=env,
                capture_output=True,
                check=True,
            )
            extra = ["--rounds", "1"] if command == "run" else []
            argv = [PY, "-m", "discussions", command, f"discussions/{name}.md", "@a", "@b", "@c"]
            elapsed, out = timed([*argv, *extra], project, env)
            if out.count("posted via") != 3:
                raise SystemExit(f"discussions {command}: not 3 answers:\n{out}")
            times[f"discussions {'turn' if command == 'turn' else 'run --rounds 1'}"].append(
                elapsed
            )
        if peer is not None:
            elapsed, out = timed([peer, "-c", PEER_ROUND], work, peer_env)
            if out.split()[-2:] != ["3", "3"]:
                raise SystemExit(f"ai-roundtable: not 3 answers from 3 agents:\n{out}")
            times["ai-roundtable quick round"].append(elapsed)
            times["  its round alone (no start-up or exit)"].append(float(out.split()[-3]))
    for label, xs in times.items():
        print(f"{label:40s} median {statistics.median(xs):.2f}s  min {min(xs):.2f}s")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
