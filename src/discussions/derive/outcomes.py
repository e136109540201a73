"""How a decision turned out, as a person judged it later: the ``OUTCOME:`` lines
(docs/outcomes.md).

    OUTCOME: wrong - the cache hid stale prices for a day; we removed it in March

The first word is the verdict, ``right``, ``wrong`` or ``partly`` (any case); the rest, after
a dash, colon or comma, is the reason. An outcome judges the discussion's decision (what it
settled), any time after; the latest one counts (`latest`). It is a person's judgement: an
``OUTCOME:`` in a participant's comment is reported and not counted, an unknown verdict is
reported with its line (`discussions check`), and one without a reason is counted with a
warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..syntax.clock import utc_stamp

if TYPE_CHECKING:
    from .state import State

OUTCOME = "OUTCOME"
"""The marker (`syntax.kinds`)."""

VERDICTS: dict[str, float] = {"right": 1.0, "partly": 0.5, "wrong": 0.0}
"""Each verdict and how right the decision turned out, 0 to 1 (`Outcome.value`)."""

_VERDICT = re.compile(r"[*_`]*([A-Za-z]+)[*_`]*(?:[ \t]*[-\u2013\u2014:,.;][ \t]*|[ \t]+|$)")


@dataclass(slots=True, frozen=True)
class Outcome:
    """One ``OUTCOME:`` line of a person's comment."""

    verdict: str
    """``right``, ``wrong`` or ``partly``."""
    reason: str
    """Why, as written after the verdict (``""`` when none was given)."""
    by: str
    """Who judged: the comment's author."""
    line: int
    """The line of the ``OUTCOME:`` marker."""
    at: str = ""
    """When its comment was written (``at:``), ``""`` when it does not say."""

    @property
    def value(self) -> float:
        """How right the decision turned out: 1 right, 0.5 partly, 0 wrong (`VERDICTS`)."""
        return VERDICTS[self.verdict]

    def text(self) -> str:
        """``wrong (Rob, line 40): the cache hid stale prices``."""
        reason = f": {self.reason}" if self.reason else ""
        return f"{self.verdict} ({self.by}, line {self.line}){reason}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "reason": self.reason,
            "by": self.by,
            "line": self.line,
            "at": self.at or None,
        }


def parse_outcome(text: str) -> tuple[str, str] | None:
    """(verdict, reason) of an ``OUTCOME:`` marker's text: ``Right - it held`` ->
    (``right``, ``it held``); None when its first word is no verdict."""
    m = _VERDICT.match(text.strip())
    if m is None or m.group(1).lower() not in VERDICTS:
        return None
    return m.group(1).lower(), text.strip()[m.end() :].strip()


def rule_outcomes(s: State) -> None:
    """`State.outcomes`: the valid ``OUTCOME:`` lines of people's comments, in file order; an
    unknown verdict, or an outcome a participant wrote, is reported with its line, and one
    without a reason is warned about there and counted."""
    for c in s.comments:
        for m in c.markers:
            if m.kind != OUTCOME:
                continue
            parsed = parse_outcome(m.text)
            if parsed is None:
                s.warn(
                    m.line,
                    f"invalid outcome `{m.text.strip()}`: start it with right, wrong or "
                    "partly, then the reason; not counted",
                    "error",
                )
            elif c.author not in s.humans:
                s.warn(
                    m.line,
                    f"an outcome is a person's judgement: the one {c.author} wrote is not counted",
                )
            else:
                if not parsed[1]:
                    s.warn(m.line, _NO_REASON.format(verdict=parsed[0]))
                at = utc_stamp(c.at) if c.at else ""
                s.outcomes.append(Outcome(parsed[0], parsed[1], c.author, m.line, at))


_NO_REASON = (
    "an outcome needs a reason: write why after the verdict (`OUTCOME: {verdict} - what "
    "happened`); counted without one"
)
"""A hand-typed outcome with no reason: warned about (`discussions outcome` requires one) and
still counted, since the verdict is the person's judgement all the same."""


def latest(outcomes: list[Outcome]) -> Outcome | None:
    """The outcome that counts: the last one in the file (a later judgement replaces an
    earlier one); None when there is none."""
    return outcomes[-1] if outcomes else None
