"""Rechecks read back: each ``RECHECK`` block the engine appended (`syntax.recheck`) as a
`Recheck`. A block that cannot be read is an error and is left out; one that no longer matches
its digest (of its fields and its fenced blockers) is a warning and is kept, not `intact`, so
`check` fails on an edited or cut-short block."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from ..syntax.apply import ApplyFormatError, block_digest
from ..syntax.evidence import marker_fields
from ..syntax.kinds import engine_kinds
from ..syntax.recheck import RecheckRecord, parse_recheck
from ..syntax.text import normalise_newlines
from .fenced import checked_content

if TYPE_CHECKING:
    from .state import State


@dataclass(slots=True)
class Recheck(RecheckRecord):
    """A ``RECHECK`` block as read from the file."""

    line: int = 0
    """Line of the block's marker."""
    intact: bool = True
    """Its fields (and blockers) match the digest."""

    def to_dict(self) -> dict[str, Any]:
        return {**RecheckRecord.to_dict(self), "line": self.line, "intact": self.intact}


def rule_rechecks(s: State) -> None:
    """Fill `s.rechecks` from the blocks, checking each digest."""
    mine = engine_kinds(reader="rechecks")
    blocks = [m for m in s.doc.engine_markers if m.kind in mine]
    if not blocks:
        return
    lines = normalise_newlines(s.text).split("\n")
    for m in blocks:
        f = marker_fields(m.target)
        content, intact = checked_content(
            s,
            lines,
            m.line,
            f"recheck {f['number']}",
            f.get("digest", ""),
            _digest_of(m.target),
            fenced=f.get("blockers", "0") not in ("", "0"),
            lost="",
        )
        try:
            record = parse_recheck(m.target, content)
        except ApplyFormatError as exc:
            s.warn(m.line, str(exc), "error")
            continue
        values = {f.name: getattr(record, f.name) for f in fields(RecheckRecord)}
        s.rechecks.append(Recheck(**values, line=m.line, intact=intact))


def _digest_of(args: str) -> Callable[[str | None], str]:
    """The digest of the block whose marker has `args`, given its fenced content."""
    return lambda content: block_digest(args, content)
