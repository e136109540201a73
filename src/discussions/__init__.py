"""discussions: structured discussions between AI personas and humans.

One append-only markdown file per discussion is the single source of truth.

    from discussions import Discussion, Runner

    d = Discussion.load("discussions/feature-x.md")
    print(d.phase, d.votes, d.consensus_result)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    ConfigError,
    DiscussionExists,
    DiscussionNotFound,
    DiscussionsError,
    InvalidVote,
    NotWritable,
    ParticipantError,
    PhaseError,
    ProviderError,
    TemplateError,
    UnknownParticipant,
    UnknownTemplate,
)
from .model import Comment, Discussion, Item, PendingMention
from .participants import Participant
from .voting import ConsensusResult, VotingConfig, calculate_consensus

if TYPE_CHECKING:
    from .runner import Runner, TurnResult

__version__ = "0.1.0"

__all__ = [
    "Comment",
    "ConfigError",
    "ConsensusResult",
    "Discussion",
    "DiscussionExists",
    "DiscussionNotFound",
    "DiscussionsError",
    "InvalidVote",
    "Item",
    "NotWritable",
    "Participant",
    "ParticipantError",
    "PendingMention",
    "PhaseError",
    "ProviderError",
    "Runner",
    "TemplateError",
    "TurnResult",
    "UnknownParticipant",
    "UnknownTemplate",
    "VotingConfig",
    "calculate_consensus",
]


def __getattr__(name: str) -> Any:
    # The runner pulls in subprocess and threading; load it only when asked for.
    if name in ("Runner", "TurnResult"):
        from . import runner

        return getattr(runner, name)
    raise AttributeError(f"module 'discussions' has no attribute {name!r}")
