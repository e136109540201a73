"""The ``openai-compatible`` kind: a chat-completions server (llama.cpp, LM Studio, vLLM,
Ollama, a hosted API) reached over HTTP (`providers.openai_compat`). Configured is installed:
whether the server is up shows at the call. Its modules load only when one is used."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import Provider, ProviderSpec

DECLARABLE = True
REQUIRED = ("name", "base_url", "model")
SERVER = True


def entry_problem(item: Mapping[str, Any]) -> tuple[str, str] | None:
    """A ``base_url`` the URL rule refuses (`server_window.url_problem`)."""
    from ..server_window import url_problem

    problem = url_problem(item["base_url"].strip(), bool(item.get("allow_plain_http")))
    return None if problem is None else ("base_url", problem)


def build(spec: ProviderSpec) -> Provider:
    """The server's client (http.client is loaded here, when one is used)."""
    from ..openai_compat import OpenAICompatibleProvider

    return OpenAICompatibleProvider(spec)


def status(spec: ProviderSpec) -> str:
    """Always ``installed``: configured; whether its server is up shows at the call."""
    return "installed"


def location(spec: ProviderSpec) -> tuple[bool, str]:
    """Its base URL."""
    return True, spec.base_url


def target(spec: ProviderSpec) -> str:
    """The server, the model and the variable whose value is sent as the key."""
    from ..api_keys import key_source

    key = f", key from {key_source(spec)}" if key_source(spec) else ""
    return f"{spec.base_url} (model {spec.model}{key})"
