"""A documentation loop's drafts read back: each ``DRAFT`` block the engine appended
(`syntax.drafts`) as a `Draft`, in file order. A block whose fenced document no longer matches
its digest is a warning, so `check` fails on an edited or cut-short draft. Where the loop stands
(the last version, the votes after it) is worked out from these and the comments by
`engine.council.documentation`; nothing else records it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..syntax.evidence import marker_fields
from ..syntax.kinds import engine_kinds
from ..syntax.text import normalise_newlines
from .fenced import checked_content

if TYPE_CHECKING:
    from .state import State


@dataclass(slots=True)
class Draft:
    """One version of the document."""

    number: int
    by: str
    """The leader who wrote it."""
    line: int
    """Line of the block's marker."""
    digest: str
    at: str = ""
    content: str = ""
    """The fenced document as it stands in the file ("" when the fence is lost)."""
    intact: bool = True
    """The content is there and matches the digest."""
    forced: str = ""
    """Draft 1 of a loop started on an undecided discussion: the ``--force --reason`` text."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "by": self.by,
            "line": self.line,
            "digest": self.digest,
            "at": self.at,
            "intact": self.intact,
            "forced": self.forced or None,
        }


def rule_drafts(s: State) -> None:
    """Fill `s.drafts` from the ``DRAFT`` blocks, checking each digest."""
    mine = engine_kinds(reader="drafts")  # the blocks of `kinds.ENGINE_KINDS` read here
    blocks = [m for m in s.doc.engine_markers if m.kind in mine]
    if not blocks:
        return
    lines = normalise_newlines(s.text).split("\n")
    s.drafts = [_draft(s, m.line, m.target, lines) for m in blocks]


def _draft(s: State, line: int, args: str, lines: list[str]) -> Draft:
    f = marker_fields(args)
    number = int(f["number"]) if f["number"].isdigit() else 0
    if number == 0:
        s.warn(line, f"draft block with a bad number '{f['number']}'")
    draft = Draft(number, f.get("by", ""), line, f.get("digest", ""), at=f.get("at", ""))
    draft.forced = f.get("forced", "")
    content, draft.intact = checked_content(
        s, lines, line, f"draft {number}", draft.digest, lost="fenced document"
    )
    draft.content = content or ""
    return draft
