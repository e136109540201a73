"""A fake AI CLI that streams: reads the prompt, prints each argv[2:] line after argv[1] s.

With a gate file in the environment (SLOW_PRINT_GATE), it waits for that file to exist before
the last line, so a test can look at the screen while the answer is still coming."""

import os
import sys
import time

sys.stdin.read()
delay = float(sys.argv[1])
lines = sys.argv[2:]
gate = os.environ.get("SLOW_PRINT_GATE")
for i, line in enumerate(lines):
    if gate and i == len(lines) - 1:
        deadline = time.monotonic() + 30
        while not os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.02)
    elif delay:
        time.sleep(delay)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
