"""Applies read back: each ``APPLY`` block the engine appended (`syntax.apply`) as an `Apply`,
and each ``APPLY-REVIEW`` block as a `Review`, joined to the apply it reviews. A block that
cannot be read is an error and is left out; one whose fenced content no longer matches its
digest is a warning (kept, not `intact`), so `check` fails on an edited or cut-short block."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar

from ..syntax.apply import (
    ApplyFormatError,
    ApplyRecord,
    ApplyReviewRecord,
    parse_apply,
    parse_apply_review,
)
from ..syntax.evidence import content_digest, fence_span, marker_fields
from ..syntax.text import normalise_newlines

if TYPE_CHECKING:
    from .state import State

R = TypeVar("R", "Apply", "Review")


@dataclass(slots=True)
class Review(ApplyReviewRecord):
    """An ``APPLY-REVIEW`` block as read from the file."""

    line: int = 0
    """Line of the block's marker."""
    intact: bool = True
    """Its blockers are there and match the digest."""

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for key in ("yes", "no", "abstain", "blockers"):
            out[key] = list(out[key])
        return out


@dataclass(slots=True)
class Apply(ApplyRecord):
    """An ``APPLY`` block as read from the file, with the reviews of its change."""

    line: int = 0
    """Line of the block's marker."""
    intact: bool = True
    """Its fenced content is there and matches the digest."""
    reviews: list[Review] = field(default_factory=list)
    """The ``APPLY-REVIEW`` blocks that name it, in file order."""

    @property
    def review(self) -> Review | None:
        """The latest review, if any."""
        return self.reviews[-1] if self.reviews else None

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "reviews"}
        out["files"] = [{"path": p, "added": a, "removed": r} for p, a, r in self.files]
        out["reviews"] = [r.to_dict() for r in self.reviews]
        return out


def rule_applies(s: State, text: str) -> None:
    """Fill `s.applies` and `s.apply_reviews` from the blocks, checking each digest."""
    blocks = [m for m in s.doc.engine_markers if m.kind in ("apply", "apply-review")]
    if not blocks:
        return
    lines = normalise_newlines(text).split("\n")
    by_number: dict[int, Apply] = {}
    for m in blocks:
        read = _apply if m.kind == "apply" else _review
        record = read(s, m.line, m.target, lines)
        if isinstance(record, Apply):
            s.applies.append(record)
            by_number.setdefault(record.number, record)
        elif isinstance(record, Review):
            s.apply_reviews.append(record)
            applied = by_number.get(record.apply)
            if applied is None:
                s.warn(m.line, f"review of apply {record.apply}, which no earlier block records")
            else:
                applied.reviews.append(record)


def _apply(s: State, line: int, args: str, lines: list[str]) -> Apply | None:
    content, intact = _content(s, line, args, lines, "apply block")
    return _read(s, line, lambda: parse_apply(args, content), Apply, intact)


def _review(s: State, line: int, args: str, lines: list[str]) -> Review | None:
    has_fence = marker_fields(args).get("blockers", "0") not in ("", "0")
    content, intact = _content(s, line, args, lines, "apply review") if has_fence else (None, True)
    return _read(s, line, lambda: parse_apply_review(args, content), Review, intact)


def _read(
    s: State, line: int, parse: Callable[[], ApplyRecord | ApplyReviewRecord], kind: type[R],
    intact: bool,
) -> R | None:
    """The parsed record as `kind`, with its line; None (and an error) when it is malformed."""
    try:
        record = parse()
    except ApplyFormatError as exc:
        s.warn(line, str(exc), "error")
        return None
    values = {f.name: getattr(record, f.name) for f in fields(record)}
    return kind(**values, line=line, intact=intact)


def _content(
    s: State, line: int, args: str, lines: list[str], what: str
) -> tuple[str | None, bool]:
    """The fenced content under the marker on `line` (None when lost) and whether it matches
    the digest (a warning when it does not)."""
    span = fence_span(lines, line)
    if span is None:
        return None, False
    content = "\n".join(lines[span[0] + 1 : span[1]])
    digest = marker_fields(args).get("digest", "")
    if digest == content_digest(content):
        return content, True
    number = args.split("|", 1)[0].strip()
    s.warn(
        line,
        f"{what} {number} does not match the digest the engine recorded: it was edited, "
        "or cut short by an interrupted write",
    )
    return content, False


@dataclass(slots=True, frozen=True)
class Implementation:
    """A change that implements the decisions written before its ``APPLY`` block (the decision
    ledger's ``implemented_by``)."""

    apply: int
    branch: str
    commits: tuple[str, ...]
    """The apply's commit, then each later commit a review looked at (revisions)."""
    implemented: bool | None
    """What the latest review said: implemented or not; None when none reviewed it."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "apply": self.apply,
            "branch": self.branch,
            "commits": list(self.commits),
            "implemented": self.implemented,
        }


def implemented_by(applies: list[Apply], line: int) -> tuple[Implementation, ...]:
    """The committed applies written after `line` (a decision's), as `Implementation`s."""
    found: list[Implementation] = []
    for a in applies:
        if a.result != "committed" or not a.commit or a.line <= line:
            continue
        commits = tuple(dict.fromkeys([a.commit, *(r.commit for r in a.reviews if r.commit)]))
        latest = a.review
        said = None if latest is None else latest.result == "implemented"
        found.append(Implementation(a.number, a.branch, commits, said))
    return tuple(found)
