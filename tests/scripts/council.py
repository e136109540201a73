"""A stand-in AI CLI for the council (motions): answers by a plan, recording every prompt.

argv[1] is the plan (JSON): {"mover": alias, "motion": text, "second": {alias: "yes"|"no"},
"ballot": {alias: "YES"|"NO"|"ABSTAIN"}, "fail": [alias, ...] (exit 1 when asked to ballot),
"notes": {alias: "a line added to its ballot comment"}}.
argv[2] is a memory folder: each prompt is saved as prompts/<n>-<alias>-<kind>.txt (kind:
turn, second or ballot), so a test can read exactly what each participant was shown.

A turn: the mover calls a vote (once), the others pass. A seconding request: the plan's
answer (default no). A ballot request: the plan's ballot (default ABSTAIN).
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

if "Answer only whether you second it" in prompt:
    kind = "second"
elif "Cast your ballot" in prompt:
    kind = "ballot"
else:
    kind = "turn"
n = len(list((memory / "prompts").iterdir()))
(memory / "prompts" / f"{n:03d}-{alias}-{kind}.txt").write_text(prompt, encoding="utf-8")

if kind == "second":
    print(json.dumps({"comment": "", "second": plan.get("second", {}).get(alias, "no")}))
elif kind == "ballot":
    if alias in plan.get("fail", []):
        sys.exit(1)
    choice = plan.get("ballot", {}).get(alias, "ABSTAIN")
    note = plan.get("notes", {}).get(alias)
    reasons = f"My reasons, as {alias}." + (f"\n{note}" if note else "")
    print(json.dumps({"comment": reasons, "ballot": choice}))
elif alias == plan.get("mover") and not (memory / "moved").exists():
    (memory / "moved").write_text("1")
    print(
        json.dumps(
            {"comment": "We have talked enough.", "action": "CALL_VOTE", "motion": plan["motion"]}
        )
    )
else:
    print(json.dumps({"action": "PASS"}))
