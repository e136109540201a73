"""The provider interface: one method, a request in, the answer text out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..syntax.record import Record
from .slots import call_slot
from .usage import UNKNOWN, Usage

OUTPUT_FORMATS = (
    "text",
    "codex-jsonl",  # codex exec --json (`usage.codex_usage`, `reports.codex_last_message`)
    "claude-json",  # claude -p --output-format json (`usage.claude_json`)
    "gemini-json",  # gemini -o json (`usage.gemini_json`)
    "qwen-json",  # qwen -o json (`usage.qwen_json`)
    "opencode-json",  # opencode run --format json (`usage.opencode_json`)
    "copilot-json",  # copilot --output-format json (`usage.copilot_json`)
    "llm-usage",  # text, and llm -u's tokens on stderr (`usage.llm_usage`)
)
REPLAY_PREFIX = "replay:"
"""A provider named ``replay:PATH`` answers from a recorded discussion (`replay`)."""
PROMPT_VIA = ("stdin", "argument")


DEFAULT_MAX_ANSWER_CHARS = 16_000
"""Characters of an answer kept; the rest is cut and the cut recorded (`engine.turn.followup`)."""


def max_answer_chars(providers: Mapping[str, object]) -> int:
    """The cap the ``providers:`` settings configure (``max_answer_chars``; 0: no cap). Here,
    with the request that carries it, so a turn starts its calls without loading what reads
    their answers (`engine.turn.followup`)."""
    value = providers.get("max_answer_chars")
    return value if isinstance(value, int) and value >= 0 else DEFAULT_MAX_ANSWER_CHARS


class ProviderRequest(Record):
    """What a provider is asked."""

    __slots__ = (
        "prompt", "timeout", "timeout_explicit", "participant_name", "participant_alias",
        "participant_role", "concerns", "wants_vote", "on_output", "file", "max_answer_chars",
    )  # fmt: skip

    prompt: str
    """The full prompt; goes to the command's standard input."""
    timeout: float
    """Seconds before the call is abandoned and its process group killed."""
    timeout_explicit: bool
    """The timeout came from the user's command line and overrides the provider's own."""
    participant_name: str
    """Display name of the participant answering (the mock uses it; commands do not)."""
    participant_alias: str
    participant_role: str
    concerns: list[str]
    wants_vote: bool
    """Whether the phase asks this participant for a vote."""
    on_output: Callable[[str], None] | None
    """Called with each decoded piece of the answer as it arrives (streaming); None: not asked."""
    file: Path | None
    """The discussion the answer is appended to (a replay reads its position there); None
    when the answer is not written into a discussion."""
    max_answer_chars: int
    """Characters of answer the engine keeps (0: no cap): a command provider stops reading
    (and stops the command) well past it, and passes its ``output_limit`` where it has one."""

    def __init__(
        self,
        prompt: str,
        timeout: float = 300.0,
        timeout_explicit: bool = False,
        participant_name: str = "",
        participant_alias: str = "",
        participant_role: str = "",
        concerns: list[str] | None = None,
        wants_vote: bool = False,
        on_output: Callable[[str], None] | None = None,
        file: Path | None = None,
        max_answer_chars: int = 0,
    ) -> None:
        self.prompt = prompt
        self.timeout = timeout
        self.timeout_explicit = timeout_explicit
        self.participant_name = participant_name
        self.participant_alias = participant_alias
        self.participant_role = participant_role
        self.concerns = [] if concerns is None else concerns
        self.wants_vote = wants_vote
        self.on_output = on_output
        self.file = file
        self.max_answer_chars = max_answer_chars

    def replaced(self, **changes: Any) -> ProviderRequest:
        """This request with `changes` (fields by name), as `dataclasses.replace` made one."""
        return ProviderRequest(**{**{n: getattr(self, n) for n in self.__slots__}, **changes})


