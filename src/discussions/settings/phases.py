"""`Phase`: one stage of a discussion, as a template defines it (`templates` reads it)."""

from __future__ import annotations

from typing import Any

from ..syntax.record import Record
from .graph import Fallback, Transition


class Phase(Record):
    """One stage of a discussion. (A slotted `Record`, as `Template`.)"""

    __slots__ = (
        "id", "title", "instructions", "voting_mode", "auto_trigger", "next", "max_rounds",
        "consensus_mode", "score_threshold", "transitions", "fallback", "blind", "anonymous",
        "diagnosis", "majority_threshold", "abstain_counts_as_no", "flip_threshold",
    )  # fmt: skip

    id: str
    """Identifier written in the file."""
    title: str
    """Human-readable name."""
    instructions: str
    """What participants should focus on."""
    voting_mode: bool
    """Whether votes are asked for in this phase."""
    auto_trigger: str | None
    """Condition for automatic advancement: ``all_mentioned_responded``, ``consensus`` or None."""
    next: str | None
    """The phase that follows (None: terminal)."""
    max_rounds: int | None
    """Rounds `discussions run` spends in this phase before it moves on or escalates."""
    consensus_mode: str
    """How consensus is reached here: ``votes`` (READY/CHANGES/REJECT), ``score``, or
    ``vote_first`` (votes, the first ballot sealed: `model.verdicts`)."""
    score_threshold: int
    """In ``score`` mode, the score (0-10) every expected participant must give."""
    transitions: list[Transition]
    """Where `discussions run` goes from here, and when (see `graph`)."""
    fallback: Fallback | None
    """What `discussions run` does when ``max_rounds`` are used up and no transition fired."""
    blind: bool
    """Participants see the context and their own answers, none of the other participants'."""
    anonymous: bool
    """Other authors reach the prompt as "Participant A/B/C", never by name."""
    diagnosis: bool
    """Participants give ``ROOT-CAUSE:`` and ``CONFIDENCE:`` (see `diagnosis`)."""
    majority_threshold: float
    """A motion passes when its YES ballots are strictly more than this share (`council`)."""
    abstain_counts_as_no: bool
    """Whether an ABSTAIN ballot counts against a motion (else it is left out of the count)."""
    flip_threshold: int | None
    """Anonymous from when more than this many flips cite nothing new (`model.verdicts`)."""

    def __init__(
        self,
        id: str,
        title: str,
        instructions: str = "",
        voting_mode: bool = False,
        auto_trigger: str | None = None,
        next: str | None = None,
        max_rounds: int | None = None,
        consensus_mode: str = "votes",
        score_threshold: int = 9,
        transitions: list[Transition] | None = None,
        fallback: Fallback | None = None,
        blind: bool = False,
        anonymous: bool = False,
        diagnosis: bool = False,
        majority_threshold: float = 0.5,
        abstain_counts_as_no: bool = False,
        flip_threshold: int | None = None,
    ) -> None:
        self.id = id
        self.title = title
        self.instructions = instructions
        self.voting_mode = voting_mode
        self.auto_trigger = auto_trigger
        self.next = next
        self.max_rounds = max_rounds
        self.consensus_mode = consensus_mode
        self.score_threshold = score_threshold
        self.transitions = [] if transitions is None else transitions
        self.fallback = fallback
        self.blind = blind
        self.anonymous = anonymous
        self.diagnosis = diagnosis
        self.majority_threshold = majority_threshold
        self.abstain_counts_as_no = abstain_counts_as_no
        self.flip_threshold = flip_threshold

    def replaced(self, **changes: Any) -> Phase:
        """This phase with `changes` (fields by name), as `dataclasses.replace` made one."""
        return Phase(**{**{n: getattr(self, n) for n in self.__slots__}, **changes})

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "instructions": self.instructions,
            "voting_mode": self.voting_mode,
            "auto_trigger": self.auto_trigger,
            "next": self.next,
            "max_rounds": self.max_rounds,
            "consensus_mode": self.consensus_mode,
            "score_threshold": self.score_threshold,
            "transitions": [t.to_dict() for t in self.transitions],
            "fallback": self.fallback.to_dict() if self.fallback else None,
            "blind": self.blind,
            "anonymous": self.anonymous,
            "diagnosis": self.diagnosis,
            "majority_threshold": self.majority_threshold,
            "abstain_counts_as_no": self.abstain_counts_as_no,
            "flip_threshold": self.flip_threshold,
        }
