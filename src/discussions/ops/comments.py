"""A person's comment as `discussions comment` posts it: the text and the council lines its
options ask for (``MOTION:``, ``SECOND:``, ``BALLOT:``), appended under the lock, the motion
results it settles recorded, and what to tell the author (mentions that match no participant,
a second or ballot from someone not on the council)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..derive.rules import mention_typos
from ..errors import DiscussionsError
from ..model.discussion import Discussion
from ..settings.workspace import display_path
from ..syntax.markers import extract

if TYPE_CHECKING:
    from ..derive.motions import Motion


@dataclass(slots=True)
class PostedComment:
    """What `post_comment` did."""

    file: Path
    author: str
    vote: str | None
    """The vote as written (upper case); None without one."""
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
        """The object `comment --json` prints."""
        return {
            "file": display_path(self.file),
            "author": self.author,
            "vote": self.vote,
            "motions": [{"line": m.line, "result": m.result} for m in self.motions],
            "unknown_mentions": [{"alias": t, "did_you_mean": c} for t, c in self.typos],
            "notices": list(self.notices),
        }


def council_lines(
    motion: str | None = None, second: str | None = None, ballot: str | None = None
) -> str:
    """The ``MOTION:`` (its text on one line), ``SECOND: yes|no`` and ``BALLOT: YES|NO|ABSTAIN``
    lines of a comment, for those given; a motion without text is refused."""
    lines = []
    if motion is not None:
        text = " ".join(motion.split())
        if not text:
            raise DiscussionsError("a motion needs text")
        lines.append(f"MOTION: {text}")
    if second:
        lines.append(f"SECOND: {second.lower()}")
    if ballot:
        lines.append(f"BALLOT: {ballot.upper()}")
    return "\n".join(lines)


def post_comment(
    d: Discussion,
    author: str,
    body: str = "",
    *,
    vote: str | None = None,
    motion: str | None = None,
    second: str | None = None,
    ballot: str | None = None,
) -> PostedComment:
    """Append `author`'s comment to `d` and save it: `body`, then the `council_lines`. With
    those, record the motion results the comment settled."""
    council = council_lines(motion, second, ballot)
    d.add_comment(author, body.rstrip("\n") + ("\n\n" if body.strip() else "") + council, vote=vote)
    d.save()
    results: list[Motion] = []
    note = ""
    if council:
        from ..engine.council.motions import off_council_note, record_results

        results = record_results(d)
        if second or ballot:
            note = off_council_note(d, author)
    # Only this comment's mentions: no need to parse the whole file.
    mentioned = [m.alias for m in extract(body).mentions]
    typos = mention_typos(mentioned, set(d.workspace.participants.aliases()))
    upper = vote.upper() if vote else None
    return PostedComment(d.path, author, upper, results, typos, list(d.notices), note)
