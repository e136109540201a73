"""A stand-in model for `discussions trial`, right as often as it is told.

argv: accuracy (0-1), seed. It reads the prompt on stdin and finds the question
"What is A + B?" in it. Its answer is A + B when a draw from a generator seeded with the seed
and the question falls below the accuracy, else A + B + 1: one model answers the same
question the same way every time (copies of it are perfectly correlated), and models with
different seeds draw independently.

Asked as a council seat (the prompt shows a discussion), it writes its answer as a decision
and votes READY; asked alone, it ends with an ``ANSWER:`` line. Without a question in the
prompt it says so, with no answer.
"""

import json
import random
import re
import sys

prompt = sys.stdin.read()
accuracy, seed = float(sys.argv[1]), sys.argv[2]
found = re.search(r"What is (-?\d+) \+ (-?\d+)\?", prompt)
if found is None:
    print("I see no question here.")
    sys.exit(0)
a, b = int(found.group(1)), int(found.group(2))
right = random.Random(f"{seed}:{a}:{b}").random() < accuracy
answer = a + b if right else a + b + 1
if "Current phase:" in prompt:
    print(
        json.dumps({"comment": f"I worked it out.\n\nDECISION: ANSWER: {answer}", "vote": "READY"})
    )
else:
    print(f"Adding {a} and {b}.\nANSWER: {answer}")
