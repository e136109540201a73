"""Who leads an apply: the participant whose capabilities best match the decision, through the
first of its providers that has a write mode and is installed here, with the sentence that
says why ("AI-Architect leads: refactoring, architecture").

    choice = choose_lead(participants, handoff, None, registry=runner.providers,
                         chain=runner.provider_chain)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import NoLead
from ..model.handoff import Handoff
from ..providers.base import ProviderSpec
from ..providers.registry import ProviderRegistry, provider_chain
from ..settings.participants import Participant, normalise_alias
from ..settings.workspace import Workspace

TRIGGERS: dict[str, tuple[str, ...]] = {
    "architecture": (
        "architect",
        "design",
        "structure",
        "interface",
        "module",
        "layer",
        "boundary",
        "component",
        "api",
    ),
    "refactoring": (
        "refactor",
        "restructur",
        "rename",
        "extract",
        "cleanup",
        "simplif",
        "split",
        "move",
    ),
    "logic": ("logic", "algorithm", "implement", "compute", "rule", "feature", "function"),
    "debugging": ("bug", "debug", "fix", "crash", "error", "failure", "regression"),
    "testing": ("test", "coverage", "fixture", "assert"),
    "docs": ("doc", "docs", "document", "readme", "guide", "changelog", "tutorial"),
    "ui-ux": (
        "ui",
        "ux",
        "screen",
        "layout",
        "page",
        "button",
        "usabilit",
        "accessib",
        "display",
        "view",
    ),
    "review": ("review", "audit", "check", "verif"),
    "security": (
        "secur",
        "auth",
        "permission",
        "secret",
        "vulnerab",
        "injection",
        "encrypt",
        "trust",
        "sandbox",
        "credential",
    ),
    "planning": ("plan", "roadmap", "milestone", "schedule", "phase", "migrat"),
    "performance": (
        "perform",
        "fast",
        "slow",
        "latency",
        "cache",
        "speed",
        "memory",
        "throughput",
        "benchmark",
        "optimi",
    ),
    "data": ("data", "database", "schema", "sql", "query", "storage", "index", "record"),
    "research": ("research", "investigat", "explor", "compar", "evaluat", "survey"),
}
"""Words of a decision that call for each capability: a word matches a trigger it equals, or
one of four letters or more that it starts with (``refactored`` -> ``refactor``)."""

Chain = Callable[[Participant], list[str]]


@dataclass(slots=True)
class LeadChoice:
    """Who leads, through what, and why."""

    participant: Participant
    provider: ProviderSpec
    """A provider with a write command, installed here."""
    matched: tuple[str, ...]
    """The participant's capabilities the decision calls for, in the persona's order."""
    reason: str
    """One sentence: ``AI-Architect leads: refactoring, architecture``."""


def matched_capabilities(participant: Participant, words: set[str]) -> tuple[str, ...]:
    """`participant`'s capabilities that `words` (a hand-off's words) call for."""
    found: list[str] = []
    for cap in participant.capabilities:
        triggers = (*TRIGGERS.get(cap, ()), *cap.split("-"))
        if any(_hits(word, t) for word in words for t in triggers):
            found.append(cap)
    return tuple(found)


def _hits(word: str, trigger: str) -> bool:
    return (
        word == trigger or word == trigger + "s" or (len(trigger) >= 4 and word.startswith(trigger))
    )


def writing_provider(
    participant: Participant, registry: ProviderRegistry, chain: Chain
) -> ProviderSpec | None:
    """The first of `participant`'s providers that has a write mode installed here."""
    for name in chain(participant):
        if registry.can_write(name):
            return registry.specs[name]
    return None


def default_chain(registry: ProviderRegistry, workspace: Workspace | None = None) -> Chain:
    """A participant's providers as a turn tries them (`Runner.provider_chain`): its hint,
    then the workspace's ``providers.default`` and ``fallback``, then the CLIs found."""
    config = workspace.config if workspace else None
    section = config.section("providers") if config else {}
    return lambda p: provider_chain(
        registry,
        hint=p.provider_hint,
        default=config.default_provider if config else None,
        fallbacks=config.fallback_providers if config else (),
        detect=bool(section.get("detect", True)),
    )


def choose_lead(
    participants: Sequence[Participant],
    handoff: Handoff,
    name: str | None = None,
    *,
    registry: ProviderRegistry,
    chain: Chain | None = None,
) -> LeadChoice:
    """The lead of an apply of `handoff`: `name` (an alias or display name) when given, else
    the participant whose capabilities match the decision best (voting participants first on
    a tie, then the order given) among those with a provider that can write. `NoLead` says
    why nobody can, which providers could, and how to configure one."""
    chain = chain or default_chain(registry)
    words = handoff.words()
    if name:
        return _named(participants, name, words, registry, chain)
    ranked = sorted(
        enumerate(participants),
        key=lambda ip: (-len(matched_capabilities(ip[1], words)), not ip[1].votes, ip[0]),
    )
    for _, p in ranked:
        spec = writing_provider(p, registry, chain)
        if spec is None:
            continue
        matched = matched_capabilities(p, words)
        why = ", ".join(matched) or (
            "no capability matched the decision; the first participant whose provider can write"
        )
        return LeadChoice(p, spec, matched, f"{p.name} leads: {why}")
    raise NoLead(
        "nobody in this discussion can lead: none of "
        f"{', '.join(p.alias for p in participants) or 'its participants'} has a provider "
        f"with a write mode installed here. {how_to_write(registry)}"
    )


def _named(
    participants: Sequence[Participant],
    name: str,
    words: set[str],
    registry: ProviderRegistry,
    chain: Chain,
) -> LeadChoice:
    key = normalise_alias(name)
    found = next(
        (p for p in participants if key in (p.alias, p.name.lower(), normalise_alias(p.name))),
        None,
    )
    if found is None:
        known = ", ".join(p.alias for p in participants) or "none"
        raise NoLead(f"'{name}' is not a participant of this discussion (participants: {known})")
    spec = writing_provider(found, registry, chain)
    if spec is None:
        tried = ", ".join(f"{n} ({_write_status(registry, n)})" for n in chain(found))
        raise NoLead(
            f"{found.name} cannot lead: none of its providers ({tried or 'none'}) has a write "
            f"mode installed here. {how_to_write(registry)}"
        )
    matched = matched_capabilities(found, words)
    reason = f"{found.name} leads (named with --lead)" + (
        f": {', '.join(matched)}" if matched else ""
    )
    return LeadChoice(found, spec, matched, reason)


def _write_status(registry: ProviderRegistry, name: str) -> str:
    spec = registry.specs.get(name)
    if spec is None:
        return registry.status(name)
    if not spec.can_write:
        return "no write mode"
    return "can write" if registry.can_write(name) else "write mode not installed"


def how_to_write(registry: ProviderRegistry) -> str:
    """Which providers could lead, and how to configure one (the end of a `NoLead` message)."""
    writers = [n for n in registry.names() if registry.specs[n].can_write]
    installed = [n for n in writers if registry.can_write(n)]
    listed = ", ".join(f"{n}{' (installed)' if n in installed else ''}" for n in writers)
    return (
        f"Providers with a write mode: {listed or 'none'}. Set a participant's provider_hint "
        "(or providers.default) to one that is installed, give your own provider a "
        "write_command: in providers.yaml, or name a lead with --lead ALIAS"
    )
