"""The item sections a discussion lists (open questions, decisions, TODOs...): one table.

Each section is the items of one marker (``Q:``, ``DECISION:``...), shown under one heading.
The status command, the summary, the HTML page, the terminal app, the JSON of a discussion and
the exports all take their keys, headings and markers from `SECTIONS`; each view picks which
sections it shows, in this order.
"""

from __future__ import annotations

from ..syntax.record import Record


class Section(Record):
    """One kind of item a discussion collects: `key`, the name of its list (the `Discussion`
    property, the JSON key, the HTML id); `heading`, how a person reads it ("Open
    questions"); `marker`, the marker its items carry in the file (``Q``, ``DECISION``...).
    (A slotted `Record`: making a dataclass costs start-up time on every command.)"""

    __slots__ = ("key", "heading", "marker")

    def __init__(self, key: str, heading: str, marker: str) -> None:
        self.key = key
        self.heading = heading
        self.marker = marker


SECTIONS: tuple[Section, ...] = (
    Section("questions", "Open questions", "Q"),
    Section("decisions", "Decisions", "DECISION"),
    Section("todos", "TODOs", "TODO"),
    Section("assigned", "Assigned", "ASSIGNED"),
    Section("done", "Done", "DONE"),
    Section("concerns", "Concerns", "CONCERN"),
)

BY_KEY: dict[str, Section] = {s.key: s for s in SECTIONS}
"""The sections by key: ``BY_KEY["questions"].heading``."""


def pick(*keys: str) -> tuple[Section, ...]:
    """The sections named by `keys`, in the order of `SECTIONS`; an unknown key is a
    `KeyError` (a typo in a view, not a user error)."""
    for key in keys:
        BY_KEY[key]
    return tuple(s for s in SECTIONS if s.key in keys)
