"""A stand-in AI CLI for `discussions run`: answers by mode, remembering how often each
participant was asked (argv[2] is a folder for that memory).

Modes: agree2 (CHANGES/score 6 with a pending issue on the first call, READY/score 10 after),
never (always CHANGES, score 5, a pending issue), pass (NO_RESPONSE), reject (REJECT, score 2),
crash:ALIAS (that participant exits 1, the others score 10 and vote READY).
"""

import json
import re
import sys
from pathlib import Path

prompt = sys.stdin.read()
mode = sys.argv[1]
memory = Path(sys.argv[2])
memory.mkdir(parents=True, exist_ok=True)
m = re.search(r"\(@([\w-]+)\)", prompt)
alias = m.group(1) if m else "unknown"
count_file = memory / alias
calls = int(count_file.read_text()) if count_file.exists() else 0
count_file.write_text(str(calls + 1))

if mode == "pass":
    print('{"sentinel": "NO_RESPONSE"}')
elif mode == "reject":
    print(json.dumps({"comment": "This is the wrong approach.\n\nSCORE: 2", "vote": "REJECT"}))
elif mode == "never":
    print(
        json.dumps(
            {
                "comment": "Still not convinced.\n\nSCORE: 5\nPENDING: no rollback plan",
                "vote": "CHANGES",
            }
        )
    )
elif mode.startswith("crash:"):
    if alias == mode.split(":", 1)[1]:
        sys.exit(1)
    print(json.dumps({"comment": "Fine by me.\n\nSCORE: 10\nPENDING: none", "vote": "READY"}))
elif mode == "agree2":
    if calls == 0:
        print(
            json.dumps(
                {
                    "comment": "Needs a rollback plan.\n\nSCORE: 6\nPENDING: no rollback plan",
                    "vote": "CHANGES",
                }
            )
        )
    else:
        print(
            json.dumps(
                {
                    "comment": "The rollback plan answers it.\n\nSCORE: 10\nPENDING: none",
                    "vote": "READY",
                }
            )
        )
else:
    sys.exit(f"unknown mode {mode}")
