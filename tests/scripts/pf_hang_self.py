"""Writes its own pid to argv[1], then hangs (reading nothing, printing nothing)."""

import os
import sys
import time
from pathlib import Path

Path(sys.argv[1]).write_text(f"{os.getpid()}\n", encoding="utf-8")
time.sleep(600)
