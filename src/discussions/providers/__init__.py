"""AI providers: commands run as subprocesses (prompt on stdin), and the built-in mock."""

from __future__ import annotations

from ..syntax.faces import face

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from .base import Provider, ProviderRequest, ProviderSpec
    from .chains import provider_chain
    from .command import CommandProvider, split_command
    from .mock import MOCK_BANNER, MockProvider
    from .presets import DETECT_ORDER, PRESETS
    from .registry import ProviderRegistry

# The face (`syntax.faces`): each public name and its module, loaded on first use, so importing
# one submodule (`providers.usage` for a turn's figures) does not load the mock, the presets
# and the registry with it.
__getattr__, __dir__ = face(
    __name__,
    {
        "DETECT_ORDER": "presets",
        "MOCK_BANNER": "mock",
        "PRESETS": "presets",
        "CommandProvider": "command",
        "MockProvider": "mock",
        "Provider": "base",
        "ProviderRegistry": "registry",
        "ProviderRequest": "base",
        "ProviderSpec": "base",
        "provider_chain": "chains",
        "split_command": "command",
    },
)

__all__ = [
    "DETECT_ORDER",
    "MOCK_BANNER",
    "PRESETS",
    "CommandProvider",
    "MockProvider",
    "Provider",
    "ProviderRegistry",
    "ProviderRequest",
    "ProviderSpec",
    "provider_chain",
    "split_command",
]
