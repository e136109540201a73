"""A fake AI CLI for evidence: with argv[1] == "ask" and no evidence in its prompt, it asks
for argv[2] (in the JSON "evidence" field, or with argv[3] == "line" as an EVIDENCE: line);
with evidence in its prompt, it quotes the first TOKEN_... found inside an <evidence> element
(never elsewhere in the prompt); otherwise it says it saw none. Each prompt is appended to
the file named by $EVIDENCE_PROMPTS when set. With argv[1] == "greedy" it asks for three
things, then (with evidence in its prompt) for a fourth."""

import json
import os
import re
import sys

prompt = sys.stdin.read()
log = os.environ.get("EVIDENCE_PROMPTS")
if log:
    with open(log, "a", encoding="utf-8") as f:
        f.write(prompt + "\n=====\n")
inside = "".join(re.findall(r"<evidence [^>]*>\n(.*?)\n</evidence>", prompt, re.S))
token = re.search(r"TOKEN_[A-Z0-9_]+", inside)
if len(sys.argv) > 1 and sys.argv[1] == "greedy":
    first = ["read src/app.py:1", "read src/app.py:2", "list src"]
    answer = {"comment": "More.", "evidence": first if "<evidence " not in prompt else ["list ."]}
elif token:  # in words of its own: another's sentence copied whole would be an echo
    me = re.search(r"\(@([\w-]+)\)", prompt)
    said = f"I read the evidence: {token.group(0)}, says @{me.group(1) if me else 'me'}."
    answer = {"comment": said, "vote": None}
elif len(sys.argv) > 2 and sys.argv[1] == "ask":
    if len(sys.argv) > 3 and sys.argv[3] == "line":
        answer = {"comment": f"Let me look.\n\nEVIDENCE: {sys.argv[2]}", "vote": None}
    else:
        answer = {"comment": "Let me look at the code first.", "evidence": [sys.argv[2]]}
else:
    answer = {"comment": "I saw no evidence.", "vote": None}
sys.stdout.write(json.dumps(answer))
