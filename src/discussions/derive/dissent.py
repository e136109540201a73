"""The minority report: who stands against where the discussion ended, why, and the concerns
nobody answered. One rule (`rule_dissent`) answers "who dissents and why" for every view (the
ADR, the hand-off, the exports, the decision ledger), so a decision recorded over dissent says
so wherever it is read.

* **Votes.** Each voter whose current vote (`State.votes`: the latest since the last reset) is
  ``CHANGES`` or ``REJECT``; and, for each motion that passed (a decision), each council seat
  whose ballot was ``NO`` or ``ABSTAIN``. The reason is the voter's last comment carrying that
  vote or ballot, its own words without the marker lines, trimmed to two sentences.
* **Concerns.** Each ``CONCERN:`` (restatements folded, `restatements`) never answered. A
  concern is answered when, after it was last said, someone else replies to it: a comment that
  mentions its author (``@alias``) or quotes it (a ``>`` line holding its words); or its author
  votes ``READY`` afterwards (the voice that raised it is satisfied).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .positions import own_words
from .speakers import council_seat

if TYPE_CHECKING:
    from .motions import Motion
    from .state import Comment, Item, State

AGAINST = ("CHANGES", "REJECT")
"""The votes that stand against a proposal."""
AGAINST_BALLOTS = ("NO", "ABSTAIN")
"""The ballots on a passed motion that did not carry it."""
_MARKER_LINE = re.compile(r"^[ \t>*_]*[A-Z][A-Z-]*[*_]*[ \t]*:")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_REASON_CHARS = 280
_SENTENCES = 2


@dataclass(slots=True)
class DissentingVote:
    """A voice against the outcome: its vote (or ballot), its last reason, where."""

    name: str
    vote: str
    """``CHANGES``, ``REJECT``; or, on a passed motion, ``NO`` or ``ABSTAIN``."""
    reason: str
    """The words of the last comment carrying the vote, two sentences at most ("" if none)."""
    line: int
    """The ``Name:`` line of that comment."""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "vote": self.vote, "reason": self.reason, "line": self.line}


@dataclass(slots=True)
class OpenConcern:
    """A ``CONCERN:`` nobody answered."""

    by: str
    text: str
    line: int

    def to_dict(self) -> dict[str, Any]:
        return {"by": self.by, "text": self.text, "line": self.line}


@dataclass(slots=True)
class Dissent:
    """The minority report of a discussion: empty when nobody dissents."""

    votes: list[DissentingVote] = field(default_factory=list)
    concerns: list[OpenConcern] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.votes or self.concerns)

    def headline(self) -> str:
        """One line for where a decision is read: ``Recorded over dissent: REJECT from Bo; 1
        unanswered concern (Cy).``; with concerns alone, ``Recorded with 1 unanswered concern
        (Cy).`` ("" when nobody dissents)."""
        parts = [f"{v.vote} from {v.name}" for v in self.votes]
        if self.concerns:
            who = ", ".join(dict.fromkeys(c.by for c in self.concerns))
            n = len(self.concerns)
            parts.append(f"{n} unanswered concern{'s' if n > 1 else ''} ({who})")
        if not parts:
            return ""
        if not self.votes:
            return f"Recorded with {parts[0]}."
        return "Recorded over dissent: " + "; ".join(parts) + "."

    def lines(self) -> list[str]:
        """The report as markdown list lines, votes then concerns."""
        out = []
        for v in self.votes:
            why = f": {v.reason}" if v.reason else ""
            out.append(f"- {v.name} voted {v.vote} (line {v.line}){why}")
        out += [f"- Unanswered concern from {c.by} (line {c.line}): {c.text}" for c in self.concerns]
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "votes": [v.to_dict() for v in self.votes],
            "concerns": [c.to_dict() for c in self.concerns],
        }


def reason(c: Comment) -> str:
    """Comment `c`'s own words (no metadata, engine blocks or marker lines such as ``VOTE:``),
    on one line, cut to its first two sentences (and `_REASON_CHARS` characters)."""
    kept = [
        raw.strip()
        for raw in own_words(c.body).split("\n")
        if raw.strip() and not _MARKER_LINE.match(raw) and not raw.lstrip().startswith("<!--")
    ]
    text = " ".join(" ".join(kept).split())
    if not text:  # nothing but markers: the markers are the reason
        text = " ".join(" ".join(m.text for m in c.markers if m.kind != "VOTE").split())
    short = " ".join(_SENTENCE_END.split(text)[:_SENTENCES])
    if len(short) > _REASON_CHARS:
        short = short[: _REASON_CHARS - 3].rstrip() + "..."
    return short


def _vote_dissent(s: State) -> list[DissentingVote]:
    """The current CHANGES and REJECT votes, with the comment that last carried each."""
    last: dict[str, Comment] = {}
    for c in s.comments:
        if c.vote and c.line > s.reset_line:
            last[c.author] = c
    return [
        DissentingVote(name, vote, reason(last[name]), last[name].line)
        for name, vote in s.votes.items()
        if vote in AGAINST and name in last
    ]


def _ballot_dissent(s: State, motion: Motion) -> list[DissentingVote]:
    """The NO and ABSTAIN ballots of a passed `motion`, with the comment that carried each."""
    seats = list(motion.ballots)
    last: dict[str, Comment] = {}
    lines = set(motion.ballot_lines)
    for c in s.comments:
        seat = council_seat(c.author, seats)
        if seat and any(m.kind == "BALLOT" and m.line in lines for m in c.markers):
            last[seat] = c
    return [
        DissentingVote(seat, ballot, reason(last[seat]), last[seat].line)
        for seat, ballot in motion.ballots.items()
        if ballot in AGAINST_BALLOTS and seat in last
    ]


def _answered(s: State, concern: Item) -> bool:
    """Whether someone replied to `concern` after it was last said (see the module)."""
    from .restatements import item_key  # here: restatements reads the state, which holds us

    said = [concern.author, *(r.author for r in concern.restated)]
    since = max([concern.line, *(r.line for r in concern.restated)])
    aliases = {a for who in said for a in s.registry.author_aliases(who)}
    words = item_key(concern.text)
    for c in s.comments:
        if c.line <= since:
            continue
        if c.author in said:
            if c.vote == "READY" and c.author == concern.author:
                return True
            continue
        if aliases.intersection(c.mentions) or (words and _quotes(c, words)):
            return True
    return False


def _quotes(c: Comment, words: str) -> bool:
    """Whether comment `c` quotes (a ``>`` line) text holding `words`."""
    from .restatements import item_key

    quoted = [raw.lstrip()[1:] for raw in c.body.split("\n") if raw.lstrip().startswith(">")]
    return bool(quoted) and words in item_key(" ".join(quoted))


def rule_dissent(s: State) -> None:
    """`State.dissent`: the votes against at the end, NO and ABSTAIN ballots on passed
    motions, and the concerns nobody answered; after the votes, motions and restatements."""
    votes = _vote_dissent(s)
    for motion in s.motions:
        if motion.result == "passed":
            votes += _ballot_dissent(s, motion)
    concerns = [
        OpenConcern(item.author, " ".join(item.text.split()), item.line)
        for item in s.items["CONCERN"]
        if not _answered(s, item)
    ]
    s.dissent = Dissent(votes, concerns)
