"""A model's context window and the prompt that fits in it: the estimate of tokens, the room
kept for the answer, and what a provider says of its window.

* A provider declares its window in ``providers.yaml`` (``context_window:``, in tokens). A
  provider object may also say it (a ``context_window()`` method returning tokens or None,
  for a server that reports its own). A
  command ``ollama run MODEL`` that declares none asks ``ollama show MODEL``: the window is the
  model's ``num_ctx`` parameter when its Modelfile sets one, else ``OLLAMA_CONTEXT_LENGTH``,
  else 2,048 (the smallest default Ollama has shipped), never more than the model's
  ``context length``. Anything else is unknown, and the prompt keeps to ``context.max_chars``.
* A server that does not report its window (llama-cpp-python; some others) is not refused:
  a hosted API does not report it either, and its window is large. The user is told once
  per command, before the first call, how to declare it (`provider_notes`); for
  llama-cpp-python the prompts are meanwhile sized for its default ``n_ctx``, 2,048 tokens.
* Tokens are estimated, never under-counted for ordinary text: one token per three characters
  of ASCII, one per non-ASCII character (tokenisers spend at least that on accents and CJK).
  Real English text runs at about four characters per token, so the estimate leaves a margin.
* Of a window, a quarter (at most 2,048 tokens, at least 64) is kept for the answer; the
  prompt gets the rest (`prompt_tokens`).
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..syntax.lazyre import Lazy
from ..syntax.record import FrozenRecord
from .base import ProviderSpec
from .kinds import kind_of

if TYPE_CHECKING:
    from .registry import ProviderRegistry

_CHARS_PER_TOKEN = 3
"""ASCII characters per token in the estimate (conservative: English averages about 4)."""
_ANSWER_SHARE = 4
"""One part in this many of a window is kept for the answer."""
_ANSWER_MAX = 2_048
_ANSWER_MIN = 64
_OLLAMA_DEFAULT_WINDOW = 2_048
_PROBE_TIMEOUT = 10.0
_SHOW_LENGTH = Lazy(r"^\s*context length\s+(\d+)\s*$", re.M | re.I)
_SHOW_NUM_CTX = Lazy(r"^\s*num_ctx\s+(\d+)\s*$", re.M)


def estimate_tokens(text: str) -> int:
    """Tokens `text` takes at most, for a tokeniser we do not know (module docstring)."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    other = len(text) - ascii_chars
    return -(-ascii_chars // _CHARS_PER_TOKEN) + other


def chars_for_tokens(tokens: int) -> int:
    """About how many characters of ASCII text fit in `tokens` (the estimate's inverse)."""
    return max(0, tokens) * _CHARS_PER_TOKEN


def answer_tokens(window: int) -> int:
    """Tokens of a `window` kept for the answer (an output limit can use the same figure)."""
    return max(_ANSWER_MIN, min(_ANSWER_MAX, window // _ANSWER_SHARE))


def prompt_tokens(window: int) -> int:
    """Tokens of a `window` the prompt may take: what the answer leaves."""
    return max(0, window - answer_tokens(window))


class Window(FrozenRecord):
    """What is known of one provider's context window.
    (A frozen `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("tokens", "source", "provider")
    tokens: int | None
    """The window in tokens; None when unknown."""
    source: str
    """Where it comes from: ``providers.yaml``, ``ollama show MODEL``, ``unknown``..."""
    provider: str
    """The provider it is the window of."""

    def __init__(self, tokens: int | None, source: str, provider: str = "") -> None:
        self._init(tokens, source, provider)


_UNKNOWN_WINDOW = Window(None, "unknown")


def _window_of(spec: ProviderSpec) -> Window:
    """The context window of the provider `spec` defines (module docstring)."""
    if spec.context_window:
        return Window(int(spec.context_window), "providers.yaml", spec.name)
    model = _ollama_model(spec.command or "")
    if model is not None:
        env = os.environ.get("OLLAMA_CONTEXT_LENGTH", "")
        told = _ollama_window(model, env, os.environ.get("PATH", ""))
        return Window(told.tokens, told.source, spec.name)
    return _UNKNOWN_WINDOW


def provider_window(registry: ProviderRegistry, name: str) -> Window:
    """The window of provider `name`: unknown for one that cannot run here (it will not be
    called), the built-in mock and replays."""
    spec = registry.specs.get(name)
    if spec is None or registry.status(name) != "installed":  # not here, or built in
        return _UNKNOWN_WINDOW
    if not spec.context_window:
        provider = registry.get(name)
        told = getattr(provider, "context_window", None)  # a server asked once
        tokens = told() if callable(told) else told
        if isinstance(tokens, int) and tokens > 0:
            source = getattr(provider, "window_source", "reported by the provider")
            return Window(tokens, str(source), name)
    return _window_of(spec)


def provider_notes(registry: ProviderRegistry, name: str) -> str:
    """What the user should know before provider `name` is called, in a sentence or two
    ("" when nothing): that a server does not report its window and how to declare it, and
    that its calls wait their turn on a server that serves one request at a time."""
    spec = registry.specs.get(name)
    if spec is None or not kind_of(spec).SERVER or not registry.installed(name):
        return ""
    notes: list[str] = []
    if spec.context_window is None:
        window = provider_window(registry, name)
        declare = f"declare it as context_window: N (tokens) under {name} in providers.yaml"
        if window.tokens is None:
            notes.append(
                f"{name}: the server does not report its context window, so prompts are not "
                f"sized for it; {declare}."
            )
        elif window.source.startswith("assumed"):
            notes.append(
                f"{name}: the server does not report its context window; prompts are sized "
                f"for {window.tokens:,} tokens ({window.source}); if it runs with another, "
                f"{declare}."
            )
    parallel = getattr(registry.get(name), "parallel", None)
    if parallel:
        notes.append(
            f"{name} serves {parallel} request{'s' if parallel != 1 else ''} at a time: its "
            "calls wait their turn, each timed from its own start."
        )
    return " ".join(notes)


def chain_window(registry: ProviderRegistry, chain: Iterable[str]) -> Window:
    """The smallest known window among the providers of a fallback `chain` that can run."""
    return smallest(provider_window(registry, n) for n in chain)


def smallest(windows: Iterable[Window]) -> Window:
    """The smallest known window of `windows` (a prompt that fits it fits them all)."""
    known = [w for w in windows if w.tokens is not None]
    return min(known, key=lambda w: w.tokens or 0) if known else _UNKNOWN_WINDOW


def _ollama_model(command: str) -> str | None:
    """MODEL of a command ``ollama run MODEL ...``; None for any other command."""
    words = command.split()
    if len(words) >= 3 and os.path.basename(words[0]) == "ollama" and words[1] == "run":
        return None if words[2].startswith("-") else words[2]
    return None


@functools.lru_cache(maxsize=32)
def _ollama_window(model: str, env_length: str, path: str) -> Window:
    """Ask ``ollama show MODEL`` (once per process for each model, setting and PATH)."""
    source = f"ollama show {model}"
    try:
        done = subprocess.run(
            ["ollama", "show", model],
            capture_output=True,
            text=True,
            timeout=_PROBE_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return _UNKNOWN_WINDOW
    if done.returncode != 0:
        return _UNKNOWN_WINDOW
    length = _SHOW_LENGTH.search(done.stdout)
    num_ctx = _SHOW_NUM_CTX.search(done.stdout)
    if num_ctx:
        window = int(num_ctx.group(1))
    elif env_length.strip().isdigit():
        window = int(env_length)
    else:
        window = _OLLAMA_DEFAULT_WINDOW
    if length:
        window = min(window, int(length.group(1)))
    return Window(window, source)
