"""What an answer says, by one documented rule (`extract`), and the prompts a trial sends: the
question to one model (`question_prompt`) and the council's proposal (`council_context`).

The rule, for a reply to `question_prompt` and for the text of a council's ``DECISION:``:

1. the last line that starts with ``ANSWER:`` (case-insensitive; a list bullet or bold around
   the keyword allowed): what follows it;
2. else, for a reply that is a JSON object: its ``answer`` (text or a number), or rule 1
   and 3 applied to its ``comment``;
3. else a reply of one line (at most `_MAX_ONE_LINE` characters): that line;
4. else no answer (the task counts as not answered correctly).

What is taken is cleaned of markdown around it (``**42**``, ```42```, quotes, a final full
stop). A rubric task's answer is the whole reply (at most `MAX_JUDGED_CHARS` characters),
since a judge reads it.
"""

from __future__ import annotations

import json
import re

from .tasks import Task

_ANSWER_LINE = re.compile(r"^\s*(?:[-*+]\s+)?[*_]*answer[*_]*\s*:[*_]*\s*(.*)$", re.I | re.M)
_MAX_ONE_LINE = 200
MAX_JUDGED_CHARS = 4000
"""Characters of a rubric task's answer a judge is shown."""


def extract(text: str) -> str | None:
    """The answer `text` gives (the module docstring's rule), or None."""
    text = text.strip()
    found = _answer_line(text)
    if found is not None:
        return found
    data = _json_object(text)
    if data is not None:
        value = data.get("answer")
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return _clean(str(value))
        comment = data.get("comment")
        return extract(comment) if isinstance(comment, str) else None
    if text and "\n" not in text and len(text) <= _MAX_ONE_LINE:
        return _clean(text)
    return None


def answer_of(task: Task, text: str) -> str | None:
    """The answer of a reply to `task`: `extract` for a task with a known answer; for a
    rubric task the reply itself (its ``ANSWER:`` line's text when that is all it says)."""
    if not task.judged:
        return extract(text)
    body = text.strip()
    return body[:MAX_JUDGED_CHARS] if body else None


def _answer_line(text: str) -> str | None:
    matches = [m.group(1) for m in _ANSWER_LINE.finditer(text)]
    for value in reversed(matches):
        cleaned = _clean(value)
        if cleaned:
            return cleaned
    return None


def _json_object(text: str) -> dict[str, object] | None:
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _clean(value: str) -> str:
    """`value` without the markdown, quotes and final full stop around it."""
    value = value.strip()
    while True:
        stripped = value.strip("*_`\"' ").removesuffix(".").strip()
        if stripped == value:
            return value
        value = stripped


def question_prompt(task: Task) -> str:
    """What one model is asked for `task` (the single and self-consistency arms)."""
    parts = ["You are answering one question of a trial.", ""]
    if task.context:
        parts += ["## Context", "", task.context, ""]
    parts += ["## Question", "", task.question, ""]
    if task.judged:
        parts.append("Write your answer: complete, and no longer than it needs to be.")
    else:
        parts.append(
            "Work it out briefly if you need to, then end your reply with one line of the "
            "form:\nANSWER: <your answer alone>"
        )
    return "\n".join(parts) + "\n"


def council_context(task: Task) -> str:
    """The proposal of the council's discussion of `task`: the context, the question, and how
    the council records its answer (a ``DECISION:`` line that gives the answer alone)."""
    parts = [task.context, ""] if task.context else []
    parts += ["### Question", "", task.question, ""]
    parts.append(
        "The council's answer is recorded as a decision line that gives the answer alone, "
        "for example `DECISION: ANSWER: <the answer>`. Vote READY once a decision states "
        "the answer you agree with; if you disagree, record the answer you would give the "
        "same way and vote CHANGES."
    )
    return "\n".join(parts)
