"""A fake AI CLI for latency measurements: reads the prompt, prints one line holding the time
it is written (``STAMP <milliseconds since the epoch>``), flushes, then waits before the rest.

    stamp_print.py [HOLD]

It waits HOLD seconds (default 0.3), or, with STAMP_PRINT_GATE set, until that file exists
(30 s at most), then prints ``VOTE: READY`` and exits."""

import os
import sys
import time

sys.stdin.read()
sys.stdout.write(f"STAMP {time.time() * 1000:.3f}\n")
sys.stdout.flush()
gate = os.environ.get("STAMP_PRINT_GATE")
if gate:
    deadline = time.monotonic() + 30
    while not os.path.exists(gate) and time.monotonic() < deadline:
        time.sleep(0.02)
else:
    time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 0.3)
sys.stdout.write("VOTE: READY\n")
sys.stdout.flush()
