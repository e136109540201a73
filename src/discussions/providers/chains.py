"""Which providers a participant tries, in order (`participant_chain`, `provider_chain`), and
what to say when none of them is installed (`missing_cli_note`).

A participant tries its ``provider_hint``, ``providers.default``, ``providers.fallback``, except
that the hint of a bundled persona (a shipped default) comes after ``providers.default``; when
none of those is installed, the AI CLIs found on PATH in `DETECT_ORDER` (unless
``providers.detect: false``). ``--provider NAME`` alone when given.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..errors import DiscussionsError, ProviderNotFound
from .base import REPLAY_PREFIX
from .command import split_command
from .presets import DETECT_ORDER

if TYPE_CHECKING:
    from ..settings.config import Config
    from ..settings.participants import Participant
    from .registry import ProviderRegistry


def provider_chain(
    registry: ProviderRegistry,
    *,
    hint: str | None,
    default: str | None,
    fallbacks: Iterable[str] = (),
    forced: str | None = None,
    detect: bool = True,
    default_first: bool = False,
) -> list[str]:
    """Provider names to try for one participant, in order.

    `forced` (``turn --provider``) alone if given. Else the participant's `hint`, then
    ``providers.default`` (before the hint with `default_first`: the hint of a bundled
    persona, see `participant_chain`), then ``providers.fallback``; when none of those is
    installed and
    `detect` is on (``providers.detect``, default true), the AI CLIs installed on PATH follow in
    `DETECT_ORDER`. No name twice. An empty result becomes ``["mock"]``. The runner's own rule
    still applies after the chain: the mock answers when every provider tried was not installed.
    A ``replay:PATH`` name is taken only as `forced`: from settings or a persona (files a
    repository brings) it would read any file on disk into the discussion, so it is left out.
    """
    if forced:
        return [forced]
    chain: list[str] = []
    for name in (default, hint, *fallbacks) if default_first else (hint, default, *fallbacks):
        if name and name not in chain and not name.startswith(REPLAY_PREFIX):
            chain.append(name)
    if detect and not any(registry.installed(name) for name in chain):
        chain.extend(n for n in DETECT_ORDER if n not in chain and registry.installed(n))
    return chain or ["mock"]


def participant_chain(
    registry: ProviderRegistry,
    participant: Participant,
    config: Config | None,
    forced: str | None = None,
) -> list[str]:
    """The providers `participant` tries with `config` (``providers.default``, ``fallback``,
    ``detect``), in order (`provider_chain`): the one rule of turns, leads and `providers list`.

    Settings of the user or the project win over the package's: ``providers.default`` ("the
    provider to try first", as `discussions init` writes it) goes before the hint of a bundled
    persona (the bundled ones all name a Claude model), so a project set to `llm` is not
    preceded call after call by a Claude CLI that is not installed, nor moved to Claude when
    one is installed later. A persona file of the user or the project that names a
    ``provider_hint`` is the more specific setting: its hint goes first. Most specific of all,
    ``providers.personas`` (the provider `discussions init` gave this persona) goes first in
    place of the hint."""
    section = config.section("providers") if config else {}
    assigned = config.persona_providers.get(participant.alias) if config else None
    return provider_chain(
        registry,
        hint=assigned or participant.provider_hint,
        default=config.default_provider if config else None,
        fallbacks=config.fallback_providers if config else (),
        forced=forced,
        detect=bool(section.get("detect", True)),
        default_first=participant.bundled and not assigned,
    )


def check_callable(
    registry: ProviderRegistry,
    chosen: Iterable[Participant],
    config: Config,
    provider: str | None,
) -> None:
    """Refuse, before anything is written, providers that cannot be called: `provider`
    (``--provider``) unknown, untrusted or not installed (`ProviderRegistry.require`);
    without it, when the mock may not stand in (``providers.mock_fallback: false``), a
    participant of `chosen` none of whose providers is installed (`ProviderNotFound`). A call
    that cannot start is a configuration error, never a ``FAILED`` block in the file."""
    if provider:
        registry.require(provider)
        return
    if config.section("providers").get("mock_fallback", True):
        return
    for p in chosen:
        chain = participant_chain(registry, p, config)
        if not any(registry.installed(name) for name in chain):
            raise ProviderNotFound(
                ", ".join(chain),
                f"none of {p.name}'s providers is installed",
                "install one, set providers.default to one you have, or allow the "
                "built-in mock (providers.mock_fallback)",
            )


_INSTALL_HINT = (
    "install Claude Code (`claude`), Codex (`codex`) or Gemini CLI (`gemini`), or set "
    "providers.default in discussions.yaml to one you have (`discussions providers list` "
    "shows them)"
)


def missing_cli_note(registry: ProviderRegistry, tried: Iterable[str]) -> str:
    """One line for a turn in which no provider of the chain was installed, so the built-in
    mock answered: what was missing and what to install or configure."""
    needs: list[str] = []
    for name in dict.fromkeys(tried):
        spec = registry.specs.get(name)
        try:
            argv = split_command(spec.command) if spec and spec.command else []
        except DiscussionsError:
            argv = []
        needs.append(f"{name} needs `{argv[0]}`" if argv else f"{name} is not defined")
    missing = f" ({'; '.join(needs)})" if needs else ""
    return (
        f"No AI CLI is installed{missing}, so the built-in mock provider answers with "
        f"placeholder text: {_INSTALL_HINT}."
    )
