"""Participants: AI personas defined in YAML (seed 004, "Participant").

A persona file holds one mapping::

    name: AI-Architect          # display name, written after `Name:`
    alias: architect            # @mention name
    role: Systems Architect
    personality: |              # the system prompt
      You are ...
    expertise: [System design, ...]
    concerns: ["Will this scale?", ...]
    type: voting                # voting | background (background participants never vote)
    provider_hint: claude-sonnet

A ``participants.yaml`` with a ``participants:`` list (the seed's registry form) is read too.
Folders are read bundled first, then the user dir, then the project, so later ones win.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import load_yaml
from .errors import ParticipantError, UnknownParticipant

PARTICIPANT_TYPES = ("voting", "background")


@dataclass(slots=True)
class Participant:
    """One AI persona."""

    name: str
    """Display name, e.g. ``AI-Architect``."""
    alias: str
    """Mention name, e.g. ``architect`` (lower case, no ``@``)."""
    role: str = ""
    """Short role description."""
    personality: str = ""
    """The system prompt that defines the persona."""
    expertise: list[str] = field(default_factory=list)
    """Areas of expertise."""
    concerns: list[str] = field(default_factory=list)
    """Questions this persona always asks."""
    type: str = "voting"
    """``voting`` or ``background``."""
    provider_hint: str | None = None
    """Preferred provider name."""
    source: Path | None = None
    """File the persona was read from (None when built in code)."""

    @property
    def votes(self) -> bool:
        """Whether this participant's votes count."""
        return self.type == "voting"

    @classmethod
    def from_dict(cls, data: Any, source: Path | None = None) -> Participant:
        """Build and validate; errors name the file and the key."""
        where = str(source) if source else "participant"

        def fail(key: str, problem: str) -> ParticipantError:
            return ParticipantError(f"{where}: key '{key}' {problem}")

        if not isinstance(data, dict):
            raise ParticipantError(f"{where}: expected a mapping with name, alias, personality")
        known = {
            "name",
            "alias",
            "role",
            "personality",
            "expertise",
            "concerns",
            "type",
            "provider_hint",
        }
        for key in data:
            if key not in known:
                raise fail(
                    str(key), f"is not a participant setting (known: {', '.join(sorted(known))})"
                )
        for key in ("name", "alias"):
            if not isinstance(data.get(key), str) or not data[key].strip():
                raise fail(key, "is required and must be text")
        alias = data["alias"].strip().lstrip("@").lower()
        if not alias.replace("-", "").replace("_", "").isalnum() or not alias[0].isalpha():
            raise fail("alias", f"must be letters, digits, '-' or '_', got '{data['alias']}'")
        for key in ("role", "personality", "provider_hint"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise fail(key, "must be text")
        for key in ("expertise", "concerns"):
            value = data.get(key)
            if value is not None and (
                not isinstance(value, list) or not all(isinstance(v, str) for v in value)
            ):
                raise fail(key, "must be a list of text items")
        ptype = data.get("type", "voting")
        if ptype not in PARTICIPANT_TYPES:
            raise fail("type", f"must be 'voting' or 'background', got '{ptype}'")
        return cls(
            name=data["name"].strip(),
            alias=alias,
            role=(data.get("role") or "").strip(),
            personality=data.get("personality") or "",
            expertise=list(data.get("expertise") or []),
            concerns=list(data.get("concerns") or []),
            type=ptype,
            provider_hint=(data.get("provider_hint") or None),
            source=source,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "alias": self.alias,
            "role": self.role,
            "type": self.type,
            "provider_hint": self.provider_hint,
            "expertise": list(self.expertise),
            "concerns": list(self.concerns),
            "personality": self.personality,
            "source": str(self.source) if self.source else None,
        }


def _author_keys(author: str) -> tuple[str, ...]:
    """Names an author answers to: ``AI-Architect`` -> ``ai-architect``, ``architect``;
    ``Zoë Ångström`` -> ``zoë ångström``, ``zoë-ångström``, ``zoë``."""
    a = " ".join(author.split()).lower()
    keys = [a]
    if a.startswith("ai-"):
        keys.append(a[3:])
    if " " in a:
        keys += [a.replace(" ", "-"), a.replace(" ", "_"), a.split(" ", 1)[0]]
    return tuple(keys)


class ParticipantRegistry:
    """Participants by alias, with lookups by alias or display name."""

    def __init__(self, participants: Iterable[Participant] = ()) -> None:
        self._by_alias: dict[str, Participant] = {}
        for p in participants:
            self._by_alias[p.alias] = p
        self._by_name = {p.name.lower(): p for p in self._by_alias.values()}

    @classmethod
    def load(cls, folders: Iterable[Path]) -> ParticipantRegistry:
        """Read persona files from `folders`, lowest precedence first."""
        found: list[Participant] = []
        for folder in folders:
            found.extend(_read_folder(folder))
        return cls(found)

    def __iter__(self) -> Iterator[Participant]:
        return iter(sorted(self._by_alias.values(), key=lambda p: p.alias))

    def __len__(self) -> int:
        return len(self._by_alias)

    def __contains__(self, alias: object) -> bool:
        return isinstance(alias, str) and alias.lower().lstrip("@") in self._by_alias

    def aliases(self) -> list[str]:
        return sorted(self._by_alias)

    def get(self, alias: str) -> Participant:
        """The participant with `alias` (``@`` optional); `UnknownParticipant` lists the known."""
        key = alias.strip().lstrip("@").lower()
        try:
            return self._by_alias[key]
        except KeyError:
            known = ", ".join(self.aliases()) or "none"
            raise UnknownParticipant(
                f"no participant '{key}' (known: {known}); add participants/{key}.yaml "
                "or run `discussions participants list`"
            ) from None

    def for_author(self, author: str) -> Participant | None:
        """The participant who writes as `author` (display name or alias, any case)."""
        for key in _author_keys(author):
            p = self._by_name.get(key) or self._by_alias.get(key)
            if p is not None:
                return p
        return None

    def author_alias(self, author: str) -> str:
        """The mention name of `author`: a participant's alias, else the author lower-cased
        without an ``AI-`` prefix (so ``@rob`` is answered by a comment from ``Rob``)."""
        return self.author_aliases(author)[0]

    def author_aliases(self, author: str) -> tuple[str, ...]:
        """Every mention name that `author` answers: the participant's alias, or for a person
        their name lower-cased, hyphenated, and their first name."""
        p = self.for_author(author)
        if p is not None:
            return (p.alias,)
        keys = _author_keys(author)
        return keys[1:] if keys[0].startswith("ai-") else keys


def _read_folder(folder: Path) -> list[Participant]:
    if not folder.is_dir():
        return []
    out: list[Participant] = []
    for path in sorted(folder.iterdir()):
        if path.suffix not in (".yaml", ".yml") or not path.is_file():
            continue
        data = load_yaml(path)
        if path.stem == "participants" and isinstance(data, dict) and "participants" in data:
            items = data["participants"]
            if not isinstance(items, list):
                raise ParticipantError(f"{path}: key 'participants' must be a list")
            out.extend(Participant.from_dict(item, path) for item in items)
        else:
            out.append(Participant.from_dict(data, path))
    return out
