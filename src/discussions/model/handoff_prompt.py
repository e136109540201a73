"""The hand-off as the instruction text a lead gets (`Handoff.to_prompt`): what was decided,
what to do, the constraints and evidence, the open questions, and the rules of the worktree."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .handoff import Handoff, HandoffItem

RULES = (
    "You are the lead implementing this decision. Work only in the current directory: it is "
    "a fresh git worktree on a new branch made for this change.",
    "Change the files the decision needs and nothing else. Do not write outside this "
    "directory, do not touch the discussion files, and do not edit .git or its hooks.",
    "Do not commit, push, merge, rebase or switch branches: the engine commits what you "
    "changed when you finish, and a person reviews it.",
    "Do not reopen the decision. Where an open question blocks you, make the smallest "
    "reasonable choice and say so in your final answer.",
    "End with a short summary of what you changed and why.",
)


def _items(title: str, items: list[HandoffItem], empty: str) -> list[str]:
    lines = [f"## {title}", ""]
    for i in items:
        who = f" ({i.author}, line {i.line})" if i.author else f" (line {i.line})"
        text = i.text.strip().replace("\n", "\n  ")
        lines.append(f"- {text}{who}")
    if not items:
        lines.append(empty)
    return [*lines, ""]


def render_prompt(h: Handoff) -> str:
    """The lead's instructions for `h` (deterministic: the same hand-off, the same text)."""
    lines = [f"# Implement: {h.title}", "", f"From {h.path} ({h.status}; {h.reason}).", ""]
    lines += _items(
        "Decisions", h.decisions, "No DECISION lines; implement what the discussion settled."
    )
    lines += ["## TODOs", ""]
    for t in h.todos:
        box = "x" if t.done else " "
        owner = f" [for @{t.assignee}]" if t.assignee else ""
        lines.append(f"- [{box}] {t.text}{owner} ({t.author}, line {t.line})")
    if not h.todos:
        lines.append("No TODO lines.")
    lines.append("")
    lines += _items("Constraints", h.constraints, "None recorded.")
    lines += ["## Evidence cited", ""]
    lines += [f"- #{e.number} {e.request} at {e.ref or 'unknown'}" for e in h.evidence] or ["None."]
    lines.append("")
    lines += _items("Open questions", h.questions, "None.")
    lines += ["## Rules", ""] + [f"- {rule}" for rule in RULES]
    return "\n".join(lines).rstrip("\n") + "\n"
