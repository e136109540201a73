"""Participants: AI personas defined in YAML.

A persona file holds one mapping::

    name: AI-Architect          # display name, written after `Name:`
    alias: architect            # @mention name
    role: Systems Architect
    personality: |              # the system prompt
      You are ...
    expertise: [System design, ...]
    concerns: ["Will this scale?", ...]
    capabilities: [architecture, refactoring]   # what it can lead when a decision is applied
    type: voting                # voting | background (background participants never vote)
    provider_hint: claude-sonnet
    traits: [skeptical, concise]                # how it argues (`shape`)
    focus: {security: 3, performance: 1}        # topic -> weight 0-10 (`shape`)

A ``participants.yaml`` with a ``participants:`` list (the seed's registry form) is read too.
Folders are read bundled first, then the user dir, then the project, so later ones win.

``name``, ``alias``, ``role`` and ``provider_hint`` reach discussion files or the terminal, so
each must be one line of plain text (`name_problem`, `alias_problem`, `_role_problem`,
`_provider_name_problem`); ``personality``, ``expertise`` and ``concerns`` only go into prompts.
A file that breaks these rules is reported in `ParticipantRegistry.problems` and skipped; the
other personas still load.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import ConfigError, ParticipantError, UnknownParticipant
from ..syntax.markers import closest_alias
from ..syntax.record import Record
from . import shape
from .config import FileProblem, YamlDocument, bundled_dir, load_yaml_document, located_error
from .schema import Fields, Keys, ListOf, Text, key_name, validate

_PARTICIPANT_TYPES = ("voting", "background")
_TEXTS = ListOf(Text(), "a list of text items")
PERSONA = Fields(
    {
        "name": Text(),
        "alias": Text(),
        "role": Text(),
        "personality": Text(),
        "expertise": _TEXTS,
        "concerns": _TEXTS,
        "capabilities": _TEXTS,
        "type": Text(_PARTICIPANT_TYPES),
        "provider_hint": Text(),
        "traits": _TEXTS,
        "focus": Fields({}, noun="focus topic", extra=True),
    },
    noun="participant setting",
    required=("name", "alias"),
)
"""Every key of a persona file (module docstring)."""
_PARTICIPANT_KEYS = frozenset(PERSONA.keys)
_KNOWN_CAPABILITIES = (
    "architecture",
    "refactoring",
    "logic",
    "debugging",
    "testing",
    "docs",
    "ui-ux",
    "review",
    "security",
    "planning",
    "performance",
    "data",
    "research",
)
"""The capability words the bundled personas use; other words are accepted as written."""

_NAME_MAX = 64
_ALIAS_MAX = 40
_ROLE_MAX = 120
_NAME_PUNCTUATION = frozenset(" -_.'’(),&+/")
"""Characters other than letters, marks and digits allowed in a display name."""
_ALIAS = re.compile(r"[^\W\d_][\w-]*")  # what a mention `@alias` can match (markers.py)
_PROVIDER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a display name, or None. The name is written into discussion
    files after ``Name:``, so it must stay one harmless line of text:

    * 1 to 64 characters (surrounding spaces are dropped);
    * only letters, combining marks and digits (any script), spaces and ``- _ . ' ’ ( ) , & + /``
      (so no control or invisible characters, no line breaks, no ``<``, ``>``, ``#``, ``*``,
      ``@``, ``:`` or backticks);
    * starts with a letter or digit, holds at least one letter, and has no ``---``.
    """
    for ch in name:
        if ch not in _NAME_PUNCTUATION and unicodedata.category(ch)[0] not in "LMN":
            return (
                f"must be one line of letters, digits, spaces and - _ . ' ( ) , & + /; found {ch!r}"
            )
    if len(name) > _NAME_MAX:
        return f"must be at most {_NAME_MAX} characters, got {len(name)}"
    if unicodedata.category(name[0])[0] not in "LN":
        return f"must start with a letter or digit, got {name[0]!r}"
    if not any(unicodedata.category(ch)[0] == "L" for ch in name):
        return "must contain a letter"
    if "---" in name:
        return "must not contain '---'"
    return None


