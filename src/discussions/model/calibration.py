"""Calibration: how the council's votes compare with how its decisions turned out, across a
folder of discussions (docs/outcomes.md defines every number).

Only discussions judged by a person count (an ``OUTCOME:`` line, the latest one:
`derive.outcomes`); the verdict becomes how right the decision was, ``o``: 1 right, 0.5
partly, 0 wrong. Each voter's final vote there (its latest in the last phase, with the
provider, model and ``CONFIDENCE`` it was given with: `derive.quorum`) either backs the
decision or not. The decision is the side most final votes took: READY on one side, CHANGES
and REJECT on the other (a tie counts as READY: the proposal was taken). So:

* agreement of one vote: ``o`` when it backed the decision, ``1 - o`` when it did not;
* its probability that the decision is right: ``c / 10`` for confidence ``c`` when it
  backed the decision, ``1 - c / 10`` when it did not; Brier score: the mean of
  ``(p - o)^2`` over the votes that gave a confidence (0 best, 0.25 what 0.5 always gets);
* the debate delta judged: in a ``vote_first`` phase whose debate changed the first ballot's
  majority (`verdicts.debate_delta`), the first ballot's majority is scored as a vote is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..derive.outcomes import VERDICTS, latest
from ..derive.quorum import VoteSource
from ..errors import DiscussionNotFound, DiscussionsError
from ..settings.workspace import Workspace
from ..syntax.parse import is_discussion_text
from .discussion import Discussion
from .folder import discussion_candidates
from .verdicts import debate_delta, majority

_FOR = "READY"
"""The vote that backs a proposal; CHANGES and REJECT are against it."""


@dataclass(slots=True)
class Score:
    """The votes of one persona (or provider) on judged decisions, and how they fared."""

    name: str
    votes: int = 0
    """Final votes on judged decisions."""
    agreed: float = 0.0
    """The sum of their agreement with the outcome (a partly counts half)."""
    confident: int = 0
    """Votes that gave a ``CONFIDENCE``."""
    squared: float = 0.0
    """The sum of ``(p - o)^2`` over those."""

    @property
    def agreement(self) -> float | None:
        return self.agreed / self.votes if self.votes else None

    @property
    def brier(self) -> float | None:
        return self.squared / self.confident if self.confident else None

    def add(self, backs: bool, o: float, confidence: int | None) -> None:
        self.votes += 1
        self.agreed += o if backs else 1 - o
        if confidence is not None:
            p = confidence / 10 if backs else 1 - confidence / 10
            self.confident += 1
            self.squared += (p - o) ** 2

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "votes": self.votes,
            "agreed": _round(self.agreed),
            "agreement": _round(self.agreement),
            "with_confidence": self.confident,
            "brier": _round(self.brier),
        }


@dataclass(slots=True)
class Judged:
    """One judged discussion, as calibration read it."""

    file: Path
    verdict: str
    decision: str
    """``READY`` when the final votes took the proposal, else ``against``."""
    overturned: bool = False
    first_right: float = 0.0
    """How right the overturned first ballot's majority was (0 when not overturned)."""
    debate_right: float = 0.0
    """How right the majority the debate ended with was (0 when not overturned)."""


@dataclass(slots=True)
class Calibration:
    """What `calibrate` found in one folder."""

    folder: Path
    discussions: int = 0
    judged: list[Judged] = field(default_factory=list)
    personas: dict[str, Score] = field(default_factory=dict)
    providers: dict[str, Score] = field(default_factory=dict)

    @property
    def overturned(self) -> list[Judged]:
        return [j for j in self.judged if j.overturned]

    def debate(self) -> dict[str, Any]:
        """The debate delta judged: first-ballot majorities the debate overturned, and how
        right they and the debate's majorities turned out (sums: a partly counts half)."""
        turned = self.overturned
        first = sum(j.first_right for j in turned)
        return {
            "overturned": len(turned),
            "first_ballot_right": _round(first),
            "debate_right": _round(sum(j.debate_right for j in turned)),
            "first_ballot_rate": _round(first / len(turned)) if turned else None,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "folder": str(self.folder),
            "discussions": self.discussions,
            "judged": len(self.judged),
            "verdicts": {v: sum(1 for j in self.judged if j.verdict == v) for v in VERDICTS},
            "personas": [s.to_dict() for s in _ranked(self.personas.values())],
            "providers": [s.to_dict() for s in _ranked(self.providers.values())],
            "debate": self.debate(),
            "files": [
                {"file": str(j.file), "verdict": j.verdict, "overturned": j.overturned}
                for j in self.judged
            ],
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _ranked(scores: Iterable[Score]) -> list[Score]:
    return sorted(scores, key=lambda s: (-s.votes, s.name))


def calibrate(ws: Workspace, folder: Path | None = None) -> Calibration:
    """Score the votes of the judged discussions in `folder` (default: the discussions
    folder, ``output.directory``). `DiscussionNotFound` when it is not a folder."""
    where = Path(folder) if folder is not None else ws.config.output_directory
    if not where.is_dir():
        raise DiscussionNotFound(f"no discussions folder at {where}")
    found = Calibration(where)
    for path in discussion_candidates(where):
        try:
            d = Discussion.load(path, ws)
            if not is_discussion_text(d.text):
                continue
            found.discussions += 1
            if "OUTCOME" in d.text:
                _score(found, d)
        except DiscussionsError:
            continue  # unreadable: `discussions check` says why
    return found


def _score(found: Calibration, d: Discussion) -> None:
    """Add discussion `d`'s votes to `found`, when a person judged it."""
    outcome = latest(d.outcomes)
    if outcome is None:
        return
    o = outcome.value
    sources = list(d.vote_sources.values())
    decision = _decision(v.vote for v in sources)
    judged = Judged(d.path, outcome.verdict, decision)
    for v in sources:
        _add(found.personas, _persona(d, v), v.vote, decision, o, v.confidence)
        if v.provider:
            _add(found.providers, _provider(v), v.vote, decision, o, v.confidence)
    delta = debate_delta(d)
    first = delta.first_majority if delta is not None and delta.changed else None
    if delta is not None and first in ("READY", "CHANGES", "REJECT"):
        judged.overturned = True
        judged.first_right = _agreement(first, decision, o)
        judged.debate_right = _agreement(delta.final_majority, decision, o)
    found.judged.append(judged)


def _agreement(vote: str | None, decision: str, o: float) -> float:
    """How right `vote` turned out: `o` when it is on the decision's side, else ``1 - o``."""
    return o if _side(vote) == decision else 1 - o


def _side(vote: str | None) -> str:
    return _FOR if vote == _FOR else "against"


def _decision(votes: Iterable[str]) -> str:
    """The side most final votes took (`_FOR` on a tie, or without votes)."""
    sides = [_side(v) for v in votes]
    top = majority({str(i): s for i, s in enumerate(sides)})
    return "against" if top == "against" else _FOR


def _add(
    table: dict[str, Score], name: str, vote: str, decision: str, o: float, c: int | None
) -> None:
    table.setdefault(name, Score(name)).add(_side(vote) == decision, o, c)


def _persona(d: Discussion, v: VoteSource) -> str:
    """A participant's alias, or a person's name."""
    p = d.workspace.participants.for_author(v.voter)
    return p.alias if p is not None else v.voter


def _provider(v: VoteSource) -> str:
    """``claude``, or ``claude (model opus)`` when the CLI reported the model."""
    return v.provider + (f" (model {v.model})" if v.model else "")
