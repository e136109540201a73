"""The provider part of `discussions init`: find the AI tools of this machine, try them, choose
the default, the fallback chain and which persona each tool answers for, and write that into
``discussions.yaml`` (and a found server's definition into the user's ``providers.yaml``)
without losing what is there (`settings.yamledit`).

The command asks the questions (on a terminal) or takes flags; this module holds no terminal
I/O: `survey` finds, `plan_choice` decides, `write_choice` writes.

A diverse council: where tools of several vendors work, the voting personas are spread over
them (one tool per vendor, in turn), so the READY votes that make a consensus come from
different models (``consensus.distinct_providers`` counts exactly that).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BadInput
from ..providers.base import ProviderSpec
from ..providers.discovery import (
    CLI_VENDORS,
    LOCAL_SERVERS,
    FoundTool,
    find_clis,
    find_servers,
    server_name,
    settle_ollama,
    try_tools,
)
from ..providers.registry import ProviderRegistry
from ..providers.server_window import url_problem
from ..providers.specs import PROVIDERS_FILE
from ..settings.config import PROJECT_FILE, user_dir
from ..settings.workspace import Workspace
from ..settings.yamledit import append_items, set_keys

TEST_TIMEOUT = 90.0
"""Seconds each tool has for its test call (a real CLI starts, logs in and answers)."""


@dataclass(slots=True)
class SetupChoice:
    """What `write_choice` writes."""

    default: str | None
    fallback: list[str] = field(default_factory=list)
    personas: dict[str, str] = field(default_factory=dict)
    """Voting persona alias -> the provider it tries first."""
    servers: list[ProviderSpec] = field(default_factory=list)
    """Servers among the chosen, to define in the user's providers.yaml."""

    @property
    def chain(self) -> list[str]:
        return [n for n in (self.default, *self.fallback) if n]

    def to_dict(self) -> dict[str, object]:
        return {"default": self.default, "fallback": self.fallback, "personas": self.personas}


@dataclass(slots=True)
class Survey:
    """What `survey` found."""

    tools: list[FoundTool]
    tested: bool

    @property
    def working(self) -> list[FoundTool]:
        """The tools that may be chosen: usable, and passed their test when tested."""
        return [t for t in self.tools if t.usable and (not self.tested or t.test == "ok")]


def survey(
    ws: Workspace,
    *,
    servers: Iterable[str] = (),
    test: bool = True,
    test_timeout: float = TEST_TIMEOUT,
) -> Survey:
    """The AI CLIs installed and the model servers running (at `servers`' URLs if given, else
    at the usual ports), each tried with a tiny real call unless `test` is false."""
    for url in servers:
        problem = url_problem(url, True, "the server")
        if problem:
            raise BadInput(problem, "server")
    registry = ProviderRegistry.load(ws.config.base_dir)
    addresses = [(server_name(u), u) for u in servers] if servers else list(LOCAL_SERVERS)
    tools = [*find_clis(registry), *find_servers(addresses)]
    settle_ollama(tools)
    if test:
        try_tools(registry, tools, test_timeout)
    return Survey(tools, test)


def vendor_of(name: str, tools: Iterable[FoundTool] = ()) -> str:
    """Who makes the model behind provider `name` (a preset's family: ``claude-haiku`` is
    Anthropic's), for spreading personas over vendors."""
    for t in tools:
        if t.name == name:
            return t.vendor
    family = name.split("-")[0]
    return CLI_VENDORS.get(family, name)


def voters(ws: Workspace) -> list[str]:
    """The voting personas' aliases: the configured default participants first, in their
    order, then the others by alias."""
    voting = {p.alias for p in ws.participants if p.votes}
    first = [a for a in ws.config.data.get("default_participants") or [] if a in voting]
    return [*first, *sorted(voting - set(first))]


def spread(chain: list[str], aliases: list[str], tools: Iterable[FoundTool] = ()) -> dict[str, str]:
    """Each persona of `aliases` given a provider of `chain` in turn, one provider per vendor
    (the first of each in `chain`); empty when `chain` holds fewer than two vendors (the
    default then answers for everyone)."""
    found = list(tools)
    firsts: dict[str, str] = {}
    for name in chain:
        firsts.setdefault(vendor_of(name, found), name)
    picks = list(firsts.values())
    if len(picks) < 2:
        return {}
    return {alias: picks[i % len(picks)] for i, alias in enumerate(aliases)}


def plan_choice(ws: Workspace, found: Survey, chain: list[str] | None = None) -> SetupChoice:
    """The settings for `chain` (provider names, the first the default), or without it for
    every working tool found, in the order found (CLIs by preference, then servers)."""
    registry = ProviderRegistry.load(ws.config.base_dir)
    known = {t.name: t for t in found.tools}
    names = list(dict.fromkeys(chain if chain is not None else [t.name for t in found.working]))
    for name in names:
        if name not in known and name not in registry.specs:
            raise BadInput(
                f"no provider named '{name}': `discussions providers list` shows them, "
                "or give a server with --server URL"
            )
    servers = [
        known[n].spec for n in names if n in known and known[n].spec and n not in registry.specs
    ]
    return SetupChoice(
        default=names[0] if names else None,
        fallback=names[1:],
        personas=spread(names, voters(ws), found.tools),
        servers=[s for s in servers if s is not None],
    )


@dataclass(slots=True)
class Written:
    """One file `write_choice` looked at."""

    what: str
    action: str
    """``updated``, ``created`` or ``unchanged``."""
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"what": self.what, "action": self.action, "detail": self.detail}


def write_choice(root: Path, choice: SetupChoice) -> list[Written]:
    """Write `choice`: the servers' definitions into the user's providers.yaml (machine
    settings, no trust needed), then ``providers.default``, ``fallback`` and ``personas`` into
    the project's discussions.yaml, every other line of both kept."""
    done: list[Written] = []
    if choice.servers:
        path = user_dir() / PROVIDERS_FILE
        existed = path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        append_items(path, "providers", [_server_entry(s) for s in choice.servers])
        names = ", ".join(s.name for s in choice.servers)
        done.append(Written(str(path), "updated" if existed else "created", names))
    values = {"default": choice.default, "fallback": choice.fallback, "personas": choice.personas}
    changed = set_keys(root / PROJECT_FILE, "providers", values)
    detail = " -> ".join(choice.chain) or "no provider (each persona's hint, then detection)"
    done.append(Written(PROJECT_FILE, "updated" if changed else "unchanged", detail))
    return done


def _server_entry(spec: ProviderSpec) -> dict[str, object]:
    return {
        "name": spec.name,
        "type": "openai-compatible",
        "base_url": spec.base_url,
        "model": spec.model,
        "description": spec.description,
    }
