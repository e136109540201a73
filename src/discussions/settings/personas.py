"""Writing and removing persona files (the user's and the project's participants/ folders).

Bundled personas are never written: a user or project file with the same alias overrides one.
Every write is validated first (`Participant.from_dict`, which names the field at fault), goes
through ``yaml.safe_dump`` and never replaces an existing file unless asked to (`replace`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .. import atomic
from ..errors import DiscussionsError, ParticipantError
from .config import bundled_dir, load_yaml_document, located_error, user_dir
from .participants import Participant
from .workspace import Workspace

SCOPES = ("user", "project")
_FIELD_ORDER = (
    "name",
    "alias",
    "role",
    "type",
    "provider_hint",
    "expertise",
    "concerns",
    "capabilities",
    "traits",
    "focus",
    "personality",
)


class PersonaError(DiscussionsError):
    """A persona cannot be written or removed."""


def origin(participant: Participant, ws: Workspace) -> str:
    """``bundled``, ``user``, ``project`` or ``built-in`` (no file): where a persona comes from."""
    if participant.source is None:
        return "built-in"
    src = participant.source.resolve()
    for kind, folder in (
        ("project", ws.config.base_dir / "participants"),
        ("user", user_dir() / "participants"),
        ("bundled", bundled_dir("participants")),
    ):
        if src.is_relative_to(folder.resolve()):
            return kind
    return "other"


def folder_for(scope: str, ws: Workspace) -> Path:
    if scope == "user":
        return user_dir() / "participants"
    if scope == "project":
        return ws.config.base_dir / "participants"
    raise PersonaError(f"unknown scope {scope!r} (use user or project)")


def validate(data: Any) -> Participant:
    """The persona `data` describes; raises with the name of the field at fault."""
    return Participant.from_dict(data)


def to_yaml(data: dict[str, Any]) -> str:
    ordered = {k: data[k] for k in _FIELD_ORDER if data.get(k) not in (None, "", [], {})}
    ordered.update({k: v for k, v in data.items() if k not in ordered and k != "source"})
    ordered.pop("source", None)
    return yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=100)


def template_data(alias: str) -> dict[str, Any]:
    """A starting point for a new persona."""
    return {
        "name": f"AI-{alias.strip('@').capitalize()}",
        "alias": alias.strip("@"),
        "role": "",
        "type": "voting",
        "provider_hint": None,
        "expertise": [],
        "concerns": [],
        "capabilities": [],
        "personality": "You are ...\n",
    }


def write(
    data: dict[str, Any], scope: str, ws: Workspace, *, replace: bool = False
) -> tuple[Participant, Path]:
    """Validate `data` and write it to ``<scope folder>/<alias>.yaml``. Refuses to overwrite an
    existing file unless `replace`."""
    data = {k: v for k, v in data.items() if k != "source"}
    participant = validate(data)
    folder = folder_for(scope, ws)
    path = folder / f"{participant.alias}.yaml"
    if path.exists() and not replace:
        raise PersonaError(f"{path} already exists (use `participants edit {participant.alias}`)")
    folder.mkdir(parents=True, exist_ok=True)
    atomic.replace_file(path, to_yaml(data))
    return participant, path


def removable_path(alias: str, ws: Workspace, scope: str | None = None) -> Path:
    """The user or project file defining `alias` (the project one first unless `scope`)."""
    alias = alias.strip().lstrip("@").lower()
    scopes = [scope] if scope else ["project", "user"]
    for s in scopes:
        for ext in (".yaml", ".yml"):
            path = folder_for(s, ws) / f"{alias}{ext}"
            if path.is_file():
                return path
    p = next((p for p in ws.participants if p.alias == alias), None)
    if p is not None and p.source is not None and origin(p, ws) in scopes:
        if p.source.stem == "participants":
            raise PersonaError(
                f"@{alias} is one of several personas in {p.source}; edit that file instead"
            )
        return p.source
    if p is not None and origin(p, ws) == "bundled":
        raise PersonaError(
            f"@{alias} is bundled and cannot be removed; add a user or project persona "
            "with the same alias to override it"
        )
    raise PersonaError(f"no {' or '.join(scopes)} persona @{alias}")


def remove(alias: str, ws: Workspace, scope: str | None = None) -> Path:
    path = removable_path(alias, ws, scope)
    path.unlink()
    return path


def read_file(path: Path, alias: str) -> dict[str, Any]:
    """The persona for `alias` in the YAML file `path`, validated (``alias`` may be left out).

    A missing file, a folder, a binary or non-UTF-8 file and every invalid field raise a
    `ConfigError` naming the file and the line."""
    doc = load_yaml_document(path)
    if not isinstance(doc.data, dict):
        raise located_error(
            ParticipantError, path, doc.line(), "expected a mapping with name, alias, personality"
        )
    data = {**doc.data, "alias": doc.data.get("alias") or alias}
    given = str(data["alias"]).strip().lstrip("@").lower()
    if given != alias.strip().lstrip("@").lower():
        raise located_error(
            ParticipantError,
            path,
            doc.line("alias"),
            f"key 'alias' is {data['alias']!r} but the command names {alias!r}",
        )
    Participant.from_dict(data, path, doc)
    return data


def parse_yaml(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PersonaError(f"not valid YAML: {exc}") from None
