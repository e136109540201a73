"""AI providers: commands run as subprocesses (prompt on stdin), and the built-in mock."""

from .base import Provider, ProviderRequest, ProviderSpec
from .command import CommandProvider, split_command
from .mock import MOCK_BANNER, MockProvider
from .registry import PRESETS, ProviderRegistry

__all__ = [
    "MOCK_BANNER",
    "PRESETS",
    "CommandProvider",
    "MockProvider",
    "Provider",
    "ProviderRegistry",
    "ProviderRequest",
    "ProviderSpec",
    "split_command",
]
