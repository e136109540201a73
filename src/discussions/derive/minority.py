"""The rule that derives the minority report (`dissent.Dissent`, see there for what counts),
kept apart from its records so the state can hold them without importing the rule's helpers."""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from typing import TYPE_CHECKING

from .dissent import Concern, Dissent, DissentingVote
from .positions import own_words
from .restatements import item_key
from .speakers import council_seat

if TYPE_CHECKING:
    from .motions import Motion
    from .state import Comment, Item, State

_AGAINST = ("CHANGES", "REJECT")
"""The votes that stand against a proposal."""
_AGAINST_BALLOTS = ("NO", "ABSTAIN")
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
        if vote in _AGAINST and name in last
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
        if ballot in _AGAINST_BALLOTS and seat in last
    ]


class Replies:
    """What the comments say in reply, read once for all the concerns (each concern then
    looks only at what came after it): who last voted READY where, who mentioned whom where,
    and the words each comment quotes."""

    def __init__(self, comments: list[Comment]) -> None:
        self.ready: dict[str, int] = {}
        """Author -> the line of their latest comment voting READY."""
        self.mentions: dict[str, list[tuple[int, str]]] = {}
        """Alias -> (line, author) of each comment mentioning it, in file order."""
        self.quotes: list[tuple[int, str, str]] = []
        """(line, author, the quoted words: `item_key`) of each comment with ``>`` lines."""
        for c in comments:
            if c.vote == "READY":
                self.ready[c.author] = c.line
            for alias in c.mentions:
                self.mentions.setdefault(alias, []).append((c.line, c.author))
            quoted = [raw.lstrip()[1:] for raw in c.body.split("\n") if raw.lstrip()[:1] == ">"]
            if quoted:
                self.quotes.append((c.line, c.author, item_key(" ".join(quoted))))
        self.quote_lines = [line for line, _, _ in self.quotes]
        # All the quoted words in one string (no key holds a NUL): one search finds a concern's
        # words in every later quote at once.
        # Each key between spaces, so a concern's words match whole words only.
        self.joined = "\0".join(f" {key} " for _, _, key in self.quotes)
        self.starts = list(accumulate((len(key) + 3 for _, _, key in self.quotes), initial=0))

    def _quoted(self, words: str, said: set[str], since: int, until: float) -> bool:
        """Whether someone not in `said` quoted `words` after line `since`, up to `until`."""
        i = bisect_right(self.quote_lines, since)
        while i < len(self.quotes):
            hit = self.joined.find(f" {words} ", self.starts[i])
            if hit < 0:
                return False
            i = bisect_right(self.starts, hit) - 1
            if self.quotes[i][0] > until:
                return False
            if self.quotes[i][1] not in said:
                return True
            i += 1
        return False

    def answer(self, s: State, concern: Item) -> bool:
        """Whether someone replied to `concern` after it was last said (see `dissent`)."""
        since = max([concern.line, *(r.line for r in concern.restated)])
        if self.ready.get(concern.author, 0) > since:
            return True
        return self.replied(s, concern, since)

    def replied(self, s: State, concern: Item, after: int, until: float = float("inf")) -> bool:
        """Whether someone other than those who said `concern` replied to it (mentioned one
        of them, or quoted it) between line `after` (excluded) and `until`: its author's own
        READY is no reply (the contrarian's jumps ask whether anyone answered it)."""
        said = {concern.author, *(r.author for r in concern.restated)}
        aliases = s.registry.author_aliases
        for alias in set().union(*(aliases(who) for who in said)):
            for line, author in reversed(self.mentions.get(alias, ())):
                if line <= after:
                    break
                if line <= until and author not in said:
                    return True
        words = item_key(concern.text)
        return bool(words) and self._quoted(words, said, after, until)


def rule_dissent(s: State) -> None:
    """`State.dissent`: the votes against at the end, NO and ABSTAIN ballots on passed
    motions, and the concerns nobody answered; after the votes, motions and restatements."""
    votes = _vote_dissent(s)
    for motion in s.motions:
        if motion.result == "passed":
            votes += _ballot_dissent(s, motion)
    items = s.items["CONCERN"]
    replies = Replies(s.comments) if items else None
    concerns: list[Concern] = []
    reservations: list[Concern] = []
    for item in items:
        if replies is not None and replies.answer(s, item):
            continue
        found = Concern(item.author, " ".join(item.text.split()), item.line)
        (reservations if _reserved(s, item) else concerns).append(found)
    s.dissent = Dissent(votes, concerns, reservations)


def _reserved(s: State, concern: Item) -> bool:
    """Whether `concern` is its author's reservation: the comment that last said it votes
    READY, and so does its author now (`dissent`, "Reservations")."""
    said = max([(concern.line, concern.author), *((r.line, r.author) for r in concern.restated)])
    line, author = said
    if s.votes.get(author) != "READY":
        return False
    return any(c.line < line <= c.end_line and c.vote == "READY" for c in s.comments)
