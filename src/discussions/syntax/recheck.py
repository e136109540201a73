"""A recheck in the file format: the ``RECHECK`` block the engine appends when the council has
voted whether the code a decision governs, as it is now, still conforms to the decision
(`discussions recheck`, after the code drifted; docs/drift.md)::

    <!-- RECHECK: 1 | since: 4b8e... | commit: 9c1d... | result: departs | yes: AI-A |
         no: AI-B | abstain: | blockers: 1 | digest: 77aa... | at: 2026-11-28T10:05:00Z -->

    *Recheck 1 of the code at 9c1d2e3 (changed since 4b8e5f6): departs (yes: AI-A; no:
    AI-B); 1 blocker*

    ````text
    - the retries are no longer bounded
    ````

``since`` is the commit the change was shown from, ``commit`` the commit the code was read at
(HEAD). ``result`` is ``conforms`` (the council's consensus) or ``departs`` (blockers
stand); the rest is written as an ``APPLY-REVIEW`` block is (`syntax.apply`): one-line field
values escaped, a fence only when there are blockers, a digest of the fields and the fence.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from .apply import (
    ApplyFormatError,
    fence_text,
    name_field,
    number_field,
    read_name_field,
    render_block,
)
from .evidence import escape_field, marker_fields
from .render import visible_name

RECHECK_RESULTS = ("conforms", "departs")
"""What a recheck came to."""


@dataclass(slots=True)
class RecheckRecord:
    """What the engine records of one recheck."""

    number: int
    since: str
    """The commit the change shown to the council started from (full id)."""
    commit: str
    """The commit the code was read at (HEAD, full id)."""
    result: str
    """One of `RECHECK_RESULTS`."""
    yes: tuple[str, ...] = ()
    no: tuple[str, ...] = ()
    abstain: tuple[str, ...] = ()
    blockers: tuple[str, ...] = field(default=())
    """``Name: text`` of each concern that stands."""
    at: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for key in ("yes", "no", "abstain", "blockers"):
            out[key] = list(out[key])
        return out


def render_recheck(rec: RecheckRecord) -> str:
    """The ``RECHECK`` block for `rec`, ready to append."""
    if rec.result not in RECHECK_RESULTS:
        raise ValueError(f"result '{rec.result}' is not one of {', '.join(RECHECK_RESULTS)}")
    blockers = [" ".join(b.split()) for b in rec.blockers]
    fenced = fence_text("\n".join(f"- {b}" for b in blockers)) if blockers else ""
    values = [
        str(rec.number),
        f"since: {escape_field(rec.since)}",
        f"commit: {escape_field(rec.commit)}",
        f"result: {rec.result}",
        f"yes: {name_field(rec.yes)}",
        f"no: {name_field(rec.no)}",
        f"abstain: {name_field(rec.abstain)}",
        f"blockers: {len(blockers)}",
        f"at: {escape_field(rec.at)}",
    ]
    return render_block("RECHECK", values, f"*{recheck_sentence(rec, visible_name)}*", fenced)


def recheck_sentence(rec: RecheckRecord, name: Callable[[str], str] = str) -> str:
    """What a recheck came to in one sentence, as the block's visible line and the views say
    it: ``Recheck 1 of the code at 9c1d2e3 (changed since 4b8e5f6): conforms (yes: AI-A)``."""
    votes = [
        f"{word}: {', '.join(name(n) for n in names)}"
        for word, names in (("yes", rec.yes), ("no", rec.no), ("abstain", rec.abstain))
        if names
    ]
    shown = f" ({'; '.join(votes)})" if votes else ""
    count = len(rec.blockers)
    tail = f"; {count} blocker{'s' if count != 1 else ''}" if count else ""
    return (
        f"Recheck {rec.number} of the code at {rec.commit[:7]} (changed since "
        f"{rec.since[:7]}): {rec.result}{shown}{tail}"
    )


def parse_recheck(args: str, content: str | None) -> RecheckRecord:
    """The record a ``RECHECK`` marker's arguments and its fenced `content` (None when there is
    none) stand for; `ApplyFormatError` saying what is wrong."""
    f = marker_fields(args)
    number = number_field(f, "number", "recheck")
    what = f"recheck {number}"
    result = f.get("result", "")
    if result not in RECHECK_RESULTS:
        raise ApplyFormatError(f"{what} has an unknown result '{result}'")
    count = number_field(f, "blockers", what, zero=True, default="0")
    blockers: tuple[str, ...] = ()
    if count:
        lines = [] if content is None else content.split("\n")
        if len(lines) != count or not all(line.startswith("- ") for line in lines):
            raise ApplyFormatError(f"{what} does not list the {count} blockers it records")
        blockers = tuple(line[2:] for line in lines)
    if result == "conforms" and blockers:
        raise ApplyFormatError(f"{what} says it conforms but lists blockers")
    return RecheckRecord(
        number,
        f.get("since", ""),
        f.get("commit", ""),
        result,
        read_name_field(f.get("yes", "")),
        read_name_field(f.get("no", "")),
        read_name_field(f.get("abstain", "")),
        blockers,
        f.get("at", ""),
    )
