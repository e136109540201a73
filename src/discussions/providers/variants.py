"""A provider asked with another model than the one it is configured with, for one command
(`discussions retrial --model`): a copy of its definition under a name of its own
(``local@qwen3-8b``), added to the registry for this process only; providers.yaml is not
changed.

Only a provider that sends the model with each request can be pointed at another one: an
``openai-compatible`` server, or the Anthropic or Gemini API (their ``model``). A command's
model is part of its command line, written in one of many CLIs' own ways, so it is not
rewritten: such a provider is refused, with how to define one entry per model instead.
"""

from __future__ import annotations

from ..errors import BadInput
from .registry import ProviderRegistry

_MODELLED = ("openai-compatible", "anthropic", "gemini")
"""The kinds of provider whose model each request names (`ProviderSpec.model`)."""


def model_variant(registry: ProviderRegistry, name: str, model: str) -> str:
    """The name under which `registry` now holds provider `name` asking for `model`
    (``name@model``); `name` itself when `model` is empty. `UnknownProvider` for an unknown
    `name` (`ProviderRegistry.get`), `BadInput` (``--model``) for one that cannot change
    model."""
    model = model.strip()
    if not model:
        return name
    registry.get(name)  # unknown or untrusted: said as for any provider
    spec = registry.specs[name]
    if spec.type not in _MODELLED:
        raise BadInput(
            f"provider '{name}' (type {spec.type}) has its model set where it is defined, "
            "not per call. Define one providers.yaml entry per model (command: "
            '"claude -p --model opus", name: claude-opus) and name that one, or use an '
            "openai-compatible, anthropic or gemini provider",
            "model",
        )
    variant = f"{name}@{model}"
    registry.specs[variant] = spec.replaced(name=variant, model=model)
    return variant
