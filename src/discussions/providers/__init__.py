"""AI providers: commands run as subprocesses (prompt on stdin), and the built-in mock."""

from .base import Provider, ProviderRequest, ProviderSpec
from .command import CommandProvider, split_command
from .mock import MOCK_BANNER, MockProvider
from .presets import DETECT_ORDER, PRESETS
from .registry import ProviderRegistry, provider_chain

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
