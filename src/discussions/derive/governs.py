"""What a decision governs: ``GOVERNS: src/auth/**, config/auth.yaml`` on a line under a
``DECISION:`` in the same comment names the paths (or globs) that decision governs (issue
38: drift, `check --since`). One rule, `rule_governs`, pure like the others: the paths go to
the decision's item as ``details["governs"]``, so the state, ``status --json`` and
``decisions --json`` show them; a restated decision governs what each statement named
(`restatements.collapse`)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sized

    from .state import Item, State


def governed_paths(text: str) -> list[str]:
    """The paths of a ``GOVERNS:`` line, in order, without repeats: comma-separated, each
    trimmed of spaces and of the backticks that show it as code."""
    paths = (p.strip().strip("`").strip() for p in text.split(","))
    return list(dict.fromkeys(p for p in paths if p))


def rule_governs(s: State) -> None:
    """Each ``GOVERNS:`` line's paths, on the nearest ``DECISION:`` above it in its comment;
    a ``GOVERNS:`` line with none above it governs nothing and is reported."""
    if not s.holds("GOVERNS"):
        return
    decisions = {i.line: i for i in s.items["DECISION"]}
    for c in s.comments:
        decision: Item | None = None
        for m in c.markers:
            if m.kind == "DECISION":
                decision = decisions.get(m.line)
            elif m.kind == "GOVERNS" and decision is None:
                s.warn(
                    m.line,
                    "`GOVERNS:` names what a decision governs: put it on a line under "
                    "the `DECISION:` of the same comment",
                    code="governs-alone",
                )
            elif m.kind == "GOVERNS" and decision is not None and governed_paths(m.text):
                held = decision.details.setdefault("governs", [])
                held += [p for p in governed_paths(m.text) if p not in held]


def governs_code(decisions: Iterable[Item], applies: Sized) -> bool:
    """Whether a discussion with these decisions and apply blocks may govern code (a decision
    with a ``GOVERNS:`` line, or an apply): the cheap test before anything asks git."""
    return bool(applies) or any(i.details.get("governs") for i in decisions)


def normal_pattern(pattern: str) -> str:
    """A governed path or glob as it is matched: from the repository's top, without a leading
    ``./`` or ``/`` or a trailing ``/``."""
    p = pattern.strip().replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return p.strip("/")


def pathspec(pattern: str, *, literal: bool = False) -> str:
    """`pattern` as a git pathspec from the repository's top: a glob (git's ``**`` rules,
    `matches`), or the path as it is for one an apply recorded."""
    return f":(top,{'literal' if literal else 'glob'}){normal_pattern(pattern)}"


def matches(pattern: str, path: str, *, literal: bool = False) -> bool:
    """Whether `path` (from the repository's top) is governed by `pattern`, as git's glob
    pathspec matches it: ``*``, ``?`` and ``[...]`` within one folder, ``**/`` any folders,
    a trailing ``/**`` everything inside, and a folder everything under it."""
    p = normal_pattern(pattern)
    if literal:
        return path == p or path.startswith(p + "/")
    return _glob_regex(p).fullmatch(path) is not None


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i) and (i == 0 or pattern[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) > 0:
            inside = pattern[i + 1 : end]
            negated = inside.startswith(("!", "^"))
            body = re.escape(inside[1:] if negated else inside).replace("\\-", "-")
            out.append(f"[{'^/' if negated else ''}{body}]")
            i = end + 1
        else:
            out.append(_GLOB_ATOMS.get(pattern[i], re.escape(pattern[i])))
            i += 1
    return re.compile("".join(out) + "(?:/.*)?", re.S)


_GLOB_ATOMS = {"*": "[^/]*", "?": "[^/]"}
