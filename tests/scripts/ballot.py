"""A stand-in AI CLI that records every prompt it gets and votes by a plan.

argv[1]: a folder; each prompt is saved there as ALIAS-N.prompt (N: the participant's call).
argv[2]: the plan, ``alias=VOTE,VOTE;alias=VOTE``: the participant's vote on each call (the
last one repeats). Each answer carries a phrase no one else writes: ``secret-ALIAS-N``.
"""

import json
import re
import sys
from pathlib import Path

prompt = sys.stdin.read()
folder = Path(sys.argv[1])
folder.mkdir(parents=True, exist_ok=True)
plan = dict(part.split("=", 1) for part in sys.argv[2].split(";"))
m = re.search(r"\(@([\w-]+)\)", prompt)
alias = m.group(1) if m else "unknown"
calls = len(list(folder.glob(f"{alias}-*.prompt")))
(folder / f"{alias}-{calls + 1}.prompt").write_text(prompt, encoding="utf-8")
votes = plan.get(alias, "READY").split(",")
vote = votes[min(calls, len(votes) - 1)]
print(json.dumps({"comment": f"My ballot: secret-{alias}-{calls + 1}.", "vote": vote}))
