"""A stand-in AI CLI for the documentation loop: answers by a plan, recording every prompt.

argv[1] is the plan (JSON): {"leader": alias, "voters": "once" | "always" | "ready" | "restate",
"kill": "revise" (SIGKILL the calling process when asked for a revision, the first time),
"race": FILE (append a draft 1 to FILE while asked for the first draft)}.
argv[2] is a memory folder: each prompt is saved as prompts/<n>-<alias>-<kind>.txt (kind:
draft, revise, vote, summary or turn).

The leader's draft lists the blockers its prompt gave it. A voter asked to vote answers
CHANGES with a CONCERN: the first time when "once" (READY after), every time when "always",
never when "ready"; "restate": REJECT with the same reason and CONCERN: each time, in markdown.
A turn: READY.
"""

import json
import os
import re
import signal
import sys
from pathlib import Path

prompt = sys.stdin.read()
plan = json.loads(sys.argv[1])
memory = Path(sys.argv[2])
(memory / "prompts").mkdir(parents=True, exist_ok=True)
m = re.search(r"\(@([\w-]+)\)", prompt)
alias = m.group(1) if m else "unknown"

if "You are the leader of its documentation" in prompt:
    kind = "draft"
elif "did not approve draft" in prompt:
    kind = "revise"
elif "Vote whether it is ready" in prompt:
    kind = "vote"
elif "The documentation loop has ended" in prompt:
    kind = "summary"
else:
    kind = "turn"
n = len(list((memory / "prompts").iterdir()))
(memory / "prompts" / f"{n:03d}-{alias}-{kind}.txt").write_text(prompt, encoding="utf-8")

if kind == "revise" and plan.get("kill") == "revise" and not (memory / "killed").exists():
    (memory / "killed").write_text("1")
    os.kill(os.getppid(), signal.SIGKILL)
    sys.exit(1)
if kind == "draft" and plan.get("race") and not (memory / "raced").exists():
    # Another writer appends draft 1 while this one is being written.
    from discussions.model import storage
    from discussions.syntax.drafts import render_draft

    (memory / "raced").write_text("1")
    block = render_draft(1, "AI-Other", "# Written meanwhile\n", "2026-11-23T10:00:00Z")
    storage.append(Path(plan["race"]), [block])
if kind in ("draft", "revise"):
    version = len(list((memory / "prompts").glob(f"*-{alias}-draft.txt")))
    version += len(list((memory / "prompts").glob(f"*-{alias}-revise.txt")))
    part = (
        prompt.split("Its blockers:", 1)[1].split("Write version", 1)[0] if kind == "revise" else ""
    )
    fixed = [line[2:] for line in part.splitlines() if line.startswith("- ")]
    lines = [
        "# The decision",
        "",
        f"Version {version} by {alias}.",
        "",
        "```python",
        "x = 1",
        "```",
    ]
    lines += ["", "## Resolved", ""] + [f"* resolved: {b}" for b in fixed] if fixed else []
    print("\n".join(lines))
elif kind == "vote":
    seen = memory / f"voted-{alias}"
    mode = plan.get("voters", "once")
    if mode == "restate":  # the same objection, word for word, every time, in markdown
        print(
            f"The draft has no rollback plan, so {alias} cannot approve it.\n\n"
            f"CONCERN: the draft lacks a rollback plan (asked by {alias})\n\nVOTE: REJECT"
        )
    elif mode == "always" or (mode == "once" and not seen.exists()):
        seen.write_text("1")
        concern = f"the draft lacks a rollback plan (asked by {alias})"
        print(json.dumps({"comment": f"Not yet.\nCONCERN: {concern}", "vote": "CHANGES"}))
    else:
        print(json.dumps({"comment": "Ready to publish.", "vote": "READY"}))
elif kind == "summary":
    print(json.dumps({"comment": f"Closing summary by {alias}: the document is settled."}))
else:
    print(json.dumps({"comment": "Agreed.", "vote": "READY"}))
