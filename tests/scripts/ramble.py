"""A model that rambles forever: one line after another, never stopping on its own. Saves
its command-line arguments in the file argv[1]."""

import sys
import time
from pathlib import Path

Path(sys.argv[1]).write_text("\n".join(sys.argv[2:]), encoding="utf-8")
sys.stdin.read()
n = 0
while True:
    n += 1
    sys.stdout.write(f"Line {n} of an answer that goes on and on without a vote.\n")
    sys.stdout.flush()
    time.sleep(0.0005)
