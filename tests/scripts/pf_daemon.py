"""A provider that starts a daemon which escapes into a session of its own.

    pf_daemon.py PIDFILE MODE [double]

The daemon calls setsid() (with `double`, it also forks again so that its parent is init),
keeps stdout and stderr open, writes its pid to PIDFILE and sleeps. Then the provider itself
either hangs (MODE=hang) or prints an answer and exits (MODE=answer).
"""

import os
import sys
import time
from pathlib import Path

pidfile = Path(sys.argv[1])
mode = sys.argv[2]
double = len(sys.argv) > 3 and sys.argv[3] == "double"
sys.stdin.read()

if os.fork() == 0:
    os.setsid()
    if double and os.fork() != 0:
        os._exit(0)
    pidfile.write_text(f"{os.getpid()}\n", encoding="utf-8")
    time.sleep(600)
    os._exit(0)

while not (pidfile.exists() and pidfile.read_text().strip()):
    time.sleep(0.01)
if mode == "answer":
    sys.stdout.write('{"comment": "answered while a daemon holds the pipes"}')
    sys.stdout.flush()
    os._exit(0)
time.sleep(600)
