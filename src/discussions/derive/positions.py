"""Positions round by round, and the flip audit: who held which vote or score in each round,
and which changes of position cite nothing new.

Rounds are the ``ROUND`` blocks of every run, numbered 1, 2, ... in file order; what comes
before the first one is round 0. A participant's position in a round is the vote (``VOTE:``)
or, in a comment without one, the score (``SCORE:``) of its last comment in that round that
gives one.

A flip is a position that differs from the same author's previous position. It cites
something new when the comment's own words (engine blocks and metadata left out) do one of:

* name the author of a comment posted since the previous position (the display name, or
  ``@alias``);
* name an evidence block recorded since: ``EVIDENCE 3``, ``evidence #3``, ``evidence block 3``;
* contain the text of a ``DECISION:`` written since;
* quote a line of a comment posted since by someone else (20 characters or more, compared
  without case, runs of spaces, a leading ``>`` or punctuation at either end).

Otherwise the flip "cites nothing new". Only the file is read.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..syntax.lazyre import Lazy
from ..syntax.markers import parse_score
from ..syntax.record import Record
from .signatures import strip_meta

if TYPE_CHECKING:
    from ..settings.participants import ParticipantRegistry
    from .evidence import Evidence
    from .runlog import RunRecord
    from .state import Comment, Item

ENGINE_LINE = Lazy(r"^[ ]{0,3}<!--[ \t]*[A-Z][A-Z-]*[ \t]*:", re.M)
_EVIDENCE_REF = Lazy(r"\bevidence(?:\s+block)?\s*#?\s*(\d+)\b", re.I)
_QUOTE_CHARS = 20
_QUOTE_MARKS = Lazy(r"^[ \t]*>[ \t]?", re.M)
_ENDS = " .,;:!?\"'*_"


def own_words(body: str) -> str:
    """A comment's own words: no engine metadata line, nothing from the first engine block
    on (a round's block, a stop, a transition appended after it)."""
    if "<!--" not in body:  # neither a metadata line nor an engine block: all its own
        return body
    body = strip_meta(body)
    cut = ENGINE_LINE.search(body) if "<!--" in body else None  # most hold none but the meta
    return body[: cut.start()] if cut else body


def _flat(text: str) -> str:
    return " ".join(text.split()).lower()


class _Stance(Record):
    """One position: a vote or a score, where and in which round."""

    __slots__ = ("author", "value", "line", "round")
    author: str
    value: str
    """``READY``, ``CHANGES``, ``REJECT`` or a score (``"7"``)."""
    line: int
    """The ``Name:`` line of the comment that gives it."""
    round: int

    def __init__(
        self,
        author: str,
        value: str,
        line: int,
        round: int,
    ) -> None:
        self.author = author
        self.value = value
        self.line = line
        self.round = round

    def to_dict(self) -> dict[str, Any]:
        return {"author": self.author, "value": self.value, "line": self.line, "round": self.round}


class _Flip(Record):
    """A change of position, and what it cites that is new (empty: nothing)."""

    __slots__ = ("author", "before", "after", "line", "since", "cites")
    author: str
    before: str
    after: str
    line: int
    since: int
    """The line of the author's previous position."""
    cites: str

    def __init__(
        self,
        author: str,
        before: str,
        after: str,
        line: int,
        since: int,
        cites: str = "",
    ) -> None:
        self.author = author
        self.before = before
        self.after = after
        self.line = line
        self.since = since
        self.cites = cites

    @property
    def unexplained(self) -> bool:
        return not self.cites

    def text(self) -> str:
        """``AI-Pragmatist moved CHANGES -> READY citing nothing new (line 40)``."""
        why = f"citing {self.cites}" if self.cites else "citing nothing new"
        return f"{self.author} moved {self.before} -> {self.after} {why} (line {self.line})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "author": self.author,
            "before": self.before,
            "after": self.after,
            "line": self.line,
            "since": self.since,
            "cites": self.cites,
            "unexplained": self.unexplained,
        }


class Positions(Record):
    """Every position of a discussion, by author and round, and its flips."""

    __slots__ = ("rounds", "grid", "stances", "flips")
    rounds: list[int]
    """The rounds in which someone took a position, in order."""
    grid: dict[str, dict[int, str]]
    """Author (in order of first position) -> round -> the position held at its end."""
    stances: list[_Stance]
    flips: list[_Flip]

    def __init__(
        self,
        rounds: list[int] | None = None,
        grid: dict[str, dict[int, str]] | None = None,
        stances: list[_Stance] | None = None,
        flips: list[_Flip] | None = None,
    ) -> None:
        self.rounds = [] if rounds is None else rounds
        self.grid = {} if grid is None else grid
        self.stances = [] if stances is None else stances
        self.flips = [] if flips is None else flips

    @property
    def unexplained(self) -> list[_Flip]:
        return [f for f in self.flips if f.unexplained]

    def grid_lines(self, last: int | None = None) -> list[str]:
        """One line per author: ``AI-Architect  R1 CHANGES  R2 CHANGES  R3 READY``. With
        `last`, only each author's last `last` rounds, after how many came before them
        (``AI-Architect  (40 earlier rounds)  R41 READY ...``): over hundreds of rounds the whole
        grid is a wall of text (`to_dict` keeps every round)."""
        width = max((len(a) for a in self.grid), default=0)
        lines = []
        for author, row in self.grid.items():
            cells = [f"R{r} {row[r]}" for r in self.rounds if r in row]
            head = f"{author.ljust(width)}  "
            if last is not None and len(cells) > last:
                head += f"({len(cells) - last} earlier rounds)  "
                cells = cells[-last:]
            lines.append(head + "  ".join(cells))
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": list(self.rounds),
            "grid": {a: {str(r): v for r, v in row.items()} for a, row in self.grid.items()},
            "flips": [f.to_dict() for f in self.flips],
            "unexplained_flips": len(self.unexplained),
        }


