"""Mimics `codex exec --json`: JSON-lines events with agent_message items."""

import json
import sys

sys.stdin.read()
events = [
    {"type": "thread.started", "thread_id": "t1"},
    {"type": "turn.started"},
    {"type": "item.completed", "item": {"id": "i0", "type": "reasoning", "text": "thinking..."}},
    {
        "type": "item.completed",
        "item": {
            "id": "i1",
            "type": "agent_message",
            "text": '{"comment": "From codex.", "vote": "READY"}',
        },
    },
    {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}},
]
for e in events:
    print(json.dumps(e))
