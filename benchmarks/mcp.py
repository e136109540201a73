"""Benchmarks for `discussions mcp`: figures printed, nothing asserted.

    PYTHONPATH=src python benchmarks/mcp.py [--repeat N]

* start-up: spawning ``python -m discussions mcp`` until its answer to ``initialize`` arrives
  (the SDK's own stdio client; target: under 0.6 s), and on until its first ``tools/list``
  is answered (the SDK loaded), beside bare ``python -c pass``, ``discussions --version`` and
  ``python -c "import mcp.server.mcpserver"`` measured back to back.
* ``start_turn``: the time until the ticket comes back, mock provider (target: under 100 ms),
  and until ``turn_result`` reports the turn done.

Medians of repeats, in one run on one machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# This file is named mcp.py: its folder must not shadow the `mcp` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import anyio  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

PY = sys.executable
WORK = Path(tempfile.mkdtemp(prefix="discussions-bench-mcp-"))
SRC = Path(__file__).resolve().parent.parent / "src"
ENV = dict(os.environ, DISCUSSIONS_HOME=str(WORK / "userdir"), NO_COLOR="1")
# This checkout's package, whatever the folder the server starts in.
ENV["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
TARGET = 0.6
"""Seconds from spawning ``discussions mcp`` to its answer to ``initialize``."""
PARAMS = StdioServerParameters(command=PY, args=["-m", "discussions", "mcp"], env=ENV, cwd=WORK)


def wall(*args: str) -> float:
    t = time.perf_counter()
    subprocess.run([PY, *args], cwd=WORK, env=ENV, capture_output=True, check=True)
    return time.perf_counter() - t


async def to_initialize() -> tuple[float, float]:
    """Seconds from the spawn to the answer to ``initialize``, and to the first tool list."""
    with open(os.devnull, "w") as errlog:
        t = time.perf_counter()
        async with (
            stdio_client(PARAMS, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            initialized = time.perf_counter() - t
            await session.list_tools()
            return initialized, time.perf_counter() - t


async def turns(repeat: int) -> tuple[list[float], list[float]]:
    """Times of `start_turn` answers and of whole turns (start to `done`), mock provider."""
    started: list[float] = []
    whole: list[float] = []
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(PARAMS, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            created = await session.call_tool(
                "new_discussion", {"title": "Bench", "participants": ["architect"]}
            )
            file = _json(created)["file"]
            for _ in range(repeat):
                t = time.perf_counter()
                got = await session.call_tool("start_turn", {"file": file, "provider": "mock"})
                started.append(time.perf_counter() - t)
                ticket = _json(got)["ticket"]
                state = "running"
                while state == "running":
                    state = _json(
                        await session.call_tool("turn_result", {"ticket": ticket, "wait": 10})
                    )["state"]
                whole.append(time.perf_counter() - t)
                assert state == "done", state
    return started, whole


def _json(result: Any) -> Any:
    import json

    if result.is_error:
        raise RuntimeError(result.content[0].text)
    return json.loads(result.content[0].text)


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    n = parser.parse_args().repeat
    wall("-m", "discussions", "--version")  # warm the bytecode caches
    python = [wall("-c", "pass") for _ in range(n)]
    version = [wall("-m", "discussions", "--version") for _ in range(n)]
    sdk = [wall("-c", "import mcp.server.mcpserver") for _ in range(n)]
    both = [anyio.run(to_initialize) for _ in range(n)]
    init, listed = [b[0] for b in both], [b[1] for b in both]
    print(f"python -c pass:                         {median_ms(python)}")
    print(f"discussions --version:                  {median_ms(version)}")
    print(f"python -c 'import mcp.server.mcpserver': {median_ms(sdk)}")
    ratio = statistics.median(init) / TARGET
    print(
        f"discussions mcp, spawn to initialize:   {median_ms(init)}  (target < "
        f"{TARGET * 1000:.0f} ms: {'met' if ratio < 1 else 'NOT met'}, {ratio:.2f}x; "
        f"max of {n}: {max(init) * 1000:.0f} ms)"
    )
    print(
        f"ROW | `discussions mcp` spawn to `initialize` | {median_ms(init)} (target < "
        f"{TARGET * 1000:.0f} ms, {'meets' if ratio < 1 else 'MISSES'}) | median of {n}, load "
        f"{os.getloadavg()[0]:.2f}"
    )
    print(f"  spawn to the first tools/list answer: {median_ms(listed)}  (the SDK loaded)")
    started, whole = anyio.run(turns, n)
    print(f"start_turn answered (mock):             {median_ms(started)}  (target < 100 ms)")
    print(f"  max of {n}:                            {max(started) * 1000:.0f} ms")
    print(f"start_turn to turn_result done (mock):  {median_ms(whole)}")


if __name__ == "__main__":
    main()
