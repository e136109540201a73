"""Every error `discussions` raises on purpose.

    DiscussionsError
    ├── DiscussionNotFound      the discussion file does not exist
    ├── NotADiscussion          the file is not a discussion (binary, empty, a README...)
    ├── DiscussionExists        `new` would overwrite an existing file
    ├── NotWritable             a write was refused: not a discussion, unresolved merge
    │                           conflict, a link out of the project, read-only, torn
    ├── Busy                    a turn or run is already going on in that discussion
    ├── OverBudget              the next calls would go past the budget (none was made)
    ├── InvalidVote             a vote value other than READY / CHANGES / REJECT
    ├── BadInput                an act's input the caller can correct (names the field)
    │   └── EmptyComment        a person's comment with nothing to add
    ├── ReservedName            a person tried to sign with a participant's name
    ├── PhaseError              unknown phase, or no next phase to advance to
    ├── NotDecided              an apply asked of a discussion that decided nothing
    ├── NoLead                  nobody can lead an apply (no provider with a write mode)
    ├── ConfigError             a configuration file is unreadable or invalid
    │   ├── ParticipantError    a persona YAML file is invalid
    │   └── TemplateError       a template YAML file is invalid
    ├── UnknownParticipant      an alias nobody defines
    ├── UnknownTemplate         a template name nobody defines
    ├── ApplyError              an apply cannot start or go on: no commit to start from, no
    │                           git identity, the branch exists already
    └── ProviderError           an AI provider did not give a usable answer
        ├── ProviderNotFound    its executable is not installed / not on PATH
        ├── ProviderTimeout     it ran past its timeout and was killed
        ├── ProviderFailed      it exited non-zero
        ├── ProviderOutputError empty, non-UTF-8 or oversized output
        ├── UnknownProvider     no provider of that name is configured
        └── UntrustedProvider   defined by a project the user has not trusted

Messages are written for the person at the terminal: they say what went wrong and,
where there is one, what to do next.
"""

from __future__ import annotations


class DiscussionsError(Exception):
    """Base class of every error raised on purpose by `discussions`."""


class DiscussionNotFound(DiscussionsError):
    pass


class DiscussionExists(DiscussionsError):
    pass


class DocumentExists(DiscussionsError):
    """An approved document would replace a file that is already there (use --force)."""


class NotADiscussion(DiscussionsError):
    """A file named as a discussion exists but is not one: a binary, an empty file, a README
    (see `storage.discussion_problem`)."""


class NotWritable(DiscussionsError):
    """The engine refuses to append to this file; the file is left untouched."""


class Busy(DiscussionsError):
    """A server refuses a second turn or run on a discussion while one is going on."""


class OverBudget(DiscussionsError):
    """The next calls would go past the budget (`budget.Budget`); none of them was made."""


class InvalidVote(DiscussionsError):
    pass


class BadInput(DiscussionsError):
    """An act's input that its caller can correct (a motion without text, an open status given
    to close, a path where a file name goes). `field` names the input, as the act's parameter
    and the CLI's option are named: the CLI reports it as a usage error on ``--field``."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class EmptyComment(BadInput):
    """A person's comment with nothing in it: no text, vote, motion, second or ballot (an
    interface may name its own way of giving them, as the CLI's usage error does)."""


class ReservedName(DiscussionsError):
    """A person's comment was signed with a participant's name (see `speakers`)."""


class PhaseError(DiscussionsError):
    pass


class NotDecided(DiscussionsError):
    pass


class NoLead(DiscussionsError):
    pass


class WindowTooSmall(DiscussionsError):
    """A participant's model cannot take even the smallest prompt it would be sent."""


class ConfigError(DiscussionsError):
    pass


class ParticipantError(ConfigError):
    pass


class TemplateError(ConfigError):
    pass


class UnknownParticipant(DiscussionsError):
    pass


class UnknownTemplate(DiscussionsError):
    pass


class ApplyError(DiscussionsError):
    """An apply (a lead making a decided change in a worktree) cannot start or go on; the
    message says what to do."""


class ProviderError(DiscussionsError):
    """A provider gave no usable answer. `provider` names it; `reason` is one short line."""

    def __init__(self, provider: str, reason: str, detail: str = "") -> None:
        self.provider = provider
        self.reason = reason
        self.detail = detail
        message = f"{provider}: {reason}"
        if detail:
            message += f" ({detail})"
        super().__init__(message)


class ProviderNotFound(ProviderError):
    pass


class ProviderTimeout(ProviderError):
    pass


class ProviderFailed(ProviderError):
    pass


class ProviderOutputError(ProviderError):
    pass


class UnknownProvider(ProviderError):
    pass


class UntrustedProvider(ProviderError):
    pass


NOT_A_CALL = ("not installed", "no provider of that name", "cannot run")
"""How the reason of a provider error starts when the provider never ran (a missing
executable, an unknown name): no call was made, so none is recorded or counted."""
