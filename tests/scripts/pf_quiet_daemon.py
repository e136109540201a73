"""A provider that leaves a quiet daemon behind: one that lets go of every pipe.

    pf_quiet_daemon.py PIDFILE

The daemon points its standard streams at /dev/null, calls setsid() and forks again (its
parent is then init), writes its pid to PIDFILE (or, when PIDFILE is a folder, to a file
named after the provider's pid in it) and sleeps. The provider answers and exits:
nothing holds the pipes, so the call ends as cleanly as any other.
"""

import os
import sys
import time
from pathlib import Path

pidfile = Path(sys.argv[1])
if pidfile.is_dir():
    pidfile = pidfile / str(os.getpid())
sys.stdin.read()

if os.fork() == 0:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    pidfile.write_text(f"{os.getpid()}\n", encoding="utf-8")
    time.sleep(600)
    os._exit(0)

while not (pidfile.exists() and pidfile.read_text().strip()):
    time.sleep(0.01)
sys.stdout.write('{"comment": "answered; my daemon let go of the pipes"}')
sys.stdout.flush()
os._exit(0)
