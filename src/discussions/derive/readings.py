"""The per-comment part of the derivation (`rule_comments`, the first rule over the comments
of `rules.RULES`), kept apart from the whole-file part, so that a derivation of a text whose
first comments did not change resumes after them.

Most rules look at the file as a whole (the votes since the last reset, the pending
mentions, the positions round by round): they are cheap over comments already read. Reading a
comment is not: its markers and mentions, its metadata line, whether it is forged (its digest)
and, by `rules.rule_citations`, what it cites. What reading comment *i* finds depends on its
block alone (its text and lines), on the workspace, on the engine blocks inside its lines
(`signatures.own_text`) and on one thing the comments above carry: the line of the first
comment `forgery` reported as unsigned (`Claims.first_unsigned`). So each comment's `Reading`
holds what was found in it and that carry after it: a checkpoint at every comment boundary.

`rules.derive_parsed(..., resume=state)` hands the readings of a previous derivation to the
next (an editor's buffer, version after version, `lsp.buffer`): the readings of the leading
comments whose blocks are the same (the very blocks `syntax.reparse` kept above an edit, or
equal ones) are taken as they are, `State.resumed` says how many, and the rest are read again;
the whole-file rules then run over every comment as in any derivation. Why the result is a
full derive's: a comment whose block and every block above it are unchanged has the same
lines, the same engine blocks inside them (the parser's findings in a comment depend only on
the lines of its segment and above, see `syntax.reparse`), and the same carry; an edit above
the last comment reads again from where it is (the whole file, for one in the first).
``tests/derive/test_readings.py`` compares the two on random edits.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from ..syntax.clock import parse_stamp
from ..syntax.document import CommentBlock, ParseWarning
from ..syntax.markers import BodyMarkers, Marker, Mention, extract
from ..syntax.meta import comment_meta, meta_fields
from .signatures import Claims, forgery
from .state import Comment, Item

if TYPE_CHECKING:
    from ..syntax.code import CodeLines
    from .state import State


class Reading:
    """What reading one comment found, and what it carries to the comments below."""

    __slots__ = ("block", "comment", "warnings", "first_unsigned")

    def __init__(
        self,
        block: CommentBlock,
        comment: Comment,
        warnings: list[ParseWarning],
        first_unsigned: int,
    ) -> None:
        self.block = block
        """The block read (a later derivation reuses this reading for the same block)."""
        self.comment = comment
        """The comment, never changed once its per-comment rules have run: its items are
        made afresh from its markers by each derivation (the whole-file rules attach
        restatements and details to them)."""
        self.warnings = warnings
        """What reading it reported, in order (never changed)."""
        self.first_unsigned = first_unsigned
        """`Claims.first_unsigned` after it: the carry."""


def resumable(blocks: list[CommentBlock], resume: list[Reading]) -> int:
    """How many leading `blocks` are the blocks `resume` read, in order (the same objects,
    or equal): the readings a derivation of `blocks` may take as they are."""
    n = min(len(blocks), len(resume))
    for i in range(n):
        old = resume[i].block
        if old is not blocks[i] and old != blocks[i]:
            return i
    return n


def rule_comments(s: State) -> None:
    """Each comment's markers, mentions and engine metadata; items; who is human. A comment
    that claims to be a participant's without the engine's digest (`signatures.forgery`) is
    kept with its text and mentions, but without markers or a vote: none of it counts. The
    leading comments a previous derivation read the same are taken from its readings
    (`readings`: `State.readings`, `State.resumed`), the rest read one by one."""
    blocks = s.doc.comments
    s.resumed = same = resumable(blocks, s.readings)
    claims = Claims(s.registry)
    claims.first_unsigned = s.readings[same - 1].first_unsigned if same else 0
    marker_lines = [m.line for m in s.doc.engine_markers]
    code = s.comment_code
    del s.readings[same:]
    for i in range(same, len(blocks)):
        s.readings.append(read_comment(blocks[i], code[i] if code else None, claims, marker_lines))
    registry, items, kinds = s.registry, s.items, set()
    for r in s.readings:
        c = r.comment
        s.comments.append(c)
        s.warnings.extend(r.warnings)
        if registry.for_author(c.author) is None and not c.forged:
            s.humans.add(c.author)
        for marker in c.markers:  # fresh items: the rules below attach to them
            kinds.add(marker.kind)
            if marker.kind in items:
                items[marker.kind].append(Item(marker.kind, marker.text, c.author, marker.line))
    s.marker_kinds = frozenset(kinds)


def read_comment(
    block: CommentBlock, code: CodeLines | None, claims: Claims, marker_lines: list[int]
) -> Reading:
    """What `rule_comments` finds in one comment (a `Reading`); `claims` carries what
    the comments above left (`Claims.first_unsigned`) to the next."""
    found, meta = comment_parts(block.body, block.body_line, code)
    forged, why = forgery(block, meta, claims, marker_lines)
    warnings = found.warnings
    if why:
        said = ParseWarning(block.line, why, "error", code="forged-comment", subject=block.author)
        warnings = [said, *warnings]
    if forged:
        found = BodyMarkers([], found.mentions, [])
        warnings = warnings[:1] if why else []
    mention_lines: dict[str, int] = {}
    for mention in found.mentions:
        mention_lines.setdefault(mention.alias, mention.line)
    stamp = meta.pop("at", None)  # a field of its own: `at`
    comment = Comment(  # by position (20,000 of them in a long file): author, lines, body,
        block.author,  # vote, markers, mentions, meta, mention lines, time, forged
        block.line,
        block.end_line,
        block.body,
        found.vote,
        list(found.markers),
        list(mention_lines),
        meta,
        mention_lines,
        parse_stamp(stamp) if stamp is not None else None,
        forged,
    )
    return Reading(block, comment, warnings, claims.first_unsigned)


_REMEMBER = [False]
"""Whether `comment_parts` remembers what it read (`remember_comments`)."""


def remember_comments(on: bool = True) -> None:
    """Have `comment_parts` remember the bodies it read last: for a long-lived process that
    derives the same file again and again (an editor's language server), where it re-reads
    only the comments that changed. A command that derives a file once reads it straight
    (remembering 20,000 comments costs more than it saves there)."""
    _REMEMBER[0] = on


def comment_parts(
    body: str, first_line: int, code: CodeLines | None = None
) -> tuple[BodyMarkers, dict[str, str]]:
    """The markers and mentions of a comment body whose first line is `first_line`, and its
    engine metadata (a copy the caller may change); remembered when `remember_comments` is
    on. `code`: the parse's `CodeLines` of `body`, if it made them (`markers.extract`)."""
    if not _REMEMBER[0]:
        return extract(body, first_line, code), engine_meta(body)
    found, meta = _comment_parts(body, first_line)
    return found, dict(meta)


@lru_cache(maxsize=8192)
def _comment_parts(body: str, first_line: int) -> tuple[BodyMarkers, dict[str, str]]:
    found, meta = _body_parts(body)
    return (_moved(found, first_line - 1) if first_line != 1 else found), meta


@lru_cache(maxsize=8192)
def _body_parts(body: str) -> tuple[BodyMarkers, dict[str, str]]:
    """What `comment_parts` reads from `body` as if it started on line 1: a comment that only
    moved (lines added above it) is not read again."""
    return extract(body, 1), engine_meta(body)


def _moved(found: BodyMarkers, lines: int) -> BodyMarkers:
    """`found` with every line number `lines` further down."""
    return BodyMarkers(
        [Marker(m.kind, m.text, m.line + lines) for m in found.markers],
        [Mention(m.alias, m.line + lines) for m in found.mentions],
        [w.moved(lines) for w in found.warnings],
    )


def engine_meta(body: str) -> dict[str, str]:
    """The fields of the metadata line the tool writes atop a comment
    (``<!-- provider: ... | key: value -->``, or ``<!-- at: T -->`` for a person's comment;
    see `format.comment_meta`)."""
    inner = comment_meta(body)
    return meta_fields(inner) if inner is not None else {}