def normalise_alias(alias: str) -> str:
    """``@Architect`` -> ``architect``."""
    return alias.strip().lstrip("@").lower()


def alias_problem(alias: str) -> str | None:
    """Why `alias` cannot be an alias, or None: a letter, then letters, digits, ``-`` or
    ``_``; at most 40 characters (what an ``@mention`` matches)."""
    key = normalise_alias(alias)
    if not _ALIAS.fullmatch(key):
        return f"must be letters, digits, '-' or '_', starting with a letter, got {alias!r}"
    if len(key) > _ALIAS_MAX:
        return f"must be at most {_ALIAS_MAX} characters, got {len(key)}"
    return None


def _role_problem(role: str) -> str | None:
    """Why `role` cannot be a role, or None: one line of printable text, at most 120
    characters."""
    if not role.isprintable():
        bad = next(ch for ch in role if not ch.isprintable())
        return f"must be one line of printable text, found {bad!r}"
    if len(role) > _ROLE_MAX:
        return f"must be at most {_ROLE_MAX} characters, got {len(role)}"
    return None


def _provider_name_problem(name: str) -> str | None:
    """Why `name` cannot name a provider, or None: ASCII letters, digits, ``. _ : -``,
    starting with a letter or digit, at most 64 characters."""
    if not _PROVIDER_NAME.fullmatch(name) or len(name) > 64:
        return f"must be a provider name (letters, digits, '.', '_', ':', '-'), got {name!r}"
    return None


_FIELD_CHECKS: tuple[tuple[str, Callable[[str], str | None]], ...] = (
    ("name", name_problem),
    ("alias", alias_problem),
    ("role", _role_problem),
    ("provider_hint", _provider_name_problem),
)


