"""Who leads an apply: the participant whose capabilities best match the decision, through the
first of its providers that has a write mode and is installed here, with the sentence that
says why ("AI-Architect leads: refactoring, architecture").

The rule (`lead_score`): each of a participant's capabilities the decision's words call for
counts one; each of its focus topics (`settings.shape`) they call for adds its weight (0-10).
The highest score leads; on a tie a voting participant before a background one, then the
order the discussion names them in. Words only, no model: the same decision gets the same
lead.

    choice = choose_lead(participants, handoff, None, registry=runner.providers,
                         chain=runner.provider_chain)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...errors import NoLead
from ...model.handoff import Handoff
from ...providers.base import ProviderSpec
from ...providers.chains import participant_chain
from ...providers.registry import ProviderRegistry
from ...settings.participants import Participant, normalise_alias
from ...settings.workspace import Workspace

_TRIGGERS: dict[str, tuple[str, ...]] = {
    "architecture": (
        "architect*",
        "design",
        "structure",
        "interface",
        "module",
        "modular",
        "layer",
        "boundary",
        "boundaries",
        "component",
        "api",
    ),
    "refactoring": (
        "refactor*",
        "restructur*",
        "rename",
        "extract",
        "cleanup",
        "simplif*",
        "split",
        "move",
    ),
    "logic": ("logic", "algorithm", "implement*", "comput*", "rule", "feature", "function*"),
    "debugging": ("bug", "debug", "fix", "crash", "error", "failure", "regression"),
    "testing": ("test", "coverage", "fixture", "assert*"),
    "docs": ("doc", "document*", "readme", "guide", "changelog", "tutorial"),
    "ui-ux": (
        "ui",
        "ux",
        "screen",
        "layout",
        "page",
        "button",
        "usabilit*",
        "accessib*",
        "display",
        "view",
    ),
    "review": ("review", "audit", "check", "verif*"),
    "security": (
        "secur*",
        "auth",
        "authenticat*",
        "authoriz*",
        "authoris*",
        "login",
        "password",
        "permission",
        "secret",
        "vulnerab*",
        "injection",
        "encrypt*",
        "trust",
        "sandbox",
        "credential",
    ),
    "planning": (
        "plan",
        "planning",
        "planned",
        "roadmap",
        "milestone",
        "schedule",
        "phase",
        "migrat*",
    ),
    "performance": (
        "perform*",
        "fast",
        "slow",
        "latency",
        "cache",
        "caching",
        "speed",
        "memory",
        "throughput",
        "benchmark",
        "optimi*",
    ),
    "data": ("data", "database", "schema", "sql", "query", "queries", "storage", "index", "record"),
    "research": ("research", "investigat*", "explor*", "compar*", "evaluat*", "survey"),
}
"""Words of a decision that call for each capability. A trigger ending in ``*`` is a stem:
any word starting with it (``refactored`` -> ``refactor*``); any other trigger matches
itself and its inflections (`forms`: ``tests``, ``tested``, ``testing``), never a longer
word that merely starts with its letters (``author`` is not ``auth``)."""

_SUFFIXES = ("", "s", "es", "d", "ed", "ing", "er", "ers")


def forms(trigger: str) -> tuple[str, ...]:
    """The words an exact trigger matches: itself and its inflections (``move`` ->
    ``moves``, ``moved``, ``moving``...)."""
    found = [trigger + suffix for suffix in _SUFFIXES]
    if trigger.endswith("e"):
        found.append(trigger[:-1] + "ing")
    return tuple(found)


def _index() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(word form -> capabilities, stem -> capabilities) of `_TRIGGERS` and the capabilities'
    own words."""
    words: dict[str, set[str]] = {}
    stems: dict[str, set[str]] = {}
    for cap, triggers in _TRIGGERS.items():
        for t in (*triggers, *cap.split("-")):
            if t.endswith("*"):
                stems.setdefault(t[:-1], set()).add(cap)
            else:
                for form in forms(t):
                    words.setdefault(form, set()).add(cap)
    return words, stems


_WORD_CAPS, _STEM_CAPS = _index()
_STEM_LENGTHS = sorted({len(s) for s in _STEM_CAPS})


def _called_for(words: set[str]) -> set[str]:
    """The known capabilities `words` call for: each word looked up as a form, and its
    first letters as each stem length (a few dictionary lookups a word)."""
    found: set[str] = set()
    for w in words:
        found |= _WORD_CAPS.get(w, set())
        for n in _STEM_LENGTHS:
            if n > len(w):
                break
            found |= _STEM_CAPS.get(w[:n], set())
    return found


_Chain = Callable[[Participant], list[str]]


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
    """`participant`'s capabilities that `words` (a hand-off's words) call for: a known one
    through `_TRIGGERS`, another through its own words (``ml-ops``: ``ml``, ``ops``)."""
    known = _called_for(words)
    return tuple(
        cap
        for cap in participant.capabilities
        if cap in known
        or (
            cap not in _TRIGGERS and any(f in words for part in cap.split("-") for f in forms(part))
        )
    )


def matched_focus(participant: Participant, words: set[str]) -> tuple[tuple[str, float], ...]:
    """`participant`'s focus topics (`settings.shape`) that `words` call for, with their
    weights, heaviest first: a topic is called for as a capability is (`matched_capabilities`:
    a known capability's trigger words, else the topic's own words and their inflections)."""
    known = _called_for(words)
    found = [
        (topic, weight)
        for topic, weight in participant.focus.items()
        if topic in known
        or any(f in words for part in topic.split("-") if part for f in forms(part))
    ]
    return tuple(sorted(found, key=lambda tw: (-tw[1], tw[0])))


