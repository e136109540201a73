"""The King's Choice read back: each ``CHOICE`` line (`syntax.choice`) as a `Choice` with its
line; one that cannot be read (an unknown choice, no one who chose, an edited line) is an
error `check` reports, and is left out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..syntax.choice import ChoiceFormatError, ChoiceRecord, choice_sentence, parse_choice

if TYPE_CHECKING:
    from .state import State

CHOICE = "choice"
"""The kind of the engine block (`syntax.kinds`)."""


@dataclass(slots=True)
class Choice(ChoiceRecord):
    """A ``CHOICE`` line as read from the file."""

    line: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "choice": self.choice,
            "by": self.by,
            "at": self.at,
            "line": self.line,
            "said": choice_sentence(self),
        }


def read_choices(s: State) -> tuple[list[Choice], list[tuple[int, str]]]:
    """The readable ``CHOICE`` lines in file order, and (line, why) for the others."""
    found: list[Choice] = []
    bad: list[tuple[int, str]] = []
    for m in s.doc.engine_markers:
        if m.kind != CHOICE:
            continue
        try:
            rec = parse_choice(m.target)
        except ChoiceFormatError as exc:
            bad.append((m.line, str(exc)))
            continue
        found.append(Choice(rec.choice, rec.by, rec.at, m.line))
    return found, bad


def rule_choices(s: State) -> None:
    """Warn (an error for `check`) of each ``CHOICE`` line that cannot be read."""
    for line, why in read_choices(s)[1]:
        s.warn(line, f"King's Choice: {why}", "error")


def latest_choice(s: State) -> Choice | None:
    """The latest choice the file records (None: none was made)."""
    found = read_choices(s)[0]
    return found[-1] if found else None


def choice_entry(s: State) -> dict[str, Any] | None:
    """``choice`` in `status --json`: the latest choice, or None."""
    latest = latest_choice(s)
    return latest.to_dict() if latest else None
