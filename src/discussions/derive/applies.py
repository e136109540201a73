"""Applies read back: each ``APPLY`` block the engine appended (`syntax.apply`) as an `Apply`,
and each ``APPLY-REVIEW`` block as a `Review`, joined to the apply it reviews. A block that
cannot be read is an error and is left out; one that no longer matches its digest (of its
fields and its fenced content) is a warning (kept, not `intact`), so `check` fails on an edited
or cut-short block; so are a block that contradicts itself (`syntax.apply.contradictions`) and
two apply blocks with one number."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar

from ..syntax.apply import (
    ApplyFormatError,
    ApplyRecord,
    ApplyReviewRecord,
    block_digest,
    contradictions,
    parse_apply,
    parse_apply_review,
)
from ..syntax.evidence import marker_fields
from ..syntax.kinds import engine_kinds
from ..syntax.text import normalise_newlines
from .fenced import checked_content

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


def rule_applies(s: State) -> None:
    """Fill `s.applies` and `s.apply_reviews` from the blocks, checking each digest; a review
    goes to the nearest block above it with its number (two blocks share one after a merge of
    two branches that each applied: both are kept, told apart by branch, and not a problem)."""
    mine = engine_kinds(reader="applies")  # the blocks of `kinds.ENGINE_KINDS` read here
    blocks = [m for m in s.doc.engine_markers if m.kind in mine]
    if not blocks:
        return
    lines = normalise_newlines(s.text).split("\n")
    by_number: dict[int, Apply] = {}
    for m in blocks:
        read = _apply if m.kind == "apply" else _review
        record = read(s, m.line, m.target, lines)
        if record is not None:
            for problem in contradictions(record):
                s.warn(m.line, f"{_what(record)} {problem}")
        if isinstance(record, Apply):
            s.applies.append(record)
            by_number[record.number] = record
        elif isinstance(record, Review):
            s.apply_reviews.append(record)
            applied = by_number.get(record.apply)
            if applied is None:
                s.warn(m.line, f"review of apply {record.apply}, which no earlier block records")
            else:
                applied.reviews.append(record)


def _what(record: Apply | Review) -> str:
    return (
        f"apply block {record.number}"
        if isinstance(record, Apply)
        else f"review of apply {record.apply}"
    )


def _apply(s: State, line: int, args: str, lines: list[str]) -> Apply | None:
    what = f"apply block {_number(args)}"
    content, intact = checked_content(
        s,
        lines,
        line,
        what,
        marker_fields(args).get("digest", ""),
        lambda c: block_digest(args, c),
        lost="",
    )
    return _read(s, line, lambda: parse_apply(args, content), Apply, intact)


def _review(s: State, line: int, args: str, lines: list[str]) -> Review | None:
    f = marker_fields(args)
    content, intact = checked_content(
        s,
        lines,
        line,
        f"review of apply {_number(args)}",
        f.get("digest", ""),
        lambda c: block_digest(args, c),
        fenced=f.get("blockers", "0") not in ("", "0"),
        lost="",
    )
    return _read(s, line, lambda: parse_apply_review(args, content), Review, intact)


def _number(args: str) -> str:
    return args.split("|", 1)[0].strip()


def _read(
    s: State,
    line: int,
    parse: Callable[[], ApplyRecord | ApplyReviewRecord],
    kind: type[R],
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
    paths: tuple[str, ...] = ()
    """The paths the apply's commit changed (its block's diffstat): what the decision governs
    from then on, with its ``GOVERNS:`` paths (drift)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "apply": self.apply,
            "branch": self.branch,
            "commits": list(self.commits),
            "implemented": self.implemented,
            "paths": list(self.paths),
        }


def implemented_by(applies: list[Apply], line: int) -> tuple[Implementation, ...]:
    """The committed applies written after `line` (a decision's), as `Implementation`s. Blocks
    that fail their digest (edited, or cut short) count for nothing: neither an apply nor a
    review of it."""
    found: list[Implementation] = []
    for a in applies:
        if a.result != "committed" or not a.commit or a.line <= line or not a.intact:
            continue
        reviews = [r for r in a.reviews if r.intact]
        commits = tuple(dict.fromkeys([a.commit, *(r.commit for r in reviews if r.commit)]))
        said = reviews[-1].result == "implemented" if reviews else None
        paths = tuple(p for p, _, _ in a.files)
        found.append(Implementation(a.number, a.branch, commits, said, paths))
    return tuple(found)
