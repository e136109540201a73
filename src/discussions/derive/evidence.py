"""Evidence read back: the ``EVIDENCE:`` requests in comments and the engine's ``EVIDENCE``
blocks (`syntax.evidence`), matched into records: fulfilled, refused, same as an earlier
block, or still pending. A block whose content no longer matches its digest is a warning, so
`check` fails on an edited or cut-short block. Two blocks may share a number (after a merge of
two branches that each fulfilled a request): both are kept and it is not a problem; a ``same``
block refers to the nearest block above it with its ``see`` number (`Evidence.see_line`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..syntax.evidence import marker_fields, normal_request
from ..syntax.kinds import engine_kinds
from ..syntax.text import normalise_newlines
from .fenced import checked_content

if TYPE_CHECKING:
    from .state import State


@dataclass(slots=True)
class Evidence:
    """One request and what became of it."""

    number: int
    """The block's number (0 while pending)."""
    request: str
    """The request as written, spaces collapsed (``read src/app.py:1-20``)."""
    by: str
    """Who asked (the comment's author; for files attached at creation, who created it)."""
    line: int
    """Line of the block's marker; of the request while pending."""
    status: str
    """``fulfilled``, ``refused``, ``same`` or ``pending``."""
    reason: str = ""
    """Why it was refused, or the cap a fulfilled block hit."""
    ref: str = ""
    """What it was read at (``blob <sha1>``, ``commit <sha1>``, ``output <digest>``)."""
    see: int = 0
    """For ``same``: the number of the earlier block that holds the content."""
    see_line: int = 0
    """For ``same``: the line of that block, the nearest above with its number (0: none)."""
    asked_line: int = 0
    """Line of the ``EVIDENCE:`` request it answers (0: attached, no request)."""
    content: str = ""
    """The fenced content as it stands in the file (fulfilled blocks)."""
    at: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "number": self.number,
            "request": self.request,
            "by": self.by,
            "line": self.line,
            "status": self.status,
        }
        for key in ("reason", "ref", "see", "see_line", "asked_line", "at"):
            value = getattr(self, key)
            if value:
                out[key] = value
        return out


def rule_evidence(s: State) -> None:
    """Fill `s.evidence`: every block in file order, then the requests no block answers yet."""
    mine = engine_kinds(reader="evidence")  # the blocks of `kinds.ENGINE_KINDS` read here
    blocks = [m for m in s.doc.engine_markers if m.kind in mine]
    asked = [
        (c.author, normal_request(mk.text), mk.line)
        for c in s.comments
        for mk in c.markers
        if mk.kind == "EVIDENCE"
    ]
    if not blocks and not asked:
        return
    lines = normalise_newlines(s.text).split("\n") if blocks else []
    records = [_block_record(s, m.line, m.target, lines) for m in blocks]
    _resolve_see(records)
    used: set[int] = set()
    pending: list[Evidence] = []
    for by, request, line in asked:
        match = next(
            (
                i
                for i, r in enumerate(records)
                if i not in used and r.line > line and r.by == by and r.request == request
            ),
            None,
        )
        if match is None:
            pending.append(Evidence(0, request, by, line, "pending", asked_line=line))
        else:
            used.add(match)
            records[match].asked_line = line
    s.evidence = records + pending


def _resolve_see(records: list[Evidence]) -> None:
    """Point each ``same`` record at the nearest block above it with its ``see`` number."""
    last: dict[int, int] = {}
    for r in records:
        if r.status == "same" and r.see:
            r.see_line = last.get(r.see, 0)
        last[r.number] = r.line


def latest_by_number(records: list[Evidence]) -> list[Evidence]:
    """The blocks a reference by number reaches from the end of the file: for each number,
    the last block that has it (file order kept)."""
    last = {r.number: r for r in records if r.status != "pending"}
    return [r for r in records if last.get(r.number) is r]


def shared_numbers(records: list[Evidence]) -> set[int]:
    """The numbers more than one block has (after a merge of two branches)."""
    seen: set[int] = set()
    shared: set[int] = set()
    for r in records:
        if r.status != "pending":
            (shared if r.number in seen else seen).add(r.number)
    return shared


def _block_record(s: State, line: int, args: str, lines: list[str]) -> Evidence:
    f = marker_fields(args)
    number = int(f["number"]) if f["number"].isdigit() else 0
    status = f.get("status", "")
    if status not in ("fulfilled", "refused", "same"):
        s.warn(line, f"evidence block {f['number']} has an unknown status '{status}'")
    record = Evidence(
        number,
        normal_request(f.get("request", "")),
        f.get("by", ""),
        line,
        status,
        reason=f.get("reason", ""),
        ref=f.get("ref", ""),
        see=int(f["see"]) if f.get("see", "").isdigit() else 0,
        at=f.get("at", ""),
    )
    if status == "fulfilled":
        what = f"evidence block {number}"
        content, _ = checked_content(s, lines, line, what, f.get("digest", ""))
        record.content = content or ""
    return record
