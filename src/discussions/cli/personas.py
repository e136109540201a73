"""``participants add / edit / remove``: write persona files (see `settings.personas`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from ..errors import DiscussionsError
from ..settings import personas
from .common import display_path, say, workspace


def _scope(user: bool, project: bool) -> str | None:
    if user and project:
        raise click.UsageError("give --user or --project, not both")
    return "user" if user else "project" if project else None


def _edit_until_valid(text: str, ws: Any) -> dict[str, Any]:
    """Open `text` in $EDITOR until it holds a valid persona (or the user gives up)."""
    while True:
        edited = click.edit(text, extension=".yaml", require_save=False)
        if edited is None or not edited.strip():
            raise click.ClickException("nothing written: the editor returned no text")
        try:
            data = personas.parse_yaml(edited)
            personas.validate(data)
            return dict(data)
        except DiscussionsError as exc:
            say(f"Error: {exc}", err=True)
            if not click.confirm("Edit again?", default=True, err=True):
                raise click.ClickException("nothing written") from None
            text = edited


@click.command("add")
@click.argument("alias")
@click.option(
    "--from-file",
    "from_file",
    type=click.Path(path_type=Path),
    help="Read the persona from this YAML file.",
)
@click.option(
    "-i",
    "--interactive",
    is_flag=True,
    help="Ask for each field; the personality is written in $EDITOR.",
)
@click.option("--user", is_flag=True, help="Write to the user folder (~/.config/discussions).")
@click.option("--project", is_flag=True, help="Write to the project's participants/ (default).")
def participants_add(
    alias: str, from_file: Path | None, interactive: bool, user: bool, project: bool
) -> None:
    """Add a persona as a YAML file in the project's (or with --user your) participants/.

    --interactive asks for each field and opens $EDITOR for the personality.

    The persona is validated before it is written (errors name the field); an existing
    file is never overwritten (use `participants edit`). A bundled persona with the same
    alias is overridden, not changed.

    \b
    Examples:
      discussions participants add reviewer --from-file reviewer.yaml
      discussions participants add ux --interactive --user
    """
    ws = workspace()
    scope = _scope(user, project) or "project"
    alias = alias.strip().lstrip("@")
    if bool(from_file) == interactive:
        raise click.UsageError("give --from-file FILE or --interactive")
    data = personas.read_file(from_file, alias) if from_file else _prompt_fields(alias)
    p, path = personas.write(data, scope, ws)
    say(f"Added {p.name} (@{p.alias}) to {display_path(path)}.")


def split(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _prompt_fields(alias: str) -> dict[str, Any]:
    base = personas.template_data(alias)
    data: dict[str, Any] = {"alias": alias}
    data["name"] = click.prompt("Name", default=base["name"])
    data["role"] = click.prompt("Role", default="", show_default=False)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "your editor"
    say(
        f"Personality: opening {editor} for the system prompt; save and close it to go on.",
        err=True,
    )
    personality = click.edit("You are ...\n", extension=".md", require_save=False) or ""
    data["personality"] = personality.strip() + "\n"
    data["expertise"] = split(
        click.prompt("Expertise (comma separated)", default="", show_default=False)
    )
    data["concerns"] = split(
        click.prompt("Concerns (comma separated)", default="", show_default=False)
    )
    data["type"] = click.prompt(
        "Type", type=click.Choice(["voting", "background"]), default="voting"
    )
    hint = click.prompt("Provider hint", default="", show_default=False).strip()
    data["provider_hint"] = hint or None
    personas.validate(data)
    return data


@click.command("edit")
@click.argument("alias")
@click.option("--user", is_flag=True, help="Edit (or create) the user folder's copy.")
@click.option("--project", is_flag=True, help="Edit (or create) the project's copy (default).")
def participants_edit(alias: str, user: bool, project: bool) -> None:
    """Edit a persona in $EDITOR; validated before it is saved.

    Editing a bundled persona writes an override to the project's participants/
    (or with --user your user folder); the bundled file is not changed.

    \b
    Examples:
      discussions participants edit architect
      EDITOR=nano discussions participants edit security --user
    """
    ws = workspace()
    p = ws.participants.get(alias)
    where = personas.origin(p, ws)
    scope = _scope(user, project) or (where if where in personas.SCOPES else "project")
    data = _edit_until_valid(personas.to_yaml(p.to_dict()), ws)
    target = personas.folder_for(scope, ws) / f"{personas.validate(data).alias}.yaml"
    replace = p.source is not None and p.source.resolve() == target.resolve()
    if (
        target.exists()
        and not replace
        and not click.confirm(
            f"{display_path(target)} exists; replace it?", default=False, err=True
        )
    ):
        raise click.ClickException("nothing written")
    saved, path = personas.write(data, scope, ws, replace=True)
    say(f"Saved {saved.name} (@{saved.alias}) to {display_path(path)}.")


@click.command("remove")
@click.argument("alias")
@click.option("--user", is_flag=True, help="Remove the user folder's persona.")
@click.option("--project", is_flag=True, help="Remove the project's persona.")
def participants_remove(alias: str, user: bool, project: bool) -> None:
    """Remove a user or project persona (bundled ones can only be overridden).

    \b
    Examples:
      discussions participants remove reviewer
      discussions participants remove ux --user
    """
    path = personas.remove(alias, workspace(), _scope(user, project))
    say(f"Removed {display_path(path)}.")


def register(group: click.Group) -> None:
    for command in (participants_add, participants_edit, participants_remove):
        group.add_command(command)