class ProviderSpec(Record):
    """A provider as configured: a name and a command (or a built-in implementation)."""

    __slots__ = (
        "name", "command", "description", "timeout", "output", "env_remove", "env", "nonzero_ok",
        "source", "output_limit", "type", "prompt_via", "base_url", "model", "api_key_env",
        "allow_plain_http", "max_tokens", "stream", "context_window", "parallel", "write_command",
        "write_env", "api_key_command", "api_key_ttl",
    )  # fmt: skip

    name: str
    command: str | None
    """Command line, split without a shell; ``$VARS`` and ``~`` expanded. None: built in."""
    description: str
    timeout: float | None
    """Per-provider timeout in seconds (None: the configured default)."""
    output: str
    """How to read stdout: ``text``, ``codex-jsonl`` (join the agent_message items) or
    ``claude-json`` (Claude Code's ``--output-format json`` object: result, usage, cost) or
    ``gemini-json`` (Gemini CLI's ``-o json`` object: response, token counts, error)."""
    env_remove: list[str]
    """Environment variables removed for the command (claude refuses nested sessions)."""
    env: dict[str, str]
    """Environment variables set for the command (after `env_remove`), values taken as they
    are (no ``$VARS`` expansion): how a CLI that is configured through its environment is
    given its read-only settings (opencode's ``OPENCODE_CONFIG_CONTENT``)."""
    nonzero_ok: bool
    """Accept a non-empty answer even when the command exits non-zero (gemini does this)."""
    source: str
    """Where it was defined: ``builtin``, ``smarttools``, ``user``, ``project``."""
    output_limit: str
    """Words appended to the command to limit the answer's length, ``{tokens}`` standing for
    the limit (``-o max_tokens {tokens}`` for `llm` models that take it); empty: none."""
    type: str
    """Its kind (`kinds.KINDS`): ``command`` (a subprocess), ``openai-compatible`` (a
    chat-completions server), ``mock`` (the built-in mock)."""
    prompt_via: str
    """``stdin``, or ``argument``: the prompt as the command's last argument (for CLIs that
    take it no other way; visible to other local users in the process list)."""
    base_url: str
    """``openai-compatible``: the API root, e.g. ``http://127.0.0.1:8080/v1``."""
    model: str
    """``openai-compatible``: the model name sent with each request."""
    api_key_env: str
    """HTTP kinds: the environment variable holding the API key (never the key)."""
    allow_plain_http: bool
    """``openai-compatible``: allow ``http://`` to a host that is not loopback."""
    max_tokens: int | None
    """``openai-compatible``: the answer's token limit sent with each request (None: none)."""
    stream: bool
    """``openai-compatible``: ask for a streamed answer (some servers then report no usage)."""
    context_window: int | None
    """The model's context window in tokens, as configured (None: unknown, or asked of the
    server where it says)."""
    parallel: int | None
    """How many requests the provider serves at once; more calls wait their turn (None: no
    limit, or what a local server says: `openai_compat`)."""
    write_command: str | None
    """The command line that lets the tool change files in its working directory (the lead of
    ``discussions apply``), split and expanded like `command`; the prompt goes the same way
    (`prompt_via`). None: it cannot make changes, so it cannot lead."""
    write_env: dict[str, str]
    """Environment variables set for `write_command` over `env` (a name in both takes this
    value): the write mode's own settings."""
    api_key_command: str | None
    """HTTP kinds: a command printing the API key (`api_keys`); wins over `api_key_env`."""
    api_key_ttl: float | None
    """Seconds a key printed by `api_key_command` is reused (None: `api_keys.DEFAULT_TTL`)."""

    def __init__(
        self,
        name: str,
        command: str | None,
        description: str = "",
        timeout: float | None = None,
        output: str = "text",
        env_remove: list[str] | None = None,
        env: dict[str, str] | None = None,
        nonzero_ok: bool = False,
        source: str = "builtin",
        output_limit: str = "",
        type: str = "command",
        prompt_via: str = "stdin",
        base_url: str = "",
        model: str = "",
        api_key_env: str = "",
        allow_plain_http: bool = False,
        max_tokens: int | None = None,
        stream: bool = True,
        context_window: int | None = None,
        parallel: int | None = None,
        write_command: str | None = None,
        write_env: dict[str, str] | None = None,
        api_key_command: str | None = None,
        api_key_ttl: float | None = None,
    ) -> None:
        self.name = name
        self.command = command
        self.description = description
        self.timeout = timeout
        self.output = output
        self.env_remove = [] if env_remove is None else env_remove
        self.env = {} if env is None else env
        self.nonzero_ok = nonzero_ok
        self.source = source
        self.output_limit = output_limit
        self.type = type
        self.prompt_via = prompt_via
        self.base_url = base_url
        self.model = model
        self.api_key_env = api_key_env
        self.allow_plain_http = allow_plain_http
        self.max_tokens = max_tokens
        self.stream = stream
        self.context_window = context_window
        self.parallel = parallel
        self.write_command = write_command
        self.write_env = {} if write_env is None else write_env
        self.api_key_command = api_key_command
        self.api_key_ttl = api_key_ttl

    def replaced(self, **changes: Any) -> ProviderSpec:
        """This spec with `changes` (fields by name), as `dataclasses.replace` made one."""
        return ProviderSpec(**{**{n: getattr(self, n) for n in self.__slots__}, **changes})

    @property
    def can_write(self) -> bool:
        """Whether this provider has a write mode (can lead an apply)."""
        return bool(self.write_command and self.write_command.strip())


