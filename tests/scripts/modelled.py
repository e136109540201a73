"""A fake AI CLI answering in Claude Code's ``--output-format json`` shape, naming the model.

argv: the answer's text (a JSON answer: comment, vote, ...), then the model names of
``modelUsage`` (none: no ``modelUsage``; several: a run that called several models).
"""

import json
import sys

sys.stdin.read()
answer, models = sys.argv[1], sys.argv[2:]
per_model = {
    m: {
        "inputTokens": 10,
        "outputTokens": 5,
        "cacheReadInputTokens": 0,
        "cacheCreationInputTokens": 0,
        "costUSD": 0.001,
    }
    for m in models
}
event = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "result": answer,
    "total_cost_usd": 0.001 * len(models),
    "usage": {"input_tokens": 10, "output_tokens": 5},
}
if per_model:
    event["modelUsage"] = per_model
print(json.dumps(event))
