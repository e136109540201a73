"""The rule that derives the minority report (`dissent.Dissent`, see there for what counts),
kept apart from its records so the state can hold them without importing the rule's helpers."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .dissent import Dissent, DissentingVote, OpenConcern
from .positions import own_words
from .restatements import item_key
from .speakers import council_seat

if TYPE_CHECKING:
    from .motions import Motion
    from .state import Comment, Item, State

AGAINST = ("CHANGES", "REJECT")
"""The votes that stand against a proposal."""
AGAINST_BALLOTS = ("NO", "ABSTAIN")
"""The ballots on a passed motion that did not carry it."""
_VOTED = ("VOTE", "BALLOT", "SECOND", "SCORE")
"""Markers that are a position, not a reason."""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_REASON_CHARS = 280
_SENTENCES = 2


def reason(c: Comment) -> str:
    """Comment `c`'s own words (no metadata, engine blocks or marker lines such as ``VOTE:``),
    on one line, cut to its first two sentences (and `_REASON_CHARS` characters); a comment
    of markers only gives its markers' texts (a ``CONCERN:``), its vote or ballot aside."""
    marked = {m.line - c.line - 1 for m in c.markers}  # the body starts under ``Name:``
    body = "\n".join(raw for i, raw in enumerate(c.body.split("\n")) if i not in marked)
    kept = [raw for raw in own_words(body).split("\n") if not raw.lstrip().startswith("<!--")]
    text = " ".join(" ".join(kept).split())
    if not text:
        text = " ".join(" ".join(m.text for m in c.markers if m.kind not in _VOTED).split())
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