class Participant(Record):
    """One AI persona."""

    __slots__ = (
        "name", "alias", "role", "personality", "expertise", "concerns", "capabilities", "type",
        "provider_hint", "source", "traits", "focus",
    )  # fmt: skip

    name: str
    """Display name, e.g. ``AI-Architect``."""
    alias: str
    """Mention name, e.g. ``architect`` (lower case, no ``@``)."""
    role: str
    """Short role description."""
    personality: str
    """The system prompt that defines the persona."""
    expertise: list[str]
    """Areas of expertise."""
    concerns: list[str]
    """Questions this persona always asks."""
    capabilities: list[str]
    """What it can lead when a decision is applied (lower case words, `_KNOWN_CAPABILITIES`)."""
    type: str
    """``voting`` or ``background``."""
    provider_hint: str | None
    """Preferred provider name."""
    source: Path | None
    """File the persona was read from (None when built in code)."""
    traits: list[str]
    """Words for how it argues (`shape`): a line of its prompt."""
    focus: dict[str, float]
    """Topic -> weight 0-10 (`shape`): a line of its prompt, and its score as an apply's lead."""

    def __init__(
        self,
        name: str,
        alias: str,
        role: str = "",
        personality: str = "",
        expertise: list[str] | None = None,
        concerns: list[str] | None = None,
        capabilities: list[str] | None = None,
        type: str = "voting",
        provider_hint: str | None = None,
        source: Path | None = None,
        traits: list[str] | None = None,
        focus: dict[str, float] | None = None,
    ) -> None:
        self.name = name
        self.alias = alias
        self.role = role
        self.personality = personality
        self.expertise = [] if expertise is None else expertise
        self.concerns = [] if concerns is None else concerns
        self.capabilities = [] if capabilities is None else capabilities
        self.type = type
        self.provider_hint = provider_hint
        self.source = source
        self.traits = [] if traits is None else traits
        self.focus = {} if focus is None else focus

    def replaced(self, **changes: Any) -> Participant:
        """This participant with `changes` (fields by name), as `dataclasses.replace` made one."""
        return Participant(**{**{n: getattr(self, n) for n in self.__slots__}, **changes})

    @property
    def votes(self) -> bool:
        """Whether this participant's votes count."""
        return self.type == "voting"

    @property
    def bundled(self) -> bool:
        """Whether the persona comes with the package (not a file of the user or the
        project): its ``provider_hint`` is then a shipped default, and a configured
        ``providers.default`` goes before it (`registry.participant_chain`)."""
        if self.source is None:
            return False
        return self.source.resolve().is_relative_to(bundled_dir("participants").resolve())

    @classmethod
    def from_dict(
        cls,
        data: Any,
        source: Path | None = None,
        doc: YamlDocument | None = None,
        at: tuple[str | int, ...] = (),
    ) -> Participant:
        """Build and validate; errors name the file, the line (when `doc` gives the lines of
        the file `data` was read from, at key path `at`) and the key."""

        def fail(key: str | None, problem: str, keys: Keys = ()) -> ParticipantError:
            keys = (key,) if key else keys
            line = doc.line(*at, *keys) if doc else 0
            message = f"key '{key}' {problem}" if key else problem
            return located_error(ParticipantError, source, line, message, what="participant")

        if not isinstance(data, dict):
            raise fail(None, "expected a mapping with name, alias, personality")
        for found in validate(data, PERSONA):
            raise fail(None, found.message, found.keys)
        for key in ("name", "alias"):
            if not data[key].strip():
                raise fail(key, "is required and must not be empty")
        for key, check in _FIELD_CHECKS:
            value = data.get(key)
            problem = check(value.strip()) if isinstance(value, str) and value.strip() else None
            if problem:
                raise fail(key, problem)
        for keys, problem in shape.problems(data):
            raise fail(None, f"key '{key_name(keys)}' {problem}", keys)
        ptype = (data.get("type") or "voting").strip()
        return cls(
            name=data["name"].strip(),
            alias=normalise_alias(data["alias"]),
            role=(data.get("role") or "").strip(),
            personality=data.get("personality") or "",
            expertise=list(data.get("expertise") or []),
            concerns=list(data.get("concerns") or []),
            capabilities=_capabilities(data.get("capabilities") or []),
            type=ptype,
            provider_hint=(data.get("provider_hint") or "").strip() or None,
            source=source,
            traits=shape.traits_of(data),
            focus=shape.focus_of(data),
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
            "capabilities": list(self.capabilities),
            "personality": self.personality,
            "source": str(self.source) if self.source else None,
            "traits": list(self.traits),
            "focus": dict(self.focus),
        }


def _capabilities(words: list[str]) -> list[str]:
    """``["Architecture", "UI/UX "]`` -> ``["architecture", "ui-ux"]``, without repeats."""
    found = (re.sub(r"[\s/_]+", "-", w.strip().lower()) for w in words)
    return list(dict.fromkeys(w for w in found if w))


