"""A trial's task file: questions with their context, each with a known answer and a match
rule, or a rubric for a judge (`load_tasks`), and the match rules themselves (`Task.matches`,
`Task.vote_key`).

The file is YAML (a list of tasks, or a mapping with ``tasks:`` and defaults for them:
``match``, ``tolerance``, ``context``) or JSON lines (one task object a line). A task:

========== ==============================================================================
key        meaning
========== ==============================================================================
id         a name for the report (default: its position, ``task-3``)
question   what is asked (required)
context    what the question needs to be answered (optional)
answer     the known answer (a string or a number)
match      ``exact`` (default for text), ``case-insensitive``, ``regex`` (``answer`` is a
           pattern the whole answer must match) or ``number`` (default for a number)
tolerance  ``number`` only: how far the answer may be, ``0.01`` or ``"1%"`` of the answer
rubric     what a good answer does, for tasks without a known answer (judged pairwise)
========== ==============================================================================
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from ...settings.config import load_yaml_document, located_error

MATCH_RULES = ("exact", "case-insensitive", "regex", "number")
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+")
_MAX_TASKS = 100_000


@dataclass(frozen=True, slots=True)
class Task:
    """One question of a trial."""

    id: str
    question: str
    context: str = ""
    answer: str | None = None
    """The known answer as written (None: a rubric task)."""
    match: str = "exact"
    """How an answer is compared with `answer` (`MATCH_RULES`)."""
    tolerance: float = 0.0
    """``number``: the largest distance accepted (absolute, or relative with `relative`)."""
    relative: bool = False
    """`tolerance` is a fraction of the known answer (written ``"1%"``)."""
    rubric: str = ""
    """What a good answer does (a rubric task: no `answer`)."""

    @property
    def judged(self) -> bool:
        """Whether answers are compared by a judge (a rubric) rather than matched."""
        return self.answer is None

    def matches(self, given: str | None) -> bool:
        """Whether `given` (an extracted answer) is the known answer under the match rule."""
        if given is None or self.answer is None:
            return False
        if self.match == "number":
            value, known = number_in(given), number_in(self.answer)
            if value is None or known is None:
                return False
            limit = self.tolerance * abs(known) if self.relative else self.tolerance
            return abs(value - known) <= limit + 1e-12 * max(1.0, abs(known))
        if self.match == "regex":
            return re.fullmatch(self.answer, given.strip()) is not None
        if self.match == "case-insensitive":
            return _folded(given) == _folded(self.answer)
        return given.strip() == self.answer.strip()

    def vote_key(self, given: str) -> str:
        """What answers are grouped by when votes are counted: the number for ``number``
        (``42``, ``42.0`` and ``+42`` are one vote), the folded text for
        ``case-insensitive`` and rubric tasks, else the text stripped."""
        if self.match == "number":
            value = number_in(given)
            return repr(value) if value is not None else given.strip()
        if self.match == "case-insensitive" or self.judged:
            return _folded(given)
        return given.strip()


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def number_in(text: str) -> float | None:
    """The number an answer gives: the whole answer read as one (``1,234.5``, ``-3``,
    ``1e3``), else the one number in it (``42 apples``); None when it holds none or several
    (``17 + 25 = 42`` says too much to be read as one answer)."""
    found = _NUMBER.findall(text)
    if len(found) != 1:
        return None
    try:
        value = float(found[0].replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def load_tasks(path: Path) -> list[Task]:
    """The tasks of the file at `path` (``.jsonl``: JSON lines; else YAML). Errors name the
    file and the line: `ConfigError`."""
    defaults: dict[str, Any] = {}
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        items = _json_lines(path)
    else:
        items, defaults = _yaml_tasks(path)
    if not items:
        raise ConfigError(f"{path}: no tasks (a list of tasks, or 'tasks:' with a list)")
    if len(items) > _MAX_TASKS:
        raise ConfigError(f"{path}: more than {_MAX_TASKS} tasks")
    tasks = [_task(data, i, line, path, defaults) for i, (data, line) in enumerate(items)]
    _unique_ids(tasks, path)
    return tasks


def _yaml_tasks(path: Path) -> tuple[list[tuple[Any, int]], dict[str, Any]]:
    doc = load_yaml_document(path)
    data = doc.data
    keys: tuple[str, ...] = ()
    defaults: dict[str, Any] = {}
    if isinstance(data, dict):
        defaults = {k: data[k] for k in ("match", "tolerance", "context") if k in data}
        data, keys = data.get("tasks"), ("tasks",)
    if not isinstance(data, list):
        raise located_error(ConfigError, path, doc.line(*keys), "expected a list of tasks")
    return [(item, doc.line(*keys, i)) for i, item in enumerate(data)], defaults


def _json_lines(path: Path) -> list[tuple[Any, int]]:
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), 1):
        if not line.strip():
            continue
        try:
            items.append((json.loads(line), n))
        except json.JSONDecodeError as exc:
            raise located_error(ConfigError, path, n, f"not JSON: {exc.msg}") from None
    return items


def _task(data: Any, index: int, line: int, path: Path, defaults: dict[str, Any]) -> Task:
    """One task, validated; `line` is where it starts, for the error."""

    def fail(message: str) -> ConfigError:
        return located_error(ConfigError, path, line, message)

    if not isinstance(data, dict):
        raise fail("a task is a mapping with 'question' and 'answer' or 'rubric'")
    data = {**defaults, **data}
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        raise fail("a task needs a 'question' (text)")
    answer, rubric = data.get("answer"), data.get("rubric")
    if (answer is None) == (rubric is None):
        raise fail("a task needs an 'answer' (with a match rule) or a 'rubric', not both")
    if rubric is not None and (not isinstance(rubric, str) or not rubric.strip()):
        raise fail("'rubric' must be text")
    readable = isinstance(answer, str | int | float) and not isinstance(answer, bool)
    if answer is not None and not readable:
        raise fail("'answer' must be text or a number")
    match = data.get("match") or ("number" if isinstance(answer, int | float) else "exact")
    if match not in MATCH_RULES:
        raise fail(f"unknown match rule {match!r} (one of: {', '.join(MATCH_RULES)})")
    tolerance, relative = _tolerance(data.get("tolerance", 0), fail)
    if match == "regex":
        _check_pattern(str(answer), fail)
    return Task(
        id=str(data.get("id") or f"task-{index + 1}"),
        question=question.strip(),
        context=str(data.get("context") or "").strip(),
        answer=None if answer is None else str(answer),
        match=str(match),
        tolerance=tolerance,
        relative=relative,
        rubric=str(rubric or "").strip(),
    )


def _tolerance(value: Any, fail: Any) -> tuple[float, bool]:
    """``0.01`` -> (0.01, False); ``"1%"`` -> (0.01, True)."""
    relative = isinstance(value, str) and value.strip().endswith("%")
    try:
        number = float(value.strip().rstrip("%")) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        raise fail("'tolerance' must be a number or a percentage ('1%')") from None
    if isinstance(value, bool) or not math.isfinite(number) or number < 0:
        raise fail("'tolerance' must be a number or a percentage ('1%'), not negative")
    return (number / 100 if relative else number), relative


def _check_pattern(pattern: str, fail: Any) -> None:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise fail(f"'answer' is not a regular expression: {exc}") from None


def _unique_ids(tasks: list[Task], path: Path) -> None:
    seen: set[str] = set()
    for t in tasks:
        if t.id in seen:
            raise ConfigError(f"{path}: two tasks have the id {t.id!r}")
        seen.add(t.id)
