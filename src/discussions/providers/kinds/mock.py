"""The ``mock`` kind: the built-in mock (`providers.mock`), deterministic and instant, for
tests and demonstrations. Built in only: no providers.yaml entry can be one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import Provider, ProviderSpec

DECLARABLE = False
REQUIRED = ("name",)
SERVER = False


def entry_problem(item: Mapping[str, Any]) -> tuple[str, str] | None:
    """Never declared, so never checked."""
    return None


def build(spec: ProviderSpec) -> Provider:
    """The mock (loaded only when it answers)."""
    from ..mock import MockProvider

    return MockProvider()


def status(spec: ProviderSpec) -> str:
    """Always ``built in``."""
    return "built in"


def location(spec: ProviderSpec) -> tuple[bool, str]:
    """Built in."""
    return True, "built in"


def target(spec: ProviderSpec) -> str:
    """Built in."""
    return "(built in)"
