"""A weak model: answers argv[1] to a prompt, argv[2] to the one-line follow-up; saves every
prompt it gets, numbered (each call its own number, however many run at once), in the folder
argv[3]."""

import sys
from pathlib import Path

prompt = sys.stdin.read()
folder = Path(sys.argv[3])
folder.mkdir(parents=True, exist_ok=True)
n = len(list(folder.glob("*.txt"))) + 1
while True:  # calls of one turn run at once: each takes the next free number, exclusively
    try:
        with (folder / f"{n:02d}.txt").open("x", encoding="utf-8") as f:
            f.write(prompt)
        break
    except FileExistsError:
        n += 1
sys.stdout.write(sys.argv[2] if "Answer with one line" in prompt else sys.argv[1])
