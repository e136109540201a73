"""The ``anthropic`` kind: Anthropic's Messages API (``POST /v1/messages``) reached over
HTTPS with an API key from a variable or a command (`providers.hosted_apis`). Its modules
load only when one is used."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import Provider, ProviderSpec
from ..endpoints import ANTHROPIC_URL
from . import hosted

DECLARABLE = True
REQUIRED = ("name", "model")
SERVER = False
URL = ANTHROPIC_URL
"""The API's root when the entry names no ``base_url``."""


def entry_problem(item: Mapping[str, Any]) -> tuple[str, str] | None:
    """No way to get the key, or a ``base_url`` the URL rule refuses."""
    return hosted.entry_problem(item)


def build(spec: ProviderSpec) -> Provider:
    """The API's client (http.client is loaded here, when one is used)."""
    from ..hosted_apis import AnthropicProvider

    return AnthropicProvider(spec)


def status(spec: ProviderSpec) -> str:
    """Always ``installed``: configured; whether the key works shows at the call."""
    return hosted.status(spec)


def location(spec: ProviderSpec) -> tuple[bool, str]:
    """Its URL."""
    return hosted.location(spec, URL)


def target(spec: ProviderSpec) -> str:
    """The API, the model and where the key comes from."""
    return hosted.target(spec, URL)
