"""A persona's shape beyond its role: ``traits:`` and ``focus:`` weights (the council design's
"roles, traits and focus weights").

    traits: [skeptical, concise, data-driven]   # words for how it argues
    focus:                                      # topic -> weight, 0 to 10
      security: 3
      performance: 1

Traits give the prompt one line (`engine.prompt.shape`); focus weights give it another and
weigh in the choice of who leads an apply (`engine.apply.leads`: a topic the decision's words
call for adds its weight to the persona's score). Both reach prompts only, so a trait or a
topic is one short line of letters, digits, spaces, ``-`` and ``/`` (at most `WORD_CHARS`
characters; at most `MAX_TRAITS` traits and `MAX_TOPICS` topics), and a weight is a number
from 0 to `MAX_WEIGHT`. `problems` names the key path of the first thing wrong, so the loader
reports it with the file and line (`participants.Participant.from_dict`).
"""

from __future__ import annotations

import re
from typing import Any

from ..syntax.lazyre import Lazy
from .schema import Keys

MAX_TRAITS = 12
MAX_TOPICS = 12
WORD_CHARS = 40
MAX_WEIGHT = 10
_WORD = Lazy(r"[^\W_][\w /-]*")


def _word_problem(value: Any, what: str) -> str | None:
    """Why `value` cannot be a trait or a topic (`what`), or None."""
    if not isinstance(value, str):
        return f"must be a {what} (text), not {type(value).__name__}"
    text = value.strip()
    if not _WORD.fullmatch(text) or len(text) > WORD_CHARS:
        return (
            f"must be a short {what}: letters, digits, spaces, '-' or '/', at most "
            f"{WORD_CHARS} characters; got {value!r}"
        )
    return None


def problems(data: dict[str, Any]) -> list[tuple[Keys, str]]:
    """(key path, what is wrong) for each bad trait or focus entry of the persona `data`
    (whose ``traits`` is a list and ``focus`` a mapping, as `participants.PERSONA` checked)."""
    found: list[tuple[Keys, str]] = []
    traits = data.get("traits") or []
    if len(traits) > MAX_TRAITS:
        found.append((("traits",), f"must hold at most {MAX_TRAITS} traits, got {len(traits)}"))
    for i, trait in enumerate(traits):
        problem = _word_problem(trait, "trait")
        if problem:
            found.append((("traits", i), problem))
    focus = data.get("focus") or {}
    if len(focus) > MAX_TOPICS:
        found.append((("focus",), f"must hold at most {MAX_TOPICS} topics, got {len(focus)}"))
    for topic, weight in focus.items():
        problem = _word_problem(topic, "topic") or _weight_problem(weight)
        if problem:
            found.append((("focus", str(topic)), problem))
    return found


def _weight_problem(weight: Any) -> str | None:
    if isinstance(weight, bool) or not isinstance(weight, int | float):
        return f"must be a weight from 0 to {MAX_WEIGHT}, not {weight!r}"
    if not 0 <= weight <= MAX_WEIGHT:
        return f"must be a weight from 0 to {MAX_WEIGHT}, got {weight!r}"
    return None


def topic_key(topic: str) -> str:
    """``"Data Privacy"`` -> ``data-privacy``: a topic as capabilities are written."""
    return re.sub(r"[\s/_]+", "-", topic.strip().lower())


def traits_of(data: dict[str, Any]) -> list[str]:
    """The valid persona `data`'s traits, each on one line, without repeats."""
    return list(dict.fromkeys(" ".join(t.split()) for t in data.get("traits") or []))


def focus_of(data: dict[str, Any]) -> dict[str, float]:
    """The valid persona `data`'s focus weights, by `topic_key`, weight 0 left out."""
    focus = data.get("focus") or {}
    return {topic_key(str(t)): float(w) for t, w in focus.items() if w}