def _stance_value(c: Comment) -> str | None:
    """The position comment `c` gives: its vote, else its last valid score; None for none."""
    if c.vote:
        return c.vote
    scores = [parse_score(m.text) for m in c.markers if m.kind == "SCORE"]
    valid = [s for s in scores if s is not None]
    return str(valid[-1]) if valid else None


def positions(
    comments: Sequence[Comment],
    round_lines: Sequence[int],
    evidence: Sequence[tuple[int, int]] = (),
    decisions: Sequence[Item] = (),
    aliases: Mapping[str, str] | None = None,
) -> Positions:
    """The positions of `comments` (file order). `round_lines`: the lines of the ``ROUND``
    blocks; `evidence`: (number, line) of the evidence blocks; `decisions`: the ``DECISION:``
    items; `aliases`: author name -> alias, for ``@alias`` citations."""
    marks = sorted(round_lines)
    decisions = sorted(decisions, key=lambda item: item.line)
    decision_lines = [item.line for item in decisions]  # each flip looks only between lines
    out = Positions()
    last: dict[str, tuple[_Stance, int]] = {}
    seen_rounds: set[int] = set()
    for i, c in enumerate(comments):
        value = _stance_value(c)
        if value is None:
            continue
        number = bisect_left(marks, c.line)  # ROUND blocks above the comment
        stance = _Stance(c.author, value, c.line, number)
        out.stances.append(stance)
        out.grid.setdefault(c.author, {})[number] = value
        seen_rounds.add(number)
        before, at = last.get(c.author, (None, 0))
        if before is not None and before.value != value:
            new = [o for o in comments[at + 1 : i] if o.author != c.author]
            made = decisions[
                bisect_right(decision_lines, before.line) : bisect_left(decision_lines, c.line)
            ]
            cites = _cited(c, new, evidence, made, before.line, aliases or {})
            out.flips.append(_Flip(c.author, before.value, value, c.line, before.line, cites))
        last[c.author] = (stance, i)
    out.rounds = sorted(seen_rounds)
    return out


def _cited(
    c: Comment,
    new: Sequence[Comment],
    evidence: Sequence[tuple[int, int]],
    decisions: Sequence[Item],
    since: int,
    aliases: Mapping[str, str],
) -> str:
    """What comment `c` cites of what is new since line `since` (see the module docstring):
    `new` the others' comments since, `decisions` those written since."""
    mentioned = {m.lower() for m in c.mentions}
    words = lowered = ""
    for i, author in enumerate(dict.fromkeys(o.author for o in new)):
        alias = aliases.get(author, "").lower()
        if alias and alias in mentioned:
            return f"{author}'s comment"
        if not i:  # the own words, read once an @alias does not tell (most flips answer one)
            words = own_words(c.body)
            lowered = words.lower()
        # The substring test first: the pattern (a name as a word of its own) only where the
        # name appears at all.
        if author.lower() in lowered and _name_pattern(author).search(words):
            return f"{author}'s comment"
    if not new:
        words = own_words(c.body)
        lowered = words.lower()
    if evidence and "evidence" in lowered:
        fresh = {n for n, line in evidence if since < line < c.line}
        for ref in _EVIDENCE_REF.finditer(words):
            if int(ref.group(1)) in fresh:
                return f"evidence {ref.group(1)}"
    flat = _flat(_QUOTE_MARKS.sub("", words) if ">" in words else words)
    for item in decisions:
        if since < item.line < c.line and _flat(item.text) and _flat(item.text) in flat:
            return f"the decision on line {item.line}"
    for o in new:
        for quoted in _quotable_lines(o.body):
            if quoted in flat:
                return f"a line of {o.author}'s comment"
    return ""


@lru_cache(maxsize=1024)
def _name_pattern(author: str) -> re.Pattern[str]:
    """An author's name as a word of its own (not part of a longer name or an ``@alias``)."""
    return re.compile(rf"(?<![\w@-]){re.escape(author)}(?![\w-])", re.I)


@lru_cache(maxsize=4096)
def _quotable_lines(body: str) -> tuple[str, ...]:
    """The lines of a comment's own words long enough to count as quoted when another
    comment repeats them, flattened (one comment is looked at by every flip after it)."""
    out = []
    for raw in own_words(body).split("\n"):
        quoted = _flat(raw.strip().lstrip(">")).strip(_ENDS)
        if len(quoted) >= _QUOTE_CHARS and not quoted.startswith("<!--"):
            out.append(quoted)
    return tuple(out)


def audit(
    comments: Sequence[Comment],
    runs: Sequence[RunRecord],
    evidence: Sequence[Evidence],
    decisions: Sequence[Item],
    registry: ParticipantRegistry,
) -> Positions:
    """`positions` of a discussion's parts: its comments, runs (their ``ROUND`` blocks),
    evidence blocks, ``DECISION:`` items, and the participants (for their aliases)."""
    aliases = {}
    for author in dict.fromkeys(c.author for c in comments):
        p = registry.for_author(author)
        if p is not None:
            aliases[author] = p.alias
    rounds = [m.line for run in runs for m in run.rounds]
    blocks = [(e.number, e.line) for e in evidence if e.number > 0]
    return positions(comments, rounds, blocks, decisions, aliases)
