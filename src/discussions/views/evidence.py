"""Evidence as the views show it, collapsed by default: a comment's text with each evidence
block (and each ``APPLY`` / ``APPLY-REVIEW`` block, `applies`) folded to its one visible line,
the blocks the engine appended after a comment taken apart from it, the blocks as (summary,
content) for a collapsible element, and the evidence of a discussion as markdown for the
terminal app."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..syntax.document import ENGINE_LINE
from ..syntax.evidence import fence_span, is_marker_line, marker_fields
from .applies import block_summary

if TYPE_CHECKING:
    from ..model.discussion import Discussion


@dataclass(slots=True)
class Shown:
    """One evidence block as a view shows it."""

    summary: str
    """``Evidence 3 for AI-Architect: read src/app.py:1-20 (fulfilled)``."""
    content: str
    """The fenced content (empty for a refused block or one the same as an earlier)."""
    kind: str = "evidence"
    """``evidence`` or ``apply`` (an ``APPLY`` or ``APPLY-REVIEW`` block)."""


_FOLDED = ("EVIDENCE", "APPLY", "APPLY-REVIEW")
"""The blocks shown collapsed."""


def _has_folded(body: str) -> bool:
    return "<!-- EVIDENCE:" in body or "<!-- APPLY" in body


def fold_evidence(body: str) -> str:
    """`body` without the fenced content of its evidence blocks (the marker and the visible
    line stay; views show the content collapsed). Apply blocks are folded the same way."""
    if not _has_folded(body):
        return body
    lines = body.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        out.append(lines[i])
        if is_marker_line(lines[i], _FOLDED):
            span = fence_span(lines, i + 1)
            if span is not None:
                out += lines[i + 1 : span[0]]
                i = span[1]
        i += 1
    return "\n".join(out)


def engine_blocks_apart(body: str) -> tuple[str, list[tuple[int, str]]]:
    """`body` cut where the engine appended blocks of its own to the comment: each ``---``
    line followed (after blank lines) by an evidence or apply marker starts one, up to the
    next. The file has no ``Name:`` line for them, so they read as part of the comment above;
    views show them apart. Returns the comment's own text, and each block's text with the
    index in `body` of its first line."""
    if not _has_folded(body):
        return body, []
    lines = body.split("\n")
    starts = [i for i, line in enumerate(lines) if line.strip() == "---" and _opens(lines, i)]
    if not starts:
        return body, []
    ends = [*starts[1:], len(lines)]
    blocks = [(a + 1, "\n".join(lines[a + 1 : z])) for a, z in zip(starts, ends, strict=True)]
    return "\n".join(lines[: starts[0]]), blocks


def _opens(lines: list[str], separator: int) -> bool:
    """Whether the first line after `separator` that is not blank is a folded block's marker."""
    for line in lines[separator + 1 :]:
        if line.strip():
            return is_marker_line(line, _FOLDED)
    return False


def evidence_blocks(body: str) -> list[Shown]:
    """The evidence and apply blocks in a comment's `body`, in order."""
    if not _has_folded(body):
        return []
    lines = body.split("\n")
    found: list[Shown] = []
    for i, line in enumerate(lines):
        m = ENGINE_LINE.match(line) if is_marker_line(line, _FOLDED) else None
        if m is None:
            continue
        span = fence_span(lines, i + 1)
        content = "\n".join(lines[span[0] + 1 : span[1]]) if span else ""
        if m.group(1) == "EVIDENCE":
            found.append(Shown(_summary_of(marker_fields(m.group(2))), content))
        else:
            summary = block_summary(m.group(1), m.group(2), content if span else None)
            found.append(Shown(summary, content, "apply"))
    return found


def _summary_of(f: dict[str, str]) -> str:
    status = f.get("status", "")
    extra = f": {f['reason']}" if f.get("reason") else ""
    extra += f" as evidence {f['see']}" if f.get("see") else ""
    return (
        f"Evidence {f.get('number', '?')} for {f.get('by', '?')}: {f.get('request', '')} "
        f"({status}{extra})"
    )


def evidence_markdown(d: Discussion) -> str:
    """Every evidence block and pending request of `d` as markdown (for a collapsed box)."""
    parts: list[str] = []
    for e in d.evidence:
        f = {"number": str(e.number), "by": e.by, "request": e.request, "status": e.status}
        see = f"{e.see} (line {e.see_line})" if e.see_line else str(e.see or "")
        f.update({k: v for k, v in (("reason", e.reason), ("see", see)) if v})
        parts += [f"**{_md(_summary_of(f))}** (line {e.line})", ""]
        if e.content:
            fence = "`" * max(3, _longest_run(e.content) + 1)
            parts += [fence, e.content, fence, ""]
    return "\n".join(parts)


def _longest_run(text: str) -> int:
    best = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        best = max(best, run)
    return best


def _md(text: str) -> str:
    return "".join("\\" + ch if ch in "\\`*_[]<>#|~" else ch for ch in text)


def evidence_for_reader(d: Discussion, budget: int) -> list[dict[str, Any]]:
    """The evidence of `d` for a reader with `budget` characters left (the MCP server's
    ``read_discussion``): every record, the content of the newest while they fit."""
    out: list[dict[str, Any]] = []
    for e in reversed(d.evidence):
        item = e.to_dict()
        if e.content:
            if len(e.content) <= budget:
                item["content"] = e.content
                budget -= len(e.content)
            else:
                item["content_left_out"] = True
        out.append(item)
    out.reverse()
    return out
