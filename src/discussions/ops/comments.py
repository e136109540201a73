"""The act of commenting: a person's comment, written the same way from every interface.

`comment` is the one door: the CLI's ``comment`` command, the terminal app's composer, the web
API's ``POST .../comments``, the MCP tool ``add_comment`` and the language server's
``discussions.comment`` command each turn their input into its arguments and render what it
returns (`Commented`). The checks live here, once: something to say, a motion with text, the
author (a participant's name is refused by `Discussion.add_comment`), a valid vote; and what
the author is told afterwards (mentions that match no participant, a second or ballot from
someone not on the council, the motion results the comment settled)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..derive.rules import mention_typos
from ..errors import BadInput, EmptyComment
from ..model.discussion import Discussion
from ..model.lastcomment import last_comment_told
from ..settings.config import default_author
from ..settings.workspace import Workspace, display_path
from ..syntax.markers import extract

if TYPE_CHECKING:
    from ..derive.motions import Motion
    from ..syntax.document import ParseWarning


@dataclass(slots=True)
class Commented:
    """What `comment` did."""

    file: Path
    author: str
    vote: str | None
    """The vote as written (upper case); None without one."""
    comments: int = 0
    """How many comments the discussion holds now."""
    motions: list[Motion] = field(default_factory=list)
    """Motions whose result the comment settled, now recorded (`council.record_results`)."""
    typos: list[tuple[str, str]] = field(default_factory=list)
    """(mention, closest alias) for the comment's @mentions that match no participant."""
    notices: list[str] = field(default_factory=list)
    """What the append noticed (`Discussion.notices`)."""
    council_note: str = ""
    """`council.off_council_note` when the comment seconds or ballots and its author is not on
    the council; empty otherwise."""

    def to_dict(self) -> dict[str, Any]:
        """The one JSON shape of a comment: `comment --json`, the MCP tool, the web API and
        the language server's command all answer with it."""
        return {
            "file": display_path(self.file),
            "author": self.author,
            "vote": self.vote,
            "comments": self.comments,
            "motions": [{"line": m.line, "result": m.result} for m in self.motions],
            "unknown_mentions": [{"alias": t, "did_you_mean": c} for t, c in self.typos],
            "council_note": self.council_note,
            "notices": list(self.notices),
        }


def council_lines(
    motion: str | None = None, second: str | None = None, ballot: str | None = None
) -> str:
    """The ``MOTION:`` (its text on one line), ``SECOND: yes|no`` and ``BALLOT: YES|NO|ABSTAIN``
    lines of a comment, for those given; a motion without text, a second other than yes/no and
    a ballot other than YES/NO/ABSTAIN are refused."""
    lines = []
    if motion is not None:
        text = " ".join(motion.split())
        if not text:
            raise BadInput("a motion needs text", "motion")
        lines.append(f"MOTION: {text}")
    if second:
        if second.strip().lower() not in ("yes", "no"):
            raise BadInput(f"a second is yes or no, not {second!r}", "second")
        lines.append(f"SECOND: {second.strip().lower()}")
    if ballot:
        if ballot.strip().upper() not in ("YES", "NO", "ABSTAIN"):
            raise BadInput(f"a ballot is YES, NO or ABSTAIN, not {ballot!r}", "ballot")
        lines.append(f"BALLOT: {ballot.strip().upper()}")
    return "\n".join(lines)


def comment(
    ws: Workspace,
    path: Path,
    author: str | None,
    text: str = "",
    *,
    vote: str | None = None,
    motion: str | None = None,
    second: str | None = None,
    ballot: str | None = None,
) -> Commented:
    """Append `author`'s comment to the discussion at `path` and save it: `text`, then the
    `council_lines`; with those, record the motion results it settled. `author` None signs with
    `default_author` (git's user.name). `EmptyComment` when there is nothing to add."""
    council = council_lines(motion, second, ballot)
    if not text.strip() and vote is None and not council:
        raise EmptyComment("give comment text, a vote, or both")
    if author is None:
        author = default_author()
    d = Discussion.load(path, ws)
    # The author's name is checked against those who spoke as an AI under the file's lock,
    # from the facts the append's own checks read there (one pass over a long file).
    block = comment_block(d, author, text, vote=vote, council=council, spoken_at_save=True)
    d.add_block(block)
    d.save(signed_by=" ".join(author.split()))
    return _told(d, " ".join(author.split()), text, vote, council, bool(second or ballot))


def comment_block(
    d: Discussion,
    author: str,
    text: str = "",
    *,
    vote: str | None = None,
    council: str = "",
    spoken_at_save: bool = False,
) -> str:
    """`author`'s comment as `comment` appends it to `d`: `text`, then the `council_lines`,
    the vote, the time and (when `text` cites the code) the HEAD its citations are read at.
    The language server types the same into a buffer ("Insert my vote"). `InvalidVote` or
    `ReservedName` (`Discussion.comment_block`) for a comment that cannot be written
    (`spoken_at_save`: the AI speakers' names left to `Discussion.save`, as there)."""
    body = text.rstrip("\n") + ("\n\n" if text.strip() else "") + council
    head = _head_if_cited(d, text)
    return d.comment_block(author, body, vote=vote, head=head, spoken_at_save=spoken_at_save)


def _head_if_cited(d: Discussion, text: str) -> str:
    """The repository's HEAD when `text` cites the code (`syntax.citations`): what its
    citations are read at later (`git.grounding`); ``""`` otherwise, and no git runs."""
    from ..syntax.citations import find_citations

    if not find_citations(text):
        return ""
    from ..git.grounding import current_head

    return current_head(d.path.parent)


def _told(
    d: Discussion, author: str, text: str, vote: str | None, council: str, counted: bool
) -> Commented:
    """What the author of the comment just saved to `d` is told; `counted` when it seconds or
    ballots (only a council member's is counted)."""
    results: list[Motion] = []
    note = ""
    if council:
        from ..engine.council.motions import off_council_note, record_results

        results = record_results(d)
        if counted:
            note = off_council_note(d, author)
    # Only this comment's mentions: no need to parse the whole file for them.
    mentioned = [m.alias for m in extract(text).mentions]
    typos = mention_typos(mentioned, set(d.workspace.participants.aliases()))
    upper = vote.upper() if vote else None
    count, problems = last_comment_told(d)
    notices = list(d.notices) + _problems_in_last(problems)
    return Commented(d.path, author, upper, count, results, typos, notices, note)


def _problems_in_last(warnings: list[ParseWarning]) -> list[str]:
    """What `check` would report in the comment just saved (an invalid ``CONFIDENCE:`` or
    ``OUTCOME:``...), as ``line N: why``, of `warnings`, those at its lines
    (`lastcomment.last_comment_told`): said now, not at the next check. A mistyped mention
    is left to `Commented.typos`."""
    return [
        f"line {w.line}: {w.message}"
        for w in warnings
        if w.severity in ("error", "warning") and w.code != "mention-typo"
    ]
