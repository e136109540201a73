"""Starts a child that sleeps, writes both pids to argv[1], then hangs itself."""

import subprocess
import sys
import time
from pathlib import Path

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
Path(sys.argv[1]).write_text(f"{child.pid}\n", encoding="utf-8")
sys.stdout.write("partial answer that must never be used")
sys.stdout.flush()
time.sleep(600)
