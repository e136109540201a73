"""A stand-in AI CLI for diagnostic discussions: answers by mode and phase, and records every
prompt it receives (argv[2] is a folder: ``<alias>-<n>.txt`` holds the n-th prompt).

Each answer carries a token ``ANS-<tag>-<phase>-<n>`` (tag: a digest of the alias, so the token
names nobody) and names the other participants (by name and @alias), so tests can tell whether
a prompt shows other participants' answers or names.

Modes (in the diagnosis phases; triage answers are plain comments):
  match      architect and security give "Session token expired" (confidence 9), pragmatist
             "db-pool-exhausted" (confidence 6);
  similar    architect "session-token-expired", security "session token expiry" (9 each);
  split      each a different key, confidence 9;
  one        architect "session-token-expired" (9), the others the same key with confidence 5;
  garbage:A  participant A answers without a parseable diagnosis; the others as in ``match``.
"""

import hashlib
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
p = re.search(r"Current phase: .*\(([\w-]+)\)", prompt)
phase = p.group(1) if p else "unknown"
calls = len(list(memory.glob(f"{alias}-*.txt")))
(memory / f"{alias}-{calls + 1}.txt").write_text(prompt, encoding="utf-8")

tag = hashlib.sha1(alias.encode()).hexdigest()[:6]
token = f"ANS-{tag}-{phase}-{calls + 1}"
others = [a for a in ("architect", "security", "pragmatist") if a != alias]
names = " and ".join(f"AI-{a.capitalize()} (@{a})" for a in others)
comment = f"{token}: my view, having heard {names}."

KEYS = {
    "match": {
        "architect": ("Session token expired", 9),
        "security": ("session-token-expired", 9),
        "pragmatist": ("db-pool-exhausted", 6),
    },
    "similar": {
        "architect": ("session-token-expired", 9),
        "security": ("session token expiry", 9),
        "pragmatist": ("db-pool-exhausted", 9),
    },
    "split": {
        "architect": ("session-token-expired", 9),
        "security": ("csrf-check-fails", 9),
        "pragmatist": ("db-pool-exhausted", 9),
    },
    "one": {
        "architect": ("session-token-expired", 9),
        "security": ("session-token-expired", 5),
        "pragmatist": ("session-token-expired", 5),
    },
}

answer: dict[str, object] = {"comment": comment, "vote": None}
if phase in ("diagnosis", "convergence"):
    if mode.startswith("garbage:"):
        if alias == mode.split(":", 1)[1]:
            answer["comment"] = comment + "\n\nROOT-CAUSE: it is *probably* the cache!!"
        else:
            answer["root_cause_key"], answer["confidence"] = KEYS["match"][alias]
    else:
        answer["root_cause_key"], answer["confidence"] = KEYS[mode][alias]
print(json.dumps(answer))
