"""The provider names the settings give (``providers.default``, ``providers.fallback``,
``providers.personas``) that no provider or preset defines: `discussions check` reports each at
its line in the file that sets it, as it reports a misspelt settings key, so a typo is found
before a turn quietly falls through to the next provider of the chain."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..settings.config import Config, FileProblem, load_yaml_document
from .base import REPLAY_PREFIX
from .registry import ProviderRegistry


def undefined_provider_names(config: Config, registry: ProviderRegistry) -> list[FileProblem]:
    """Each provider name of `config`'s files that `registry` does not define (an untrusted
    project definition counts as defined: `discussions trust` is the fix there, and the turn
    says so), with the file and the line that name it."""
    found: list[FileProblem] = []
    for path, data in config.settings.items():
        section = data.get("providers") if isinstance(data, dict) else None
        if not isinstance(section, dict):
            continue
        for keys, name in _names(section):
            if not _defined(name, registry):
                found.append(_problem(path, keys, name))
    return found


def _names(section: dict[str, Any]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(key path under ``providers``, name) of every provider name the section gives."""
    if isinstance(section.get("default"), str):
        yield ("default",), section["default"]
    fallback = section.get("fallback")
    for i, name in enumerate(fallback if isinstance(fallback, list) else []):
        if isinstance(name, str):
            yield ("fallback", i), name
    personas = section.get("personas")
    for alias, name in (personas if isinstance(personas, dict) else {}).items():
        if isinstance(name, str):
            yield ("personas", str(alias)), name


def _defined(name: str, registry: ProviderRegistry) -> bool:
    """Whether `name` is a provider here: defined, withheld untrusted, or a recording."""
    return name in registry.specs or name in registry.untrusted or name.startswith(REPLAY_PREFIX)


def _problem(path: Path, keys: tuple[str | int, ...], name: str) -> FileProblem:
    """The problem of `name`, at the line of ``providers`` + `keys` in `path`."""
    line = load_yaml_document(path).line("providers", *keys)
    where = ".".join(["providers", *(str(k) for k in keys if isinstance(k, str))])
    return FileProblem(
        path,
        line,
        f"{where}: no provider named '{name}' (`discussions providers list` shows them; "
        "providers.yaml defines more)",
    )
