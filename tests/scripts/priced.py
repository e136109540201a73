"""A fake AI CLI answering in Claude Code's JSON shape at a fixed price.

argv: cost in dollars, tokens out (input tokens are fixed at 100), optional delay in seconds,
then optionally ``--`` and a command: its output (given the same stdin) is the answer's text;
without one the answer is a comment without a vote.
"""

import json
import subprocess
import sys
import time

args = sys.argv[1:]
command = args[args.index("--") + 1 :] if "--" in args else []
args = args[: args.index("--")] if "--" in args else args
prompt = sys.stdin.read()
cost, tokens_out = float(args[0]), int(args[1])
if len(args) > 2:
    time.sleep(float(args[2]))
answer = json.dumps({"comment": "Priced answer.", "vote": None})
if command:
    answer = subprocess.run(command, input=prompt, capture_output=True, text=True).stdout
usage = {"input_tokens": 100, "output_tokens": tokens_out}
print(
    json.dumps(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "result": answer,
            "total_cost_usd": cost,
            "usage": usage,
        }
    )
)
