"""Discussion templates and the phases they define (seed 004, "Phases" and "Templates").

A template is one YAML file::

    name: feature
    title: Feature Discussion
    description: ...
    aliases: [feature-discussion]
    participants: [architect, security, pragmatist]
    status: OPEN
    title_format: "{title}"          # how the discussion title is written
    consensus_status: ACCEPTED       # status once the last phase reaches consensus
    phases:
      - id: initial_feedback
        title: Initial Feedback
        instructions: ...
        voting_mode: false
        auto_trigger: all_mentioned_responded   # or consensus, or null
        next: detailed_review
    body: |                           # markdown after the header; {title}, {context}
      # {title}
      ...
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import load_yaml
from .errors import TemplateError, UnknownTemplate

AUTO_TRIGGERS = ("all_mentioned_responded", "consensus")
DEFAULT_BODY = "# {title}\n\n## Context\n\n{context}\n"


@dataclass(slots=True)
class Phase:
    """One stage of a discussion."""

    id: str
    """Identifier written in the file."""
    title: str
    """Human-readable name."""
    instructions: str = ""
    """What participants should focus on."""
    voting_mode: bool = False
    """Whether votes are asked for in this phase."""
    auto_trigger: str | None = None
    """Condition for automatic advancement: ``all_mentioned_responded``, ``consensus`` or None."""
    next: str | None = None
    """The phase that follows (None: terminal)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "instructions": self.instructions,
            "voting_mode": self.voting_mode,
            "auto_trigger": self.auto_trigger,
            "next": self.next,
        }


@dataclass(slots=True)
class Template:
    """A kind of discussion: its phases, default participants and starting text."""

    name: str
    title: str = ""
    description: str = ""
    aliases: list[str] = field(default_factory=list)
    participants: list[str] = field(default_factory=list)
    status: str = "OPEN"
    title_format: str = "{title}"
    phases: list[Phase] = field(default_factory=list)
    body: str = DEFAULT_BODY
    consensus_status: str = "CLOSED"
    """Status written when the last phase reaches consensus (auto_trigger: consensus)."""
    source: Path | None = None

    @property
    def first_phase(self) -> str:
        return self.phases[0].id if self.phases else "initial_feedback"

    def phase(self, phase_id: str) -> Phase | None:
        for p in self.phases:
            if p.id == phase_id:
                return p
        return None

    def phase_ids(self) -> list[str]:
        return [p.id for p in self.phases]

    @classmethod
    def from_dict(cls, data: Any, source: Path | None = None) -> Template:
        where = str(source) if source else "template"

        def fail(key: str, problem: str) -> TemplateError:
            return TemplateError(f"{where}: key '{key}' {problem}")

        if not isinstance(data, dict):
            raise TemplateError(f"{where}: expected a mapping with name, phases, body")
        if not isinstance(data.get("name"), str) or not data["name"].strip():
            raise fail("name", "is required and must be text")
        raw_phases = data.get("phases")
        if not isinstance(raw_phases, list) or not raw_phases:
            raise fail("phases", "must be a non-empty list")
        phases: list[Phase] = []
        for i, p in enumerate(raw_phases):
            key = f"phases[{i}]"
            if not isinstance(p, dict) or not isinstance(p.get("id"), str):
                raise fail(key, "must be a mapping with an 'id'")
            trigger = p.get("auto_trigger")
            if trigger is not None and trigger not in AUTO_TRIGGERS:
                raise fail(
                    f"{key}.auto_trigger", f"must be one of {', '.join(AUTO_TRIGGERS)} or null"
                )
            if not isinstance(p.get("voting_mode", False), bool):
                raise fail(f"{key}.voting_mode", "must be true or false")
            phases.append(
                Phase(
                    id=p["id"],
                    title=str(p.get("title") or p["id"].replace("_", " ").title()),
                    instructions=str(p.get("instructions") or ""),
                    voting_mode=bool(p.get("voting_mode", False)),
                    auto_trigger=trigger,
                    next=p.get("next"),
                )
            )
        ids = {p.id for p in phases}
        for i, p in enumerate(phases):
            if p.next is not None and p.next not in ids:
                raise fail(f"phases[{i}].next", f"names unknown phase '{p.next}'")
        for key in ("aliases", "participants"):
            value = data.get(key)
            if value is not None and (
                not isinstance(value, list) or not all(isinstance(v, str) for v in value)
            ):
                raise fail(key, "must be a list of text items")
        body = data.get("body")
        if body is not None and not isinstance(body, str):
            raise fail("body", "must be text")
        return cls(
            name=data["name"].strip(),
            title=str(data.get("title") or data["name"]),
            description=str(data.get("description") or ""),
            aliases=list(data.get("aliases") or []),
            participants=list(data.get("participants") or []),
            status=str(data.get("status") or "OPEN"),
            title_format=str(data.get("title_format") or "{title}"),
            phases=phases,
            body=body if body is not None else DEFAULT_BODY,
            consensus_status=str(data.get("consensus_status") or "CLOSED").upper(),
            source=source,
        )


class TemplateRegistry:
    """Templates by name and alias."""

    def __init__(self, templates: Iterable[Template] = ()) -> None:
        self._by_name: dict[str, Template] = {}
        for t in templates:
            self._by_name[t.name] = t

    @classmethod
    def load(cls, folders: Iterable[Path]) -> TemplateRegistry:
        found: list[Template] = []
        for folder in folders:
            if not folder.is_dir():
                continue
            for path in sorted(folder.iterdir()):
                if path.suffix in (".yaml", ".yml") and path.is_file():
                    found.append(Template.from_dict(load_yaml(path), path))
        return cls(found)

    def __iter__(self) -> Iterator[Template]:
        return iter(sorted(self._by_name.values(), key=lambda t: t.name))

    def find(self, name: str) -> Template | None:
        key = name.strip().lower()
        if key in self._by_name:
            return self._by_name[key]
        for t in self._by_name.values():
            if key in (a.lower() for a in t.aliases):
                return t
        return None

    def get(self, name: str) -> Template:
        t = self.find(name)
        if t is None:
            known = ", ".join(sorted(self._by_name)) or "none"
            raise UnknownTemplate(
                f"no template '{name}' (known: {known}); see `discussions templates list`"
            )
        return t
