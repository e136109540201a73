"""The questions of `discussions init` about AI providers (the setup wizard): on a terminal it
shows the tools found and asks which to use; with ``--yes`` or ``--provider`` it takes them
without asking. The finding, choosing and writing are `ops.wizard`'s."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import click

from ..errors import BadInput
from ..ops import wizard
from ..providers.discovery import FoundTool, server_name, try_tool, try_tools
from ..providers.registry import ProviderRegistry
from ..settings.workspace import Workspace
from .common import say, workspace


@dataclass(slots=True)
class WizardOptions:
    """What `discussions init` was told about providers."""

    yes: bool = False
    provider: str | None = None
    fallback: Sequence[str] = ()
    servers: Sequence[str] = ()
    test: bool = True

    @property
    def named(self) -> list[str] | None:
        """The chain given by flags (``--provider``, ``--fallback``), or None."""
        if self.provider is None and not self.fallback:
            return None
        return [n for n in (self.provider, *self.fallback) if n]


def wanted(options: WizardOptions, interactive: bool) -> bool:
    """Whether init sets providers up: asked on a terminal, told by flags elsewhere. Without
    either it stays the quiet setup it always was (no tool is run, no model is called)."""
    return interactive or options.yes or options.named is not None


def run_wizard(
    root: Path, options: WizardOptions, interactive: bool, as_json: bool
) -> dict[str, object]:
    """Find, try, choose and write; returns the JSON report's ``providers`` part."""
    ws = workspace(warn=False)
    if not as_json:
        click.echo("\nLooking for AI tools (CLIs on PATH, model servers on this machine)...")
    found = wizard.survey(ws, servers=options.servers, test=False)
    chain: list[str] | None = options.named
    if chain is not None:
        if options.test:
            _try_named(ws.config.base_dir, found.tools, chain, as_json)
    else:
        if options.test:
            _try_all(ws.config.base_dir, found.tools, as_json)
        found.tested = options.test
        if not as_json:
            _show(found.tools, options.servers)
        chain = _ask_chain(found) if interactive else None
        if interactive and chain is None:
            click.echo("Providers left as they are.")
            return {"found": [t.to_dict() for t in found.tools], "choice": None, "written": []}
    choice = _plan(ws, found, chain, interactive and options.named is None)
    if choice is None:
        click.echo("Providers left as they are.")
        return {"found": [t.to_dict() for t in found.tools], "choice": None, "written": []}
    if interactive and not _confirm(choice):
        return {"found": [t.to_dict() for t in found.tools], "choice": None, "written": []}
    written = wizard.write_choice(root, choice) if choice.chain or chain is not None else []
    if not as_json:
        _say_written(choice, written)
    return {
        "found": [t.to_dict() for t in found.tools],
        "choice": choice.to_dict(),
        "written": [w.to_dict() for w in written],
    }


def _plan(
    ws: Workspace, found: wizard.Survey, chain: list[str] | None, asking: bool
) -> wizard.SetupChoice | None:
    """The choice of `chain`; when `asking` (the names were typed at the question), a name
    that cannot be used is said and the question asked again (None: 'keep')."""
    while True:
        try:
            return wizard.plan_choice(ws, found, chain)
        except BadInput as exc:
            if not asking:
                raise
            say(f"Error: {exc}", err=True)
        chain = _ask_chain(found)
        if chain is None:
            return None


def _try_all(root: Path | None, tools: list[FoundTool], as_json: bool) -> None:
    if not as_json and any(t.usable for t in tools):
        limit = f"{wizard.TEST_TIMEOUT:g} s at most"
        click.echo(f"Trying each with a tiny real call, {limit} (--no-test skips this)...")
    try_tools(ProviderRegistry.load(root), tools, wizard.TEST_TIMEOUT)


def _try_named(root: Path | None, tools: list[FoundTool], chain: list[str], as_json: bool) -> None:
    """Try each provider named by flags; one that fails stops init before anything is
    written (``--no-test`` writes without trying)."""
    registry = ProviderRegistry.load(root)
    known = {t.name: t for t in tools}
    for name in chain:
        tool = known.get(name) or FoundTool(name, "cli", wizard.vendor_of(name), "")
        if tool.spec is None and name not in registry.specs:
            continue  # plan_choice names the unknown provider
        try_tool(registry, tool, wizard.TEST_TIMEOUT)
        if tool.test != "ok":
            raise click.ClickException(
                f"{name} did not answer a test call ({tool.test}); nothing was written. "
                "Fix it, choose another, or write it anyway with --no-test"
            )
        if not as_json:
            say(f"  {name:<16} ok ({tool.seconds or 0:.1f}s)")


def _show(tools: list[FoundTool], servers: Sequence[str] = ()) -> None:
    """The tools found, and each server asked for by URL that did not answer."""
    for url in servers:
        if not any(t.name == server_name(url) for t in tools):
            say(f"  no model server answered at {url}")
    if not tools:
        click.echo("  none found: the built-in mock answers until you install one")
    for t in tools:
        where = t.spec.base_url + ", model " if t.spec else ""
        tried = f"  [{t.test}]" if t.test != "not tried" else ""
        mark = "" if t.usable else "  (not usable)"
        say(f"  {t.name:<16} {t.vendor:<15} {where}{t.detail}{mark}{tried}")


def _ask_chain(found: wizard.Survey) -> list[str] | None:
    """Which tools to use, in order (names, comma- or space-separated); ``none`` for none,
    ``keep`` (offered when nothing works) for the settings as they are (None)."""
    offered = ", ".join(t.name for t in found.working) or "keep"
    click.echo("Which should answer? The first is the default, the others the fallback chain,")
    click.echo("in order (names separated by commas; 'none' to set no provider, 'keep' to")
    click.echo("leave the settings as they are).")
    answer = click.prompt("Providers", default=offered, show_default=True)
    names = [n for n in answer.replace(",", " ").split() if n]
    if names == ["keep"]:
        return None
    return [] if names == ["none"] else names


def _confirm(choice: wizard.SetupChoice) -> bool:
    click.echo(f"\n  providers.default:  {choice.default or '(none)'}")
    click.echo(f"  providers.fallback: {', '.join(choice.fallback) or '(none)'}")
    for alias, name in choice.personas.items():
        click.echo(f"  @{alias:<18} {name}")
    return click.confirm("Write this into discussions.yaml?", default=True)


def _say_written(choice: wizard.SetupChoice, written: list[wizard.Written]) -> None:
    if not written:
        click.echo("No working AI tool found: providers left as they were.")
    for w in written:
        say(f"{w.action:>9}  {w.what} ({w.detail})")
    if choice.personas:
        spread = ", ".join(f"@{a} {n}" for a, n in choice.personas.items())
        say(f"Personas spread over vendors: {spread}")
