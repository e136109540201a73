"""What the benchmarks share: a realistic long discussion, and a project whose one AI
participant answers through a given command (a stamping script, for latency figures)."""

from __future__ import annotations

import random
import shlex
import sys
from pathlib import Path


def generate(
    path: Path,
    comments: int,
    seed: int = 1,
    tag: str = "",
    answers: bool = False,
    signed: bool = False,
) -> None:
    """A realistic long discussion: prose, lists, mentions, inline code, some fenced code,
    questions, decisions, votes (as benchmarks/run.py makes them). `tag` goes into every
    comment: a different tag, comments no cache has seen. With `answers`, the AIs' comments
    are written as the engine writes them (signed, with a metadata line) and read as models
    write them (nested lists, code under a list item), and a ``ROUND`` marker follows every
    third comment: what needs a markdown parse to tell code from text, and positions over
    many rounds. With `signed` alone, the AIs' comments are signed as the engine writes them
    (a participant's comment without the engine's digest is a problem `check` reports, and
    its votes and markers count for nothing), their text as without it."""
    from discussions.derive.signatures import render_signed
    from discussions.engine.council.deliberation import render_round

    rnd = random.Random(seed)
    names = ["AI-Architect", "AI-Security", "AI-Pragmatist", "Rob", "Zoë", "AI-Researcher"]
    parts = [
        "<!-- DISCUSSION -->\n<!-- Title: Big discussion -->\n<!-- Phase: initial_feedback -->\n"
        "<!-- Status: OPEN -->\n<!-- Template: feature -->\n"
        "<!-- Participants: architect, security, pragmatist -->\n\n# Big discussion\n\n"
        "## Context\n\nA long-running design discussion.\n"
    ]
    for i in range(comments):
        body = [
            f"Comment {i}{tag}: looking at the proposal again, the trade-offs around caching and "
            "consistency still worry me; we should write down what we expect under load.",
            "",
            f"@{rnd.choice(['architect', 'security', 'pragmatist'])} what do you think about "
            f"`cache_ttl={i % 300}`?",
            "",
            "- first point about the interface",
            "- second point about failure modes",
        ]
        if i % 3 == 0:
            body += ["", f"Q: what happens when node {i % 7} restarts?"]
        if i % 5 == 0:
            body += ["", "```python", "VOTE: REJECT  # not a vote", f"retry({i})", "```"]
        if i % 11 == 0:
            body += ["", f"DECISION: keep the retry budget at {i % 9} attempts"]
        name = names[i % len(names)]
        vote = rnd.choice(["READY", "CHANGES", "READY"])
        if (answers or signed) and name.startswith("AI-"):
            at = f"at: 2026-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"
            text = "\n".join(body + (_ANSWER if answers else []))
            block = render_signed(name, text, ["provider: mock", at], vote)
        else:
            block = f"Name: {name}\n\n" + "\n".join([*body, "", f"VOTE: {vote}"]) + "\n"
        parts.append("\n---\n\n" + block)
        if answers and i % 3 == 2:  # the next round starts, as `discussions run` records it
            order = ["architect", "security", "pragmatist"]
            parts.append("\n" + render_round(i // 3 + 2, "initial_feedback", order, None))
    parts.append("\n---\n")
    path.write_text("".join(parts), encoding="utf-8")


_ANSWER = [
    "",
    "1. **Interface**",
    "    - keep the cache behind one function",
    "    - name the expiry in the config",
    "2. **Failure modes**, with the retry loop:",
    "",
    "    ```python",
    "    for attempt in range(3):",
    "        fetch()",
    "    ```",
]
"""The part of an AI's answer that only a markdown parse reads right: nested list items and
a fence, indented under a list item."""


def use_provider(work: Path, script: Path, *args: str) -> None:
    """In project `work` (user dir `work/userdir`): provider ``stamp`` runs `script` with this
    Python, is the default with no fallback, and participant ``bench`` (AI-Bench) uses it."""
    command = " ".join(shlex.quote(x) for x in (sys.executable, str(script), *args))
    (work / "userdir").mkdir(exist_ok=True)
    (work / "userdir" / "providers.yaml").write_text(
        f'providers:\n  - name: stamp\n    command: "{command}"\n', encoding="utf-8"
    )
    (work / "discussions.yaml").write_text(
        "providers:\n  default: stamp\n  fallback: []\n", encoding="utf-8"
    )
    (work / "participants").mkdir(exist_ok=True)
    (work / "participants" / "bench.yaml").write_text(
        "name: AI-Bench\nalias: bench\nrole: r\npersonality: p\nprovider_hint: stamp\n",
        encoding="utf-8",
    )
