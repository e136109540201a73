"""Discussion templates and the phases they define.

A template is one YAML file::

    name: feature
    title: Feature Discussion
    description: ...
    aliases: [feature-discussion]
    participants: [architect, security, pragmatist]
    status: OPEN
    title_format: "{title}"          # how the discussion title is written
    consensus_status: ACCEPTED       # status once the last phase reaches consensus
    output: {type: documentation, leader: architect, max_revisions: 2, path: docs/x.md}
    contrarian: advocate             # asked when agreement comes too fast (docs/council.md)
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

import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import ConfigError, TemplateError, UnknownTemplate
from ..syntax.record import Record
from . import graph
from .apply import APPLY, read_apply
from .config import FileProblem, YamlDocument, load_yaml_document, located_error
from .graph import FALLBACK_ACTIONS, WHEN
from .output import OUTPUT, Output, read_output
from .participants import alias_problem, normalise_alias
from .phases import Phase as Phase  # where the other modules have always found it
from .schema import Fields, Flag, ListOf, Number, Text, key_name, validate

_AUTO_TRIGGERS = ("all_mentioned_responded", "consensus", "motion_passed")
OPEN_STATUSES = ("OPEN", "PROPOSED", "DRAFT")
"""Built-in statuses of a discussion still going on (with every template's starting
``status``): what ``list --status open`` shows."""
FINISHED_STATUSES = (
    "CLOSED",
    "DECIDED",
    "ACCEPTED",
    "APPROVED",
    "REJECTED",
    "RESOLVED",
    "DONE",
    "ABANDONED",
    "WITHDRAWN",
    "UNAPPROVED",
    "IMPLEMENTED",
)
"""Built-in statuses of a finished discussion (with every template's ``consensus_status``)."""
_DEFAULT_BODY = "# {title}\n\n## Context\n\n{context}\n"


class Template(Record):
    """A kind of discussion: its phases, default participants and starting text. (A slotted
    `Record`: a turn loads the templates before its first call, and making a dataclass costs
    ~0.3 ms.)"""

    __slots__ = (
        "name",
        "title",
        "description",
        "aliases",
        "participants",
        "status",
        "title_format",
        "phases",
        "body",
        "consensus_status",
        "context_format",
        "source",
        "max_phase_transitions",
        "output",
        "apply",
        "contrarian",
    )
    name: str
    title: str
    description: str
    aliases: list[str]
    participants: list[str]
    status: str
    title_format: str
    phases: list[Phase]
    body: str
    consensus_status: str
    """Status written when the last phase reaches consensus (auto_trigger: consensus)."""
    context_format: str | None
    """How ``--context`` is written: None as given, ``diff`` a raw diff fenced as code."""
    source: Path | None
    max_phase_transitions: int | None
    """How many phase transitions a discussion may make (needed when the phases form a cycle)."""
    output: Output | None
    """What the decided discussion produces (``output:``, `output.Output`)."""
    apply: dict[str, Any] | None
    """The ``apply:`` keys the template sets (`apply.apply_settings` merges them)."""
    contrarian: str | None
    """The persona asked for the strongest case against when a voting phase agrees at once on
    nothing checkable (``contrarian:``, `derive.contrarian`); None: never asked."""

    def __init__(
        self,
        name: str,
        title: str = "",
        description: str = "",
        aliases: list[str] | None = None,
        participants: list[str] | None = None,
        status: str = "OPEN",
        title_format: str = "{title}",
        phases: list[Phase] | None = None,
        body: str = _DEFAULT_BODY,
        consensus_status: str = "CLOSED",
        context_format: str | None = None,
        source: Path | None = None,
        max_phase_transitions: int | None = None,
        output: Output | None = None,
        apply: dict[str, Any] | None = None,
        contrarian: str | None = None,
    ) -> None:
        self.name = name
        self.title = title
        self.description = description
        self.aliases = [] if aliases is None else aliases
        self.participants = [] if participants is None else participants
        self.status = status
        self.title_format = title_format
        self.phases = [] if phases is None else phases
        self.body = body
        self.consensus_status = consensus_status
        self.context_format = context_format
        self.source = source
        self.max_phase_transitions = max_phase_transitions
        self.output = output
        self.apply = apply
        self.contrarian = contrarian

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
    def from_dict(
        cls, data: Any, source: Path | None = None, doc: YamlDocument | None = None
    ) -> Template:
        """Build and validate; errors name the file, the line (when `doc` gives the lines of
        the file `data` was read from) and the key (``phases[1].next``)."""

        def fail(keys: tuple[str | int, ...], problem: str) -> TemplateError:
            line = doc.line(*keys) if doc else 0
            message = f"key '{key_name(keys)}' {problem}" if keys else problem
            return located_error(TemplateError, source, line, message, what="template")

        if not isinstance(data, dict):
            raise fail((), "expected a mapping with name, phases, body")
        for found in validate(data, TEMPLATE):
            line = doc.line(*found.keys) if doc else 0
            raise located_error(TemplateError, source, line, found.message, what="template")
        _check_top_level(data, fail)
        phases = _read_phases(data["phases"], fail)
        cap = graph.check_graph(phases, data.get("max_phase_transitions"), fail)
        body = data.get("body")
        return cls(
            name=data["name"].strip(),
            title=(data.get("title") or "").strip() or data["name"].strip(),
            description=(data.get("description") or "").strip(),
            aliases=[a.strip() for a in data.get("aliases") or []],
            participants=[normalise_alias(a) for a in data.get("participants") or []],
            status=(data.get("status") or "").strip() or "OPEN",
            title_format=(data.get("title_format") or "").strip() or "{title}",
            phases=phases,
            body=body if body is not None else _DEFAULT_BODY,
            consensus_status=((data.get("consensus_status") or "").strip() or "CLOSED").upper(),
            context_format=(data.get("context_format") or "").strip() or None,
            source=source,
            max_phase_transitions=cap,
            output=read_output(data.get("output")),
            apply=read_apply(data.get("apply")),
            contrarian=normalise_alias(data["contrarian"]) if data.get("contrarian") else None,
        )


_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_STATUS = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def _plain_name_problem(name: str) -> str | None:
    """Names written into a discussion's header (template names, phase ids): ASCII letters,
    digits, ``_ . -``, starting with a letter or digit, at most 64 characters."""
    if not _PLAIN_NAME.fullmatch(name) or len(name) > 64:
        return f"must be a plain name (letters, digits, '_', '.', '-'), got {name!r}"
    return None


def _status_problem(status: str) -> str | None:
    """A status word (``OPEN``, ``ACCEPTED``): a letter, then letters, digits, ``_ -``; at
    most 32 characters."""
    if not _STATUS.fullmatch(status) or len(status) > 32:
        return f"must be one word such as OPEN or ACCEPTED, got {status!r}"
    return None


def _line_problem(text: str) -> str | None:
    """Text shown on one line (titles): printable, no line breaks, at most 200 characters."""
    if not text.isprintable():
        bad = next(ch for ch in text if not ch.isprintable())
        return f"must be one line of printable text, found {bad!r}"
    if len(text) > 200:
        return f"must be at most 200 characters, got {len(text)}"
    return None


def _title_format_problem(text: str) -> str | None:
    """``title_format``: one line, without ``<`` or ``>`` (it is written into the header)."""
    if "<" in text or ">" in text:
        return "must not contain '<' or '>'"
    return _line_problem(text)


_CONSENSUS_MODES = ("votes", "score", "vote_first")
_CONTEXT_FORMATS = ("diff",)


_TEXTS = ListOf(Text(), "a list of text items")
_ROUNDS = Number(1, whole=True, what="a whole number (1 or more)")
PHASE = Fields(
    {
        "id": Text(),
        "title": Text(),
        "instructions": Text(),
        "voting_mode": Flag(),
        "auto_trigger": Text(_AUTO_TRIGGERS),
        "next": Text(),
        "max_rounds": _ROUNDS,
        "consensus_mode": Text(_CONSENSUS_MODES),
        "score_threshold": Number(0, 10, whole=True),
        "transitions": ListOf(
            Fields({"to": Text(), "when": Text(WHEN)}, "transition key", ("to", "when")),
            "a list of {to, when} mappings",
        ),
        "fallback": Fields(
            {"action": Text(FALLBACK_ACTIONS), "resolution": Text()}, "fallback key", ("action",)
        ),
        "blind": Flag(),
        "anonymous": Flag(),
        "diagnosis": Flag(),
        "majority_threshold": Number(0, below=1, what="a number from 0 to 0.99"),
        "abstain_counts_as_no": Flag(),
        "flip_threshold": Number(0, whole=True),
    },
    noun="phase setting",
    required=("id",),
)
TEMPLATE = Fields(
    {
        "name": Text(),
        "title": Text(),
        "description": Text(),
        "aliases": _TEXTS,
        "participants": _TEXTS,
        "status": Text(),
        "title_format": Text(),
        "consensus_status": Text(),
        "context_format": Text(_CONTEXT_FORMATS),
        "phases": ListOf(PHASE, "a non-empty list"),
        "max_phase_transitions": _ROUNDS,
        "body": Text(),
        "output": OUTPUT,
        "apply": APPLY,
        "contrarian": Text(),
    },
    noun="template setting",
    required=("name", "phases"),
)
"""Every key of a template file (module docstring, and `graph` for the phase graph)."""


_TOP_LEVEL_CHECKS: tuple[tuple[str, Callable[[str], str | None]], ...] = (
    ("name", _plain_name_problem),
    ("title", _line_problem),
    ("status", _status_problem),
    ("consensus_status", _status_problem),
    ("title_format", _title_format_problem),
)
_PHASE_CHECKS: tuple[tuple[str, Callable[[str], str | None]], ...] = (
    ("id", _plain_name_problem),
    ("title", _line_problem),
    ("next", _plain_name_problem),
)


def _check(value: Any, check: Callable[[str], str | None], required: bool = False) -> str | None:
    """None when `value` is absent (null) or text that `check` accepts, else the problem."""
    if value is None:
        return "is required" if required else None
    if not isinstance(value, str):
        kind = (
            "a list"
            if isinstance(value, list)
            else "a mapping"
            if isinstance(value, dict)
            else repr(value)
        )
        return f"must be text, not {kind}"
    return check(value.strip()) if value.strip() or required else None


def _check_top_level(data: dict[str, Any], fail: graph.Fail) -> None:
    """The template's own keys: a name, text keys each check accepts, aliases and participants."""
    if not data["name"].strip():
        raise fail(("name",), "is required and must not be empty")
    for key, check in _TOP_LEVEL_CHECKS:
        problem = _check(data.get(key), check)
        if problem:
            raise fail((key,), problem)
    problem = _check(data.get("contrarian"), alias_problem)
    if problem:
        raise fail(("contrarian",), problem)
    for key, item_check in (("aliases", _plain_name_problem), ("participants", alias_problem)):
        for n, item in enumerate(data.get(key) or []):
            problem = _check(item, item_check, required=True)
            if problem:
                raise fail((key, n), problem)


def _read_phases(raw_phases: list[Any], fail: graph.Fail) -> list[Phase]:
    """The phases, in order: each checked, ids unique, every ``next`` naming one of them."""
    if not raw_phases:
        raise fail(("phases",), "must be a non-empty list")
    phases: list[Phase] = []
    for i, p in enumerate(raw_phases):
        for key, check in _PHASE_CHECKS:
            problem = _check(p.get(key), check, required=key == "id")
            if problem:
                raise fail(("phases", i, key), problem)
        if any(p["id"].strip() == q.id for q in phases):
            raise fail(("phases", i, "id"), f"repeats phase '{p['id'].strip()}'")
        phases.append(_read_phase(p, i, fail))
    ids = [p.id for p in phases]
    for i, ph in enumerate(phases):
        if ph.next is not None and ph.next not in ids:
            known = ", ".join(ids)
            raise fail(("phases", i, "next"), f"names unknown phase '{ph.next}' ({known})")
    return phases


def _read_phase(p: dict[str, Any], i: int, fail: graph.Fail) -> Phase:
    """Phase `i` of the template, its keys checked, defaults filled in."""
    threshold = p.get("score_threshold")
    majority = p.get("majority_threshold")
    mode = (p.get("consensus_mode") or "").strip() or "votes"
    return Phase(
        id=p["id"].strip(),
        title=(p.get("title") or "").strip() or p["id"].replace("_", " ").title(),
        instructions=p.get("instructions") or "",
        voting_mode=bool(p.get("voting_mode", False)) or mode == "vote_first",
        auto_trigger=p.get("auto_trigger"),
        next=(p.get("next") or "").strip() or None,
        max_rounds=p.get("max_rounds"),
        consensus_mode=mode,
        score_threshold=9 if threshold is None else threshold,
        **graph.phase_options(p, ("phases", i), fail),
        majority_threshold=float(0.5 if majority is None else majority),
        abstain_counts_as_no=bool(p.get("abstain_counts_as_no", False)),
        flip_threshold=p.get("flip_threshold"),
    )


class _BrokenTemplate(Record):
    """A template file that could not be used: `name`, the name it would define (its
    ``name`` if readable, else the file name's stem); `problem`, where and what; `error`, the
    message `TemplateRegistry.get` raises again.
    (A slotted `Record`: making a dataclass costs start-up time on every command.)"""

    __slots__ = ("name", "problem", "error")

    def __init__(self, name: str, problem: FileProblem, error: str) -> None:
        self.name = name
        self.problem = problem
        self.error = error


class TemplateRegistry:
    """Templates by name and alias."""

    def __init__(
        self,
        templates: Iterable[Template | _BrokenTemplate] = (),
        problems: Iterable[FileProblem] = (),
    ) -> None:
        self._by_name: dict[str, Template] = {}
        self._broken: dict[str, _BrokenTemplate] = {}
        self.problems: list[FileProblem] = list(problems)
        """Template files that could not be used, in reading order. The rest were read;
        `get` of a name one of them defines raises its error."""
        for t in templates:  # later ones win: a broken override hides what it overrides
            if isinstance(t, _BrokenTemplate):
                self._by_name.pop(t.name, None)
                self._broken[t.name] = t
            else:
                self._broken.pop(t.name.lower(), None)
                self._by_name[t.name.lower()] = t

    @classmethod
    def load(cls, folders: Iterable[Path]) -> TemplateRegistry:
        """Read template files from `folders`, lowest precedence first. A file that cannot
        be used becomes an entry of `problems`; it does not stop the others from loading."""
        found: list[Template | _BrokenTemplate] = []
        for folder in folders:
            if not folder.is_dir():
                continue
            for path in sorted(folder.iterdir()):
                if path.suffix in (".yaml", ".yml") and path.is_file():
                    found.append(_read_template(path))
        return cls(found, [t.problem for t in found if isinstance(t, _BrokenTemplate)])

    def __iter__(self) -> Iterator[Template]:
        return iter(sorted(self._by_name.values(), key=lambda t: t.name))

    def find(self, name: str) -> Template | None:
        """The template called `name` (or with `name` among its aliases); None when there is
        none or its file is broken (see `problem_for`)."""
        key = name.strip().lower()
        if key in self._by_name:
            return self._by_name[key]
        if key in self._broken:
            return None
        for t in self._by_name.values():
            if key in (a.lower() for a in t.aliases):
                return t
        return None

    def problem_for(self, name: str) -> FileProblem | None:
        """The problem of the broken file that defines template `name`, if that is why it is
        missing."""
        broken = self._broken.get(name.strip().lower())
        return broken.problem if broken else None

    def get(self, name: str) -> Template:
        """The template `name`; `TemplateError` (the file's) when its file is broken,
        `UnknownTemplate` when nobody defines it."""
        t = self.find(name)
        if t is not None:
            return t
        broken = self._broken.get(name.strip().lower())
        if broken is not None:
            raise TemplateError(broken.error)
        known = ", ".join(sorted(self._by_name)) or "none"
        raise UnknownTemplate(
            f"no template '{name}' (known: {known}); see `discussions templates list`"
        )


def known_statuses(templates: Iterable[Template]) -> list[str]:
    """Every status a discussion may be given: the built-in ones (`OPEN_STATUSES`,
    `FINISHED_STATUSES`) and those `templates` name (``status``, ``consensus_status``)."""
    found = dict.fromkeys((*OPEN_STATUSES, *FINISHED_STATUSES))
    for t in templates:
        found.update(dict.fromkeys((t.status.upper(), t.consensus_status.upper())))
    return list(found)


def is_open(status: str, template: Template | None = None) -> bool:
    """Whether a discussion with `status` is still going on: a built-in open status
    (`OPEN_STATUSES`) or its template's starting one (the adr template starts PROPOSED)."""
    s = status.strip().upper()
    return s in OPEN_STATUSES or (template is not None and s == template.status.upper())


def _read_template(path: Path) -> Template | _BrokenTemplate:
    data: Any = None
    try:
        doc = load_yaml_document(path)
        data = doc.data
        return Template.from_dict(data, path, doc)
    except ConfigError as exc:
        raw = data.get("name") if isinstance(data, dict) else None
        name = raw.strip().lower() if isinstance(raw, str) and raw.strip() else path.stem.lower()
        return _BrokenTemplate(name, FileProblem.from_error(exc, path), str(exc))
