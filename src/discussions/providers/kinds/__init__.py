"""Provider kinds: how a provider is reached (a command line, a chat-completions server, the
built-in mock), one module each, named in one table.

A providers.yaml entry's ``type:`` names its kind (``command`` when it has none). Each kind's
module has the same few functions and settings (`ProviderKind`), so the registry, the listing
and the windows ask the kind instead of comparing its name. A new kind is one module in this
package (or anywhere importable) and one line in `KINDS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from ...errors import ConfigError

if TYPE_CHECKING:
    from ..base import Provider, ProviderSpec

KINDS: dict[str, str] = {
    "command": ".command",
    "openai-compatible": ".openai_compatible",
    "mock": ".mock",
    "anthropic": ".anthropic",
    "gemini": ".gemini",
}
"""Each kind's name and its module (relative to this package, or absolute), imported when a
provider of the kind is first met."""


@runtime_checkable
class ProviderKind(Protocol):
    """What each kind module defines (functions at module level)."""

    DECLARABLE: bool
    """Whether a providers.yaml entry may name the kind as its ``type:`` (not the mock, which
    is built in)."""
    REQUIRED: tuple[str, ...]
    """The keys an entry of this kind cannot do without (``name`` among them)."""
    SERVER: bool
    """A server, asked for its context window and how many requests it serves at once: what
    it does not say is told before a call (`window.provider_notes`)."""

    def entry_problem(self, item: Mapping[str, Any]) -> tuple[str, str] | None:
        """(key, why) for an entry with its required keys that still cannot be used; `why`
        is a sentence that names the key (the error shows it after the entry's index)."""

    def build(self, spec: ProviderSpec) -> Provider:
        """The provider `spec` defines, ready to answer."""

    def status(self, spec: ProviderSpec) -> str:
        """``installed``, ``missing`` (cannot run here) or ``built in``."""

    def location(self, spec: ProviderSpec) -> tuple[bool, str]:
        """For the listing: whether it is found, and where (an executable, a URL)."""

    def target(self, spec: ProviderSpec) -> str:
        """What a call reaches, for listings and the trust review."""


def kind(name: str) -> ProviderKind:
    """The module of kind `name` (`KINDS`); `ConfigError` for a name not in the table."""
    module = KINDS.get(name)
    if module is None:
        raise ConfigError(f"no provider type {name!r} (known: {', '.join(KINDS)})")
    return cast(ProviderKind, importlib.import_module(module, __name__))


def kind_of(spec: ProviderSpec) -> ProviderKind:
    """The module of the kind `spec` is (its ``type``)."""
    return kind(spec.type)


def declarable() -> tuple[str, ...]:
    """The kinds a providers.yaml entry may name, in table order."""
    return tuple(name for name in KINDS if kind(name).DECLARABLE)
