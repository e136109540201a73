"""A stand-in AI CLI for the conformance review: votes by a plan, recording every prompt.

argv[1] is the plan (JSON): {alias: how}, how one of
  "ready"    READY whatever the change;
  "changes"  CHANGES with a CONCERN: line, every time;
  "fixed"    READY once the diff in its prompt bounds the retries (a line ``+RETRIES = 3``),
             else CHANGES with a CONCERN: line;
  "fail"     exits 1 (the provider fails);
  "silent"   a comment without a vote.
argv[2] is a memory folder: each prompt is saved as prompts/<n>-<alias>.txt.
"""

import json
import re
import sys
from pathlib import Path

prompt = sys.stdin.read()
plan = json.loads(sys.argv[1])
memory = Path(sys.argv[2])
(memory / "prompts").mkdir(parents=True, exist_ok=True)
m = re.search(r"\(@([\w-]+)\)", prompt)
alias = m.group(1) if m else "unknown"
n = len(list((memory / "prompts").iterdir()))
(memory / "prompts" / f"{n:03d}-{alias}.txt").write_text(prompt, encoding="utf-8")

how = plan.get(alias, "ready")
if how == "fixed":
    how = "ready" if "\n+RETRIES = 3" in prompt else "changes"
if how == "fail":
    sys.stderr.write("quota exceeded\n")
    sys.exit(1)
if how == "silent":
    print(json.dumps({"comment": "Looks like a change.", "vote": None}))
elif how == "changes":
    concern = f"retries are not bounded (asked by {alias})"
    print(json.dumps({"comment": f"Not yet.\nCONCERN: {concern}", "vote": "CHANGES"}))
else:
    print(json.dumps({"comment": "It implements the decision.", "vote": "READY"}))