class Provider(ABC):
    """Something that answers prompts."""

    name: str
    is_mock: bool = False
    context_window: int | None = None
    """The model's context window in tokens; None when unknown."""
    parallel: int | None = None
    """How many of its calls may run at once (None: no limit); `slots.call_slot` makes the
    others wait their turn."""

    @property
    def slot_key(self) -> str:
        """What calls share the `parallel` limit: one provider's (a server's are shared by
        every entry that names it)."""
        return self.name

    @abstractmethod
    def complete(self, request: ProviderRequest) -> str:
        """Return the answer text, or raise a `ProviderError` subclass."""


class Completion(Record):
    """An answer and what it cost, as far as the provider reported it.
    (A slotted `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("text", "usage", "stopped", "length_cut")
    text: str
    usage: Usage
    """Reported usage; `UNKNOWN` (all ``None``) when the provider did not say."""
    stopped: bool
    """The command was stopped because its answer ran past the cap (`max_answer_chars`)."""
    length_cut: str
    """The model stopped at its token limit, not at the end of what it meant to say: the
    limit as the record names it (``max_tokens 400``; ``max_tokens`` when the figure is not
    known); empty when the answer ended on its own or the provider does not say."""

    def __init__(
        self, text: str, usage: Usage = UNKNOWN, stopped: bool = False, length_cut: str = ""
    ) -> None:
        self.text = text
        self.usage = usage
        self.stopped = stopped
        self.length_cut = length_cut


def call_timeout(spec: ProviderSpec, request: ProviderRequest) -> float:
    """Seconds a call may take: the command line's ``--timeout`` wins; else the provider's
    own ``timeout``, else the default the request carries."""
    if request.timeout_explicit:
        return request.timeout
    return spec.timeout or request.timeout


def complete_with_usage(provider: Provider, request: ProviderRequest) -> Completion:
    """`Provider.complete_with_usage` where a provider has it, else its text with unknown
    usage (third-party providers written against `complete` keep working). A provider that
    serves only so many calls at once (`Provider.parallel`) gets no more from this process:
    the call waits its turn first (`slots.call_slot`), and its timeout counts from then."""
    with call_slot(provider.name, provider.slot_key, provider.parallel):
        method = getattr(provider, "complete_with_usage", None)
        if callable(method):
            result = method(request)
            if isinstance(result, Completion):
                return result
        return Completion(provider.complete(request))
