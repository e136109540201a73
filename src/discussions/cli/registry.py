"""Commands that show what is configured: participants, templates."""

from __future__ import annotations

import click

from ..settings.personas import origin
from .common import display_path, echo_json, report_problems, workspace
from .options import json_option


@click.group("participants")
def participants_group() -> None:
    """Show the AI personas that can take part.

    Personas are YAML files read from the bundled set, then the user dir
    (DISCUSSIONS_HOME or ~/.config/discussions)/participants, then the project's
    participants/ folder; later ones override earlier ones with the same alias.
    """


@participants_group.command("list")
@json_option("Print a JSON list.")
def participants_list(as_json: bool) -> None:
    """List participants.

    Persona files that cannot be used are reported on standard error (with
    --json as {"problems": [{file, line, message}]}) and skipped.

    \b
    Examples:
      discussions participants list
      discussions participants list --json
    """
    ws = workspace()
    registry = ws.participants
    report_problems(registry.problems, as_json)
    if as_json:
        echo_json([{**p.to_dict(), "origin": origin(p, ws)} for p in registry])
        return
    rows = list(registry)
    if not rows:
        click.echo("No participants defined.")
        return
    aw = max(len(p.alias) for p in rows)
    nw = max(len(p.name) for p in rows)
    for p in rows:
        click.echo(f"@{p.alias:<{aw}}  {p.name:<{nw}}  {p.type:<10}  {origin(p, ws):<8}  {p.role}")


@participants_group.command("show")
@click.argument("alias")
@json_option("Print as JSON.")
def participants_show(alias: str, as_json: bool) -> None:
    """Show one participant's full definition.

    \b
    Examples:
      discussions participants show architect
      discussions participants show @security --json
    """
    p = workspace().participants.get(alias)
    if as_json:
        echo_json(p.to_dict())
        return
    click.echo(f"{p.name} (@{p.alias})")
    click.echo(f"Role: {p.role}")
    click.echo(f"Type: {p.type}" + ("" if p.votes else " (does not vote)"))
    click.echo(f"Provider hint: {p.provider_hint or '-'}")
    if p.source:
        click.echo(f"Defined in: {display_path(p.source)}")
    if p.expertise:
        click.echo("Expertise: " + ", ".join(p.expertise))
    click.echo("Capabilities: " + (", ".join(p.capabilities) or "-"))
    if p.traits:
        click.echo("Traits: " + ", ".join(p.traits))
    if p.focus:
        click.echo("Focus: " + ", ".join(f"{t} {w:g}" for t, w in p.focus.items()))
    if p.concerns:
        click.echo("Concerns:")
        for c in p.concerns:
            click.echo(f"  - {c}")
    click.echo("")
    click.echo(p.personality.rstrip())


@click.group("templates")
def templates_group() -> None:
    """Show the discussion templates and their phases."""


@templates_group.command("list")
@json_option("Print a JSON list.")
def templates_list(as_json: bool) -> None:
    """List templates with their phases.

    Template files that cannot be used are reported on standard error (with
    --json as {"problems": [{file, line, message}]}) and skipped.

    \b
    Examples:
      discussions templates list
      discussions templates list --json
    """
    registry = workspace().templates
    report_problems(registry.problems, as_json)
    templates = list(registry)
    if as_json:
        echo_json(
            [
                {
                    "name": t.name,
                    "title": t.title,
                    "description": t.description,
                    "aliases": t.aliases,
                    "participants": t.participants,
                    "phases": [p.to_dict() for p in t.phases],
                    "source": str(t.source) if t.source else None,
                }
                for t in templates
            ]
        )
        return
    for t in templates:
        aliases = f" (also: {', '.join(t.aliases)})" if t.aliases else ""
        click.echo(f"{t.name}{aliases}: {t.description}")
        chain = " -> ".join(p.id + (" [vote]" if p.voting_mode else "") for p in t.phases)
        click.echo(f"  phases: {chain}")
        click.echo(f"  participants: {', '.join(t.participants)}")


from .personas import register as _register_persona_commands  # noqa: E402

_register_persona_commands(participants_group)
