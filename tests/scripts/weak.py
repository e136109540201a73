"""A weak model: answers argv[1] to a prompt, argv[2] to the one-line follow-up; saves every
prompt it gets, numbered, in the folder argv[3]."""

import sys
from pathlib import Path

prompt = sys.stdin.read()
folder = Path(sys.argv[3])
folder.mkdir(parents=True, exist_ok=True)
n = len(list(folder.glob("*.txt"))) + 1
(folder / f"{n:02d}.txt").write_text(prompt, encoding="utf-8")
sys.stdout.write(sys.argv[2] if "Answer with one line" in prompt else sys.argv[1])