def lead_score(participant: Participant, words: set[str]) -> float:
    """How well `participant` fits to lead a decision of `words`: one for each capability the
    decision calls for, plus the weight of each focus topic it calls for (module docstring)."""
    focus = sum(w for _, w in matched_focus(participant, words))
    return len(matched_capabilities(participant, words)) + focus


def _why(participant: Participant, words: set[str]) -> str:
    """What made `participant` the lead: its matched capabilities and focus topics."""
    parts = list(matched_capabilities(participant, words))
    parts += [f"focus {t} {w:g}" for t, w in matched_focus(participant, words)]
    return ", ".join(parts)


def _writing_provider(
    participant: Participant, registry: ProviderRegistry, chain: _Chain
) -> ProviderSpec | None:
    """The first of `participant`'s providers that has a write mode installed here."""
    for name in chain(participant):
        if registry.can_write(name):
            return registry.specs[name]
    return None


def default_chain(
    registry: ProviderRegistry, workspace: Workspace | None = None, forced: str | None = None
) -> _Chain:
    """A participant's providers as a turn tries them (`registry.participant_chain`): only
    `forced` when one was named (``--provider``), as in the turns of a run; one that cannot
    lead is refused first (`refuse_forced`)."""
    if forced:
        refuse_forced(registry, forced)
    config = workspace.config if workspace else None
    return lambda p: participant_chain(registry, p, config, forced)


def refuse_forced(registry: ProviderRegistry, name: str) -> None:
    """Refuse the provider named with ``--provider`` (or the run's, for the King's Choice)
    when it cannot lead: unknown or untrusted, as a run's ``--provider`` is
    (`ProviderRegistry.get`), or without a write mode installed here (`NoLead`, which a dry
    run shows as its plan's problem; only its write command need be installed). Said by its
    name: otherwise every participant's chain came out empty and the refusal spoke of their
    provider_hint."""
    registry.get(name)
    if not registry.can_write(name):
        raise NoLead(
            f"{name} cannot lead: {_write_status(registry, name)} (leave out --provider to "
            f"lead through the participants' own providers). {_how_to_write(registry)}"
        )


def choose_lead(
    participants: Sequence[Participant],
    handoff: Handoff,
    name: str | None = None,
    *,
    registry: ProviderRegistry,
    chain: _Chain | None = None,
) -> LeadChoice:
    """The lead of an apply of `handoff`: `name` (an alias or display name) when given, else
    the participant with the highest `lead_score` (its capabilities and focus weights the
    decision calls for; voting participants first on a tie, then the order given) among those
    with a provider that can write. `NoLead` says
    why nobody can, which providers could, and how to configure one."""
    chain = chain or default_chain(registry)
    words = handoff.words()
    if name:
        return _named(participants, name, words, registry, chain)
    ranked = sorted(
        enumerate(participants),
        key=lambda ip: (-lead_score(ip[1], words), not ip[1].votes, ip[0]),
    )
    for _, p in ranked:
        spec = _writing_provider(p, registry, chain)
        if spec is None:
            continue
        matched = matched_capabilities(p, words)
        why = _why(p, words) or (
            "no capability matched the decision; the first participant whose provider can write"
        )
        return LeadChoice(p, spec, matched, f"{p.name} leads: {why}")
    raise NoLead(
        "nobody in this discussion can lead: none of "
        f"{', '.join(p.alias for p in participants) or 'its participants'} has a provider "
        f"with a write mode installed here. {_how_to_write(registry)}"
    )


def _named(
    participants: Sequence[Participant],
    name: str,
    words: set[str],
    registry: ProviderRegistry,
    chain: _Chain,
) -> LeadChoice:
    key = normalise_alias(name)
    found = next(
        (p for p in participants if key in (p.alias, p.name.lower(), normalise_alias(p.name))),
        None,
    )
    if found is None:
        known = ", ".join(p.alias for p in participants) or "none"
        raise NoLead(f"'{name}' is not a participant of this discussion (participants: {known})")
    spec = _writing_provider(found, registry, chain)
    if spec is None:
        tried = ", ".join(f"{n} ({_write_status(registry, n)})" for n in chain(found))
        others = [
            f"--lead {p.alias}"
            for p in participants
            if p is not found and _writing_provider(p, registry, chain) is not None
        ]
        instead = f" Participants who can lead: {', '.join(others)}." if others else ""
        raise NoLead(
            f"{found.name} cannot lead: none of its providers ({tried or 'none'}) has a write "
            f"mode installed here.{instead} {_how_to_write(registry)}"
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


def _how_to_write(registry: ProviderRegistry) -> str:
    """Which providers could lead, and how to configure one (the end of a `NoLead` message)."""
    writers = [n for n in registry.names() if registry.specs[n].can_write]
    installed = [n for n in writers if registry.can_write(n)]
    listed = ", ".join(f"{n}{' (installed)' if n in installed else ''}" for n in writers)
    return (
        f"Providers with a write mode: {listed or 'none'}. Set a participant's provider_hint "
        "(or providers.default) to one that is installed, or give your own provider a "
        "write_command: in providers.yaml"
    )
