"""Who wrote a comment signed with a participant's name: the engine, or a hand.

The engine writes every answer of a participant with a metadata line whose ``digest`` is
`body_digest` of the comment's text (`engine.turn.posting`, `engine.council.motions`); a
person's comment is refused under a participant's name (`speakers.check_human_author`). A
comment that claims to be a participant's (signed with a participant's name or alias, or a name
that looks like one, `speakers.impersonated`; or carrying the engine's ``provider:`` line)
without a digest that matches its text was not written by the engine: it is *forged*, typed
into the file by hand (or edited, or cut short, after the engine wrote it).

One rule decides it, `forgery`, read by `readings.rule_comments` as it reads each comment (and by
the ledger's fast scan, `model.ledger`): a forged comment keeps its text, but no marker and no
vote of it counts anywhere (votes, scores, items and decisions, a participant's memory, the
settled decisions later prompts show, motions and ballots), and `check` reports it.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from ..syntax.digest import sha256_hex
from ..syntax.meta import META_LINES, comment_meta_line
from ..syntax.render import render_comment
from ..syntax.text import normalise_newlines
from .speakers import impersonated

if TYPE_CHECKING:
    from ..settings.participants import ParticipantRegistry
    from ..syntax.document import CommentBlock
    from .state import Comment


def strip_meta(body: str) -> str:
    """`body` without the tool's metadata line (looked for in its first lines only: the rest
    is not split apart)."""
    lines = body.split("\n", META_LINES)
    i = comment_meta_line(lines)
    return body if i is None else "\n".join(lines[:i] + lines[i + 1 :])


def body_digest(body: str) -> str:
    """A short digest of a comment's text, insensitive to line endings, trailing whitespace and
    surrounding blank lines (what editors change on save)."""
    text = normalise_newlines(body)
    if " \n" in text or "\t\n" in text or text.endswith((" ", "\t")):
        text = "\n".join(line.rstrip(" \t") for line in text.split("\n"))
    norm = text.strip("\n")  # no line ends in a blank: as the engine writes its comments
    return sha256_hex(norm.encode("utf-8", errors="replace"))[:16]


def render_signed(author: str, text: str, meta: list[str], vote: str | None = None) -> str:
    """A participant's comment as the engine writes it (`syntax.render.render_comment`): its
    metadata line holds the `meta` fields (the first ``provider:``) and the ``digest`` of its
    text, the engine's signature (`forgery`), before the time (``at:``) where there is one."""
    digest = f"digest: {body_digest(render_comment(author, text, vote=vote).split(chr(10), 1)[1])}"
    at = len(meta) - 1 if meta and meta[-1].startswith("at:") else len(meta)
    fields = [*meta[:at], digest, *meta[at:]]
    return render_comment(author, text, vote=vote, meta=" | ".join(fields))


def own_text(c: Comment | CommentBlock, marker_lines: list[int]) -> str:
    """The comment's text without its metadata line and without engine-marker blocks appended
    after it (a phase transition is its own block, but the parser keeps it in the comment
    before it)."""
    i = bisect.bisect_right(marker_lines, c.line)
    first = marker_lines[i] if i < len(marker_lines) and marker_lines[i] <= c.end_line else None
    if first is None:
        return strip_meta(c.body)
    lines = normalise_newlines(c.body).split("\n")[: first - c.line - 1]
    while lines and lines[-1].strip() in ("", "---"):
        lines.pop()
    return strip_meta("\n".join(lines))


def _digest_matches(
    c: Comment | CommentBlock, meta: dict[str, str], marker_lines: list[int]
) -> bool:
    """Whether the comment's text matches the digest its metadata line records (False when it
    records none)."""
    recorded = meta.get("digest")
    return bool(recorded) and recorded == body_digest(own_text(c, marker_lines))


class Claims:
    """Whom each author name claims to be (`speakers.impersonated`), worked out once per name
    for one derivation: a file has few authors and many comments."""

    def __init__(self, registry: ParticipantRegistry) -> None:
        self.registry = registry
        self._seen: dict[str, str] = {}
        self.first_unsigned = 0
        """The line of the first comment reported for having no digest (`forgery` explains
        there, once, and points the others to it: a file from 0.1.0 has many)."""

    def whom(self, author: str) -> str:
        """``"participant AI-Security (@security)"``, or ``""`` for a name of one's own. The
        confusables skeleton is taken of names with letters beyond ASCII only: an ASCII name
        one letter from a participant's is caught by its folded form, and every command that
        reads a file would otherwise load the package that computes skeletons (a person's
        comment written by the tool was compared with the skeleton when it was written,
        `speakers.check_human_author`)."""
        if author not in self._seen:
            self._seen[author] = impersonated(author, self.registry, skeleton=not author.isascii())
        return self._seen[author]


def forgery(
    c: Comment | CommentBlock, meta: dict[str, str], claims: Claims, marker_lines: list[int]
) -> tuple[bool, str]:
    """Whether comment `c` (whose metadata fields are `meta`) counts for nothing, and what
    `check` says of it: it claims to be a participant's and the engine's digest does not vouch
    for its text. The message is ``""`` where the digest is there but no longer matches
    (`rules.rule_integrity` reports that, as for any comment the engine wrote)."""
    whom = claims.whom(c.author)
    if not whom and "provider" not in meta:
        return False, ""
    if _digest_matches(c, meta, marker_lines):
        return False, ""
    if meta.get("digest"):
        return True, ""
    if claims.registry.for_author(c.author) is not None:
        who = f"signed {c.author}, a participant's name,"
    elif whom:
        who = f"signed '{c.author}', which is or looks like the name of {whom},"
    else:
        who = f"signed '{c.author}' with the engine's metadata line"
    if "provider" in meta:
        return True, _unsigned(c, who, claims)
    return True, (
        f"comment {who} was not written by the engine (it has no digest of its text): its "
        "votes and markers count for nothing; a person comments under their own name"
    )


def _unsigned(c: Comment | CommentBlock, who: str, claims: Claims) -> str:
    """What `check` says of a comment with the engine's metadata line and no digest: what
    discussions 0.1.0 wrote (before comments were signed), or a hand copying that line. Said in
    full once per file (a 0.1.0 file has many), the others pointing there."""
    if claims.first_unsigned:
        return (
            f"comment {who} has no digest of its text either: it counts for nothing (see line "
            f"{claims.first_unsigned})"
        )
    claims.first_unsigned = c.line
    participant = claims.registry.for_author(c.author)
    alias = participant.alias if participant is not None else "ALIAS"
    return (
        f"comment {who} has no digest of its text, which the engine records on every comment it "
        "writes: typed by hand, or written by discussions 0.1.0 (before comments were signed), "
        "its votes and markers count for nothing. For a participant's view to count, ask it "
        f"again (`discussions turn FILE @{alias}`); a person comments under their own name"
    )
