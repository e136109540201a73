"""The provider interface: one method, a request in, the answer text out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .usage import UNKNOWN, Usage

OUTPUT_FORMATS = ("text", "codex-jsonl", "claude-json")


@dataclass(slots=True)
class ProviderRequest:
    """What a provider is asked."""

    prompt: str
    """The full prompt; goes to the command's standard input."""
    timeout: float = 300.0
    """Seconds before the call is abandoned and its process group killed."""
    timeout_explicit: bool = False
    """The timeout came from the user's command line and overrides the provider's own."""
    participant_name: str = ""
    """Display name of the participant answering (the mock uses it; commands do not)."""
    participant_alias: str = ""
    participant_role: str = ""
    concerns: list[str] = field(default_factory=list)
    wants_vote: bool = False
    """Whether the phase asks this participant for a vote."""
    on_output: Callable[[str], None] | None = None
    """Called with each decoded piece of the answer as it arrives (streaming); None: not asked."""
    file: Path | None = None
    """The discussion the answer is appended to (a replay reads its position there); None
    when the answer is not written into a discussion."""


@dataclass(slots=True)
class ProviderSpec:
    """A provider as configured: a name and a command (or a built-in implementation)."""

    name: str
    command: str | None
    """Command line, split without a shell; ``$VARS`` and ``~`` expanded. None: built in."""
    description: str = ""
    timeout: float | None = None
    """Per-provider timeout in seconds (None: the configured default)."""
    output: str = "text"
    """How to read stdout: ``text``, ``codex-jsonl`` (join the agent_message items) or
    ``claude-json`` (Claude Code's ``--output-format json`` object: result, usage, cost)."""
    env_remove: list[str] = field(default_factory=list)
    """Environment variables removed for the command (claude refuses nested sessions)."""
    nonzero_ok: bool = False
    """Accept a non-empty answer even when the command exits non-zero (gemini does this)."""
    source: str = "builtin"
    """Where it was defined: ``builtin``, ``smarttools``, ``user``, ``project``."""
    context_window: int | None = None
    """The model's context window in tokens, as declared (None: see `window.window_of`)."""


class Provider(ABC):
    """Something that answers prompts."""

    name: str
    is_mock: bool = False

    @abstractmethod
    def complete(self, request: ProviderRequest) -> str:
        """Return the answer text, or raise a `ProviderError` subclass."""


@dataclass(slots=True)
class Completion:
    """An answer and what it cost, as far as the provider reported it."""

    text: str
    usage: Usage = UNKNOWN
    """Reported usage; `UNKNOWN` (all ``None``) when the provider did not say."""


def complete_with_usage(provider: Provider, request: ProviderRequest) -> Completion:
    """`Provider.complete_with_usage` where a provider has it, else its text with unknown
    usage (third-party providers written against `complete` keep working)."""
    method = getattr(provider, "complete_with_usage", None)
    if callable(method):
        result = method(request)
        if isinstance(result, Completion):
            return result
    return Completion(provider.complete(request))
