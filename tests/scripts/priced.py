"""A fake AI CLI answering in Claude Code's JSON shape at a fixed price.

argv: cost in dollars, tokens out (input tokens are fixed at 100), optional delay in seconds.
Reads the prompt on stdin; the answer is a comment without a vote.
"""

import json
import sys
import time

prompt = sys.stdin.read()
cost = float(sys.argv[1])
tokens_out = int(sys.argv[2])
if len(sys.argv) > 3:
    time.sleep(float(sys.argv[3]))
answer = json.dumps({"comment": "Priced answer.", "vote": None})
usage = {"input_tokens": 100, "output_tokens": tokens_out}
print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": answer,
                  "total_cost_usd": cost, "usage": usage}))
