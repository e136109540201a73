"""A fake AI CLI answering each participant from a list, one answer per call, the last one
repeated: argv[1] is JSON {alias: [answer, ...]} ("*" for any other alias), argv[2] a folder
where it counts each participant's calls."""

import json
import re
import sys
from pathlib import Path

prompt = sys.stdin.read()
plan = json.loads(sys.argv[1])
memory = Path(sys.argv[2])
memory.mkdir(parents=True, exist_ok=True)
m = re.search(r"\(@([\w-]+)\)", prompt)
alias = m.group(1) if m else "unknown"
count = memory / alias
n = int(count.read_text()) if count.exists() else 0
count.write_text(str(n + 1))
answers = plan.get(alias) or plan["*"]
sys.stdout.write(answers[min(n, len(answers) - 1)])
