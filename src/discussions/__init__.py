"""discussions: structured discussions between AI personas and humans.

One append-only markdown file per discussion is the single source of truth.

    from discussions import Discussion, Runner

    d = Discussion.load("discussions/feature-x.md")
    print(d.phase, d.votes, d.consensus_result)
"""

from __future__ import annotations

from .syntax.faces import face

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (see __main__)
if TYPE_CHECKING:
    from .derive.voting import ConsensusResult, calculate_consensus
    from .engine.runner import Runner
    from .engine.turn.outcomes import TurnResult
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
        ReservedName,
        TemplateError,
        UnknownParticipant,
        UnknownTemplate,
    )
    from .model.discussion import Comment, Discussion, Item, PendingMention
    from .settings.config import VotingConfig
    from .settings.participants import Participant

__version__ = "0.2.0"

# The face (`syntax.faces`): each public name and its module, loaded on first use, so
# `import discussions` (and the merge driver git runs once per file) stays cheap: not even the
# errors are loaded (the merge driver's fast path raises none of them).
__getattr__, __dir__ = face(
    __name__,
    {
        "ConfigError": "errors",
        "DiscussionExists": "errors",
        "DiscussionNotFound": "errors",
        "DiscussionsError": "errors",
        "InvalidVote": "errors",
        "NotWritable": "errors",
        "ParticipantError": "errors",
        "PhaseError": "errors",
        "ProviderError": "errors",
        "ReservedName": "errors",
        "TemplateError": "errors",
        "UnknownParticipant": "errors",
        "UnknownTemplate": "errors",
        "Comment": "model.discussion",
        "Discussion": "model.discussion",
        "Item": "model.discussion",
        "PendingMention": "model.discussion",
        "Participant": "settings.participants",
        "ConsensusResult": "derive.voting",
        "VotingConfig": "settings.config",
        "calculate_consensus": "derive.voting",
        "Runner": "engine.runner",
        "TurnResult": "engine.turn.outcomes",
    },
)

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
    "ReservedName",
    "Runner",
    "TemplateError",
    "TurnResult",
    "UnknownParticipant",
    "UnknownTemplate",
    "VotingConfig",
    "calculate_consensus",
]
