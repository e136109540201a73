"""The speed table in one run: every row, each with its target, from the scripts that measure it.

    python benchmarks/speed.py

Runs, one after another, `run.py --only round,status` (one round of 3 providers of 2 s, a turn
of 3 providers of 1 s, `status` start-up and `status --json` on 20,000 comments), `merge.py`
(the merge driver as git runs it), `web.py` (first render of a 2,000-comment discussion; needs
Chromium and ChromeDriver) and `mcp.py` (`discussions mcp` spawn to `initialize`), shows their
output, then prints their ``ROW |`` lines together with the load average before and after.
Each figure is a ratio or a time measured against its own baseline in the same run; nothing
here asserts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = (
    ("run.py", "--only", "round,status"),
    ("merge.py",),
    ("web.py", "--appends", "3", "--turns", "2"),
    ("mcp.py",),
)


def load() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def main() -> int:
    before = load()
    rows: list[str] = []
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode
    for script, *args in SCRIPTS:
        print(f"\n#### {script} {' '.join(args)}", flush=True)
        done = subprocess.run(
            [sys.executable, str(HERE / script), *args],
            cwd=HERE.parent,
            env=env,
            capture_output=True,
            text=True,
        )
        sys.stdout.write(done.stdout)
        sys.stderr.write(done.stderr[-2000:])
        rows += [line for line in done.stdout.splitlines() if line.startswith("ROW |")]
        if done.returncode != 0:
            rows.append(f"ROW | {script} | failed with exit status {done.returncode} | see above")
    print(f"\n#### the table (load average {before} before, {load()} after; {os.cpu_count()} CPUs)")
    for line in rows:
        print(line)
    return 1 if any("failed with exit status" in r for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
