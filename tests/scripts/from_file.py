"""A fake AI CLI that prints the contents of a file (argv[1]) and saves the prompt (argv[2])."""

import sys
from pathlib import Path

prompt = sys.stdin.read()
if len(sys.argv) > 2:
    Path(sys.argv[2]).write_text(prompt, encoding="utf-8")
sys.stdout.write(Path(sys.argv[1]).read_text(encoding="utf-8"))
