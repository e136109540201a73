"""A fake AI CLI that takes its prompt as the last argument: reports what it got, as JSON.

It says how long its last argument is, how much came on stdin, and whether its own process
list entry (``/proc/self/cmdline``) holds the prompt, as any local user would see it.
"""

import json
import sys
from pathlib import Path

stdin = sys.stdin.read()
last = sys.argv[-1] if len(sys.argv) > 1 else ""
try:
    cmdline = Path("/proc/self/cmdline").read_bytes().split(b"\0")
    visible = last.encode() in cmdline
except OSError:
    visible = None
report = {
    "args": sys.argv[1:-1],
    "last_len": len(last),
    "last": last[:80],
    "stdin_len": len(stdin),
    "in_cmdline": visible,
}
print(json.dumps({"comment": json.dumps(report), "vote": None}))
