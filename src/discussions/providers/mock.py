"""The built-in mock provider: deterministic, persona-aware, instant, and plainly a mock.

Same request in, same answer out. The mock reads the prompt the runner built (see
`engine.prompt.prompts`) and answers the way the product works, so a first run shows votes,
a question and the consensus state:

* it says it is the mock, in a banner and again next to its vote;
* when the proposal's ``## Context`` is still the template's placeholder it says so (and asks
  for it) instead of discussing placeholders;
* it asks one ``Q:`` taken from the persona's own questions, and raises a ``CONCERN:`` when the
  persona is a cautious one (security, quality, risk...);
* it votes in any phase (votes are recorded in every phase) unless it is a background
  participant or the task says not to vote. The vote follows the persona's leaning and what
  the discussion holds:

  ============  ===============================  ===========================================
  leaning       personas (alias, role)           vote
  ============  ===============================  ===========================================
  shipping      pragmatist, ship, MVP, simple    READY
  cautious      security, perfectionist, risk    CHANGES until a ``DECISION:`` is recorded
  balanced      everyone else                    CHANGES while the context is missing or a
                                                 ``CONCERN:`` stands with no ``DECISION:``
  ============  ===============================  ===========================================

  A missing context makes every leaning but shipping vote CHANGES.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from .base import Provider, ProviderRequest

MOCK_BANNER = "*[mock response: written by the built-in mock provider, not by an AI model]*"
_PLACEHOLDER_CONTEXT = "[Describe what is being discussed and why]"

_SHIPPING = ("pragmat", "ship", "mvp", "simpl", "deliver")
_CAUTIOUS = ("secur", "perfection", "quality", "risk", "privacy", "complian", "safety")
_DEFAULT_QUESTION = "What problem are we solving, and for whom?"


@dataclass(slots=True)
class Reading:
    """What the mock takes from a prompt."""

    title: str = ""
    phase: str = ""
    context_missing: bool = False
    """The ``## Context`` section is still the template's placeholder."""
    comments: int = 0
    concerns: int = 0
    """``CONCERN:`` lines in the discussion."""
    decisions: int = 0
    """``DECISION:`` lines in the discussion."""
    mentioned_by: str = ""
    """Where this participant was mentioned without answering, as the prompt says it."""
    callout: str = ""
    """The first line of the task when it is not the default one."""
    may_vote: bool = True
    """False for background participants and tasks that say not to vote."""


def _section(text: str, start: str, end: str) -> str:
    head, found, rest = text.partition(start)
    if not found:
        return ""
    return rest.split(end, 1)[0]


def _marker_lines(text: str, marker: str) -> int:
    return len(re.findall(rf"(?im)^[ \t]*(?:[-*+][ \t]+)?{marker}:", text))


def _state_items(text: str, heading: str) -> int:
    """Items listed under `heading` (``Decisions:``) in the prompt's state of the discussion,
    which covers comments the prompt does not show in full."""
    count = 0
    for line in _section(text, f"\n{heading}\n", "\n\n").split("\n"):
        if not line.startswith("- "):
            break
        count += 1
    return count


def read_prompt(prompt: str) -> Reading:
    """The facts the mock reacts to, from a prompt built by `discussions.engine.prompt.prompts`."""
    r = Reading()
    title = re.search(r"(?m)^## Discussion: (.*)$", prompt)
    r.title = title.group(1).strip() if title else ""
    phase = re.search(r"(?m)^Current phase: (.*)$", prompt)
    r.phase = phase.group(1).strip() if phase else ""
    discussion = _section(prompt, "\n<discussion>\n", "\n</discussion>")
    context = _section(discussion, "\n## Context\n", "\n## ")
    context = context.split("\n---\n", 1)[0]
    r.context_missing = _PLACEHOLDER_CONTEXT in context or (
        "## Context" in discussion and not context.strip()
    )
    r.comments = len(re.findall(r"(?m)^Name: ", discussion))
    r.concerns = max(_marker_lines(discussion, "CONCERN"), _state_items(discussion, "Concerns:"))
    r.decisions = max(_marker_lines(discussion, "DECISION"), _state_items(discussion, "Decisions:"))
    mentioned = re.search(r"You were mentioned and have not answered yet \(([^)]*)\)", prompt)
    r.mentioned_by = mentioned.group(1) if mentioned else ""
    task = _section(prompt, "\n## Your task\n", "\n## Response format").strip()
    first = task.split("\n", 1)[0].strip()
    if first and not first.startswith("Give your perspective on the discussion so far"):
        first = first.replace("@", "")  # echoing a mention would summon someone
        r.callout = first if len(first) <= 160 else first[:157] + "..."
    r.may_vote = not (
        "You are a background participant and do not vote" in prompt
        or re.search(r"(?i)\bdo not vote\b", task)
    )
    return r