@lru_cache(maxsize=4096)
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

    def __init__(
        self,
        participants: Iterable[Participant | _BrokenPersona] = (),
        problems: Iterable[FileProblem] = (),
    ) -> None:
        self._by_alias: dict[str, Participant] = {}
        self._broken: dict[str, _BrokenPersona] = {}
        self.problems: list[FileProblem] = list(problems)
        """Persona files (or entries) that could not be used, in reading order. The rest
        were read; `get` of an alias one of them defines raises its error."""
        for p in participants:  # later ones win: a broken override hides what it overrides
            if isinstance(p, _BrokenPersona):
                self._by_alias.pop(p.alias, None)
                self._broken[p.alias] = p
            else:
                self._broken.pop(p.alias, None)
                self._by_alias[p.alias] = p
        self._by_name = {p.name.lower(): p for p in self._by_alias.values()}
        # Answers by author string: a parse asks about every comment's author several times,
        # and a registry does not change once built.
        self._for_author: dict[str, Participant | None] = {}
        self._author_aliases: dict[str, tuple[str, ...]] = {}

    @classmethod
    def load(cls, folders: Iterable[Path]) -> ParticipantRegistry:
        """Read persona files from `folders`, lowest precedence first. A file that cannot
        be used becomes an entry of `problems`; it does not stop the others from loading."""
        found: list[Participant | _BrokenPersona] = []
        for folder in folders:
            found.extend(_read_folder(folder))
        problems = [p.problem for p in found if isinstance(p, _BrokenPersona)]
        return cls(found, problems)

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
        key = normalise_alias(alias)
        if key in self._by_alias:
            return self._by_alias[key]
        if key in self._broken:
            raise ParticipantError(self._broken[key].error)
        known = ", ".join(self.aliases()) or "none"
        close = closest_alias(key, self.aliases())
        guess = f"; did you mean @{close}?" if close else ""
        raise UnknownParticipant(
            f"no participant '{key}'{guess} (known: {known}); add participants/{key}.yaml "
            "or run `discussions participants list`"
        )

    def for_author(self, author: str) -> Participant | None:
        """The participant who writes as `author` (display name or alias, any case)."""
        if author in self._for_author:
            return self._for_author[author]
        found = None
        for key in _author_keys(author):
            found = self._by_name.get(key) or self._by_alias.get(key)
            if found is not None:
                break
        self._for_author[author] = found
        return found

    def author_alias(self, author: str) -> str:
        """The mention name of `author`: a participant's alias, else the author lower-cased
        without an ``AI-`` prefix (so ``@rob`` is answered by a comment from ``Rob``)."""
        return self.author_aliases(author)[0]

    def author_aliases(self, author: str) -> tuple[str, ...]:
        """Every mention name that `author` answers: the participant's alias, or for a person
        their name lower-cased, hyphenated, and their first name."""
        known = self._author_aliases.get(author)
        if known is not None:
            return known
        p = self.for_author(author)
        if p is not None:
            known = (p.alias,)
        else:
            keys = _author_keys(author)
            known = keys[1:] if keys[0].startswith("ai-") else keys
        self._author_aliases[author] = known
        return known


class _BrokenPersona(Record):
    """A persona file (or an entry of a ``participants.yaml``) that could not be used:
    `alias`, the alias it would define (its ``alias`` if that is valid, else the file name's
    stem); `problem`, where and what; `error`, the message `ParticipantRegistry.get` raises
    again.
    (A slotted `Record`: making a dataclass costs start-up time on every command.)"""

    __slots__ = ("alias", "problem", "error")

    def __init__(self, alias: str, problem: FileProblem, error: str) -> None:
        self.alias = alias
        self.problem = problem
        self.error = error


def _broken(error: ConfigError, path: Path, data: Any) -> _BrokenPersona:
    alias = data.get("alias") if isinstance(data, dict) else None
    readable = isinstance(alias, str) and alias_problem(alias) is None
    key = normalise_alias(alias) if readable and isinstance(alias, str) else path.stem.lower()
    return _BrokenPersona(key, FileProblem.from_error(error, path), str(error))


def _read_folder(folder: Path) -> list[Participant | _BrokenPersona]:
    if not folder.is_dir():
        return []
    out: list[Participant | _BrokenPersona] = []
    for path in sorted(folder.iterdir()):
        if path.suffix not in (".yaml", ".yml") or not path.is_file():
            continue
        try:
            doc = load_yaml_document(path)
        except ConfigError as exc:
            out.append(_broken(exc, path, None))
            continue
        data = doc.data
        if path.stem == "participants" and isinstance(data, dict) and "participants" in data:
            items = data["participants"]
            if not isinstance(items, list):
                error = located_error(
                    ParticipantError,
                    path,
                    doc.line("participants"),
                    "key 'participants' must be a list",
                )
                out.append(_BrokenPersona("", FileProblem.from_error(error, path), str(error)))
                continue
            for i, item in enumerate(items):
                out.append(_read_one(item, path, doc, ("participants", i)))
        else:
            out.append(_read_one(data, path, doc, ()))
    return out


def _read_one(
    data: Any, path: Path, doc: YamlDocument, at: tuple[str | int, ...]
) -> Participant | _BrokenPersona:
    try:
        return Participant.from_dict(data, path, doc, at)
    except ParticipantError as exc:
        return _broken(exc, path, data)
