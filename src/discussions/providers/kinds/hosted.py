"""What the kinds of hosted APIs reached with a key (``anthropic``, ``gemini``) share: the
entry's rules, its status, where it goes and what the trust review shows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import ProviderSpec


def entry_problem(item: Mapping[str, Any]) -> tuple[str, str] | None:
    """A ``base_url`` the URL rule refuses, or no way to get the key."""
    from ..server_window import url_problem

    if not (item.get("api_key_env") or item.get("api_key_command")):
        return "name", (
            "needs api_key_env (the variable holding the key) or api_key_command (a command "
            "printing it); the key itself never goes into providers.yaml"
        )
    base_url = str(item.get("base_url") or "").strip()
    problem = url_problem(base_url, bool(item.get("allow_plain_http"))) if base_url else None
    return None if problem is None else ("base_url", problem)


def status(spec: ProviderSpec) -> str:
    """Always ``installed``: configured; whether the key works shows at the call."""
    return "installed"


def location(spec: ProviderSpec, default_url: str) -> tuple[bool, str]:
    """Its URL (the API's own unless the entry names another)."""
    return True, spec.base_url or default_url


def target(spec: ProviderSpec, default_url: str) -> str:
    """The API, the model and where the key comes from (never the key)."""
    from ..api_keys import key_source

    return f"{spec.base_url or default_url} (model {spec.model}, key from {key_source(spec)})"