def _leaning(request: ProviderRequest) -> str:
    """``shipping``, ``cautious`` or ``balanced``, from the alias and role."""
    who = f"{request.participant_alias} {request.participant_role}".lower()
    if any(word in who for word in _SHIPPING):
        return "shipping"
    if any(word in who for word in _CAUTIOUS):
        return "cautious"
    return "balanced"


def _choose_vote(lean: str, r: Reading) -> tuple[str, str]:
    """The vote and the reason the mock gives for it."""
    if lean == "shipping":
        if r.context_missing:
            return "READY", "nothing here to over-engineer yet; keep the first version small"
        return "READY", "this is small enough to ship and learn from"
    if r.context_missing:
        return "CHANGES", "there is nothing to review until the context is written"
    if lean == "cautious":
        if r.decisions:
            return "READY", "a DECISION: is recorded, so the risk has an owner"
        return "CHANGES", "I block until a DECISION: records how the risk is handled"
    if r.concerns and not r.decisions:
        return "CHANGES", "a CONCERN: is still open and no DECISION: answers it"
    return "READY", "no open concern blocks this"


class MockProvider(Provider):
    name = "mock"
    is_mock = True

    def complete(self, request: ProviderRequest) -> str:
        digest = hashlib.sha256(
            (request.participant_alias + "\0" + request.prompt).encode("utf-8")
        ).digest()
        r = read_prompt(request.prompt)
        lean = _leaning(request)
        who = request.participant_name or "A participant"
        role = request.participant_role or "participant"
        questions = request.concerns or [_DEFAULT_QUESTION]
        question = questions[digest[0] % len(questions)]
        worry = questions[(digest[0] + 1) % len(questions)]

        lines = [
            MOCK_BANNER,
            "",
            f"{who} here, standing in as the {role}. I am the built-in mock: I follow fixed "
            "rules, so read this as a demonstration of the format, not as advice.",
            "",
        ]
        if r.context_missing:
            lines.append(
                "The proposal has no context yet — add it under ## Context (what is being "
                "discussed and why), then run the turn again."
            )
        else:
            where = f" in {r.phase}" if r.phase else ""
            lines.append(
                f"I read the proposal{where}: {r.comments} comment(s) so far, "
                f"{r.concerns} concern(s), {r.decisions} decision(s) recorded."
            )
        if r.mentioned_by:
            lines += [
                "",
                f"You mentioned me ({r.mentioned_by}); a mock cannot really answer that — "
                "configure an AI CLI (see `discussions providers list`).",
            ]
        if r.callout:
            lines += ["", f'You asked: "{r.callout}" — a real model would answer it here.']
        if lean == "cautious" and not r.decisions:
            lines += ["", f"CONCERN: no answer yet to “{worry}”"]
        lines += ["", f"Q: {question}"]
        vote: str | None = None
        if r.may_vote:
            vote, why = _choose_vote(lean, r)
            lines += ["", f"Mock vote: {vote}, because {why}."]
        answer = json.dumps({"comment": "\n".join(lines), "vote": vote}, ensure_ascii=False)
        if request.on_output is not None:
            _stream(request.on_output, lines)
        return answer


_STREAM_DELAY_VAR = "DISCUSSIONS_MOCK_STREAM_DELAY"
"""Seconds the mock waits between streamed lines (default 0: stream at once; for demos)."""


def _stream(on_output: Callable[[str], None], lines: list[str]) -> None:
    """Stream the comment a line at a time, as a real CLI would print it."""
    try:
        delay = float(os.environ.get(_STREAM_DELAY_VAR, "0") or 0)
    except ValueError:
        delay = 0.0
    for line in lines:
        if delay > 0:
            time.sleep(min(delay, 5.0))
        on_output(line + "\n")
