"""A fake write-mode CLI for the conformance review: reads the hand-off on stdin and edits
app.py in its working directory. A first apply bounds the retries with a literal; a revision
(the hand-off carries the review's blockers) names the bound: ``RETRIES = 3``. Each prompt is
appended to argv[1] when given."""

import sys
from pathlib import Path

prompt = sys.stdin.read()
if len(sys.argv) > 1:
    with open(sys.argv[1], "a", encoding="utf-8") as log:
        log.write(prompt + "\n=====\n")
app = Path.cwd() / "app.py"
if "## Blockers from the review of your change" in prompt:
    app.write_text("RETRIES = 3\n\n\ndef fetch():\n    for _ in range(RETRIES):\n        pass\n")
    print("named the bound", flush=True)
else:
    app.write_text("def fetch():\n    for _ in range(100):\n        pass\n")
    print("bounded the retries", flush=True)
