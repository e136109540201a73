"""Where things live and what the configuration says.

Precedence everywhere: project > user > bundled.

* The user dir is ``$DISCUSSIONS_HOME`` if set, else ``$XDG_CONFIG_HOME/discussions``, else
  ``~/.config/discussions``. It holds ``config.yaml``, ``providers.yaml``, ``participants/``,
  ``templates/`` and ``trust.yaml``.
* The project root is the nearest folder, from the start folder upwards, holding a
  ``discussions.yaml``; without one, the start folder itself.
* Bundled personas and templates ship inside the package (``discussions/_bundled``); in a
  source checkout they are read from the repository's top-level folders.

Every YAML file goes through `load_yaml` (safe loader only). A cloned repository's files are
someone else's input, so before any Python object is built a file is refused (`ConfigError`
naming the file and line) when it is over 1 MiB, nested deeper than 64 levels, or would hold
more than 100,000 values once its aliases are expanded (an alias bomb). A project's
``output.directory`` must stay inside the project (see `Config.output_directory`).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import cache
from importlib.machinery import PathFinder
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..syntax.digest import sha256_hex
from ..syntax.record import Record
from . import yamlcache, yamlparse
from .keys import SETTINGS
from .schema import validate
from .yamlparse import MAX_YAML_BYTES as MAX_YAML_BYTES  # re-exported: the limits and the
from .yamlparse import MAX_YAML_DEPTH as MAX_YAML_DEPTH  # error helpers lived here first,
from .yamlparse import MAX_YAML_VALUES as MAX_YAML_VALUES  # and their users import them here
from .yamlparse import FileProblem as FileProblem
from .yamlparse import YamlDocument as YamlDocument
from .yamlparse import located_error as located_error
from .yamlparse import parse_document, read_limited

_ENV_HOME = "DISCUSSIONS_HOME"
PROJECT_FILE = "discussions.yaml"

_DEFAULTS: dict[str, Any] = {
    "default_participants": ["architect", "security", "pragmatist"],
    "default_template": "feature",
    "consensus": {"threshold_ready": 0.67, "threshold_reject": 0.01, "human_required": False},
    "providers": {"default": None, "fallback": [], "timeout": 300},
    "output": {"directory": "./discussions", "summary_files": False},
}


@dataclass(slots=True)
class VotingConfig:
    """Consensus rules."""

    threshold_ready: float = 0.67
    """Fraction of READY votes needed for consensus."""
    threshold_reject: float = 0.01
    """Fraction of REJECT votes that blocks consensus."""
    human_required: bool = False
    """Whether consensus needs a READY vote from at least one human."""
    distinct_providers: int = 0
    """How many independent sources (distinct providers; two providers that recorded the same
    model are one) the READY votes must come from; 0: no such rule. A person is a source of
    their own; the built-in mock is none."""
    failed_seats: str = "abstain"
    """A seat whose call failed (a ``FAILED`` block, no vote since): ``abstain`` counts it in
    the total as not READY, so a dead seat makes passing harder; ``exclude`` leaves it out."""


def user_dir() -> Path:
    """The user's configuration folder (see module docstring). Not created here."""
    env = os.environ.get(_ENV_HOME)
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
    return base / "discussions"


def user_cache_dir() -> Path:
    """The user's cache folder for discussions: ``$XDG_CACHE_HOME/discussions`` (an absolute
    ``XDG_CACHE_HOME`` only, as the XDG specification says), else ``~/.cache/discussions``.
    What is kept there can be rebuilt (apply clones, derived summaries); not created here."""
    cache = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(cache) if os.path.isabs(cache) else Path.home() / ".cache"
    return base / "discussions"


def bundled_dir(kind: str) -> Path:
    """The folder of bundled ``participants`` or ``templates``."""
    here = Path(__file__).resolve().parent.parent  # the package: src/discussions
    packaged = here / "_bundled" / kind
    if packaged.is_dir():
        return packaged
    return here.parent.parent / kind  # source checkout: src/discussions -> repository root


def find_project_root(start: Path | None = None) -> Path | None:
    """The nearest folder from `start` upwards that holds a ``discussions.yaml``."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / PROJECT_FILE).is_file():
            return folder
    return None


def load_yaml(path: Path) -> Any:
    """Read a YAML file with the safe loader; errors name the file and the line.

    Size, nesting and alias expansion are bounded (`MAX_YAML_BYTES`, `MAX_YAML_DEPTH`,
    `MAX_YAML_VALUES`) before any Python object is built, so a hostile file in a cloned
    repository fails with a `ConfigError` instead of exhausting memory or the stack."""
    return load_yaml_document(path).data


def load_yaml_document(path: Path) -> YamlDocument:
    """Like `load_yaml`, with the line of every key and list item. A text parsed before (by
    this process or an earlier one) is taken from `yamlcache`, without loading PyYAML."""
    text = read_limited(path)
    kept = _documents.get(text)
    if kept is not None:
        return YamlDocument(kept[0], path, kept[1])
    doc = parse_document(text, path)
    _documents.put(text, (doc.data, doc.lines))
    return doc


def _cache_file() -> Path:
    """One cache file per installation (where the parsing code is, and which Python runs it),
    so that two installations sharing a cache folder do not throw out each other's entries."""
    where = ";".join(str(p) for p in _parser_files())
    return user_cache_dir() / "yaml" / f"{sha256_hex(where.encode())[:20]}.marshal"


@cache
def _parser_files() -> tuple[str, ...]:
    """The Python version and the files a document is parsed by: `yamlparse`, the cache's
    and PyYAML's (found without importing it)."""
    spec = PathFinder.find_spec("yaml")
    return sys.version, yamlparse.__file__, yamlcache.__file__, str(spec and spec.origin)


@cache
def _parser_stamp() -> str:
    """The parsing code as it is now: `_parser_files` with their sizes and times."""
    version, *files = _parser_files()
    return f"{version};" + yamlcache.file_stamp(*files)


_documents = yamlcache.DocumentCache(_cache_file, _parser_stamp)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


class Config(Record):
    """The merged configuration: defaults < user ``config.yaml`` < project ``discussions.yaml``.
    (A slotted `Record`: every command loads it first, and making a dataclass costs ~0.3 ms.)"""

    __slots__ = ("data", "project_root", "base_dir", "sources", "settings", "problems")
    data: dict[str, Any]
    """The merged mapping."""
    project_root: Path | None
    """Folder of the project's ``discussions.yaml``, if there is one."""
    base_dir: Path
    """Folder relative paths in the configuration are resolved against (default: the current
    folder)."""
    sources: list[Path]
    """Files read, lowest precedence first."""
    settings: dict[Path, dict[str, Any]]
    """What each file in `sources` says, as written (before merging with the defaults)."""
    problems: list[FileProblem]
    """Keys in `sources` that no setting has (misspelt, or from another version), each with
    the closest known key; the commands warn about them, `check` fails on them."""

    def __init__(
        self,
        data: dict[str, Any],
        project_root: Path | None = None,
        base_dir: Path | None = None,
        sources: list[Path] | None = None,
        settings: dict[Path, dict[str, Any]] | None = None,
        problems: list[FileProblem] | None = None,
    ) -> None:
        self.data = data
        self.project_root = project_root
        self.base_dir = Path.cwd() if base_dir is None else base_dir
        self.sources = [] if sources is None else sources
        self.settings = {} if settings is None else settings
        self.problems = [] if problems is None else problems

    @classmethod
    def load(cls, start: Path | None = None) -> Config:
        data = dict(_DEFAULTS)
        sources: list[Path] = []
        settings: dict[Path, dict[str, Any]] = {}
        problems: list[FileProblem] = []
        user_file = user_dir() / "config.yaml"
        root = find_project_root(start)
        for path in (user_file, root / PROJECT_FILE if root else None):
            if path is None or not path.is_file():
                continue
            doc = load_yaml_document(path)
            if doc.data is None:
                continue
            if not isinstance(doc.data, dict):
                raise ConfigError(f"{path}: expected a mapping of settings at the top level")
            problems += _validate(doc)
            data = _merge(data, doc.data)
            sources.append(path)
            settings[path] = doc.data
        base = root if root else (start or Path.cwd()).resolve()
        return cls(
            data=data,
            project_root=root,
            base_dir=base,
            sources=sources,
            settings=settings,
            problems=problems,
        )

    @property
    def project_file(self) -> Path | None:
        """The project's ``discussions.yaml``, if there is a project."""
        return self.project_root / PROJECT_FILE if self.project_root else None

    def _set_by(self, *keys: str) -> tuple[Path, Any] | None:
        """The file with the highest precedence that sets `keys`, and the value it gives."""
        for path in reversed(self.sources):
            value: Any = self.settings.get(path, {})
            for key in keys:
                value = value.get(key) if isinstance(value, dict) else None
            if value is not None:
                return path, value
        return None

    # -- typed views -------------------------------------------------------------------

    @property
    def voting(self) -> VotingConfig:
        c = self.data.get("consensus") or {}
        return VotingConfig(
            threshold_ready=float(c.get("threshold_ready", 0.67)),
            threshold_reject=float(c.get("threshold_reject", 0.01)),
            human_required=bool(c.get("human_required", False)),
            distinct_providers=int(c.get("distinct_providers", 0)),
            failed_seats=str(c.get("failed_seats", "abstain")).strip(),
        )

    @property
    def grounded_votes(self) -> bool:
        """``consensus.grounded_votes``: a CHANGES or REJECT vote, or a ``CONCERN:``, counts
        only when it rests on something checkable (an evidence block, a grounded citation;
        `derive.citations`). Off by default."""
        return bool((self.data.get("consensus") or {}).get("grounded_votes", False))

    @property
    def default_participants(self) -> list[str]:
        return [str(a) for a in self.data.get("default_participants") or []]

    @property
    def configured_participants(self) -> list[str] | None:
        """``default_participants`` when the user's ``config.yaml`` or the project's
        ``discussions.yaml`` sets it to a non-empty list (the project's wins); else None, so a
        template's own participants apply. Aliases lower-cased, without ``@``."""
        found = self._set_by("default_participants")
        if found is None:
            return None
        aliases = [str(a).strip().lstrip("@").lower() for a in found[1] if str(a).strip()]
        return aliases or None

    @property
    def default_template(self) -> str:
        return str(self.data.get("default_template") or "feature")

    @property
    def output_directory(self) -> Path:
        """Where new discussions go (``output.directory``), relative to the project.

        A project's ``discussions.yaml`` is someone else's file when the repository was
        cloned, so the folder it names (and the default ``./discussions``) must lie inside the
        project, links resolved, and ``$VARS`` / ``~`` in it are not expanded. The user's own
        ``config.yaml`` may name any folder. `ConfigError` names the file that set it."""
        found = self._set_by("output", "directory")
        project_file = self.project_file
        confined = False
        if found is not None and found[0] != project_file:  # the user's own configuration
            path = Path(os.path.expandvars(str(found[1]))).expanduser()
        else:
            raw = found[1] if found else (self.data.get("output") or {}).get("directory")
            raw = str(raw or "./discussions")
            if project_file is None:
                path = Path(os.path.expandvars(raw)).expanduser()
            else:
                path, confined = Path(raw), True
        where = f"{found[0]}: key 'output.directory'" if found else "output.directory"
        if not path.is_absolute():
            path = self.base_dir / path
        if confined and self.project_root is not None:
            root = self.project_root.resolve()
            try:
                inside = path.resolve().is_relative_to(root)
            except (OSError, RuntimeError):  # a symlink loop
                inside = False
            if not inside:
                raise ConfigError(
                    f"{where if found else project_file}: the discussions folder {path} is "
                    f"outside the project folder {root}; a project's settings may only write "
                    "inside the project - to write elsewhere, set output.directory in your own "
                    f"{user_dir() / 'config.yaml'}"
                )
        if path.exists() and not path.is_dir():
            raise ConfigError(
                f"{where} is {path}, which is a file, not a folder; "
                "point it at a folder (it is created when needed)"
            )
        return path

    @property
    def drift_strict(self) -> bool:
        """``drift.strict``: `check --since` fails (an error, not a warning) on a change to
        code a decision governs by a commit that neither touches nor references the
        discussion (`ops.drift`). Off by default."""
        return bool((self.data.get("drift") or {}).get("strict", False))

    @property
    def summary_files(self) -> bool:
        return bool((self.data.get("output") or {}).get("summary_files", False))

    @property
    def default_provider(self) -> str | None:
        value = (self.data.get("providers") or {}).get("default")
        return str(value) if value else None

    @property
    def fallback_providers(self) -> list[str]:
        return [str(p) for p in (self.data.get("providers") or {}).get("fallback") or []]

    @property
    def persona_providers(self) -> dict[str, str]:
        """``providers.personas``: the provider each persona (by alias) tries first, as
        `discussions init` spreads the installed tools over the voting personas."""
        value = (self.data.get("providers") or {}).get("personas") or {}
        if not isinstance(value, dict):
            return {}
        return {str(k).lower(): str(v) for k, v in value.items() if isinstance(v, str) and v}

    @property
    def provider_timeout(self) -> float:
        return float((self.data.get("providers") or {}).get("timeout") or 300)

    def section(self, name: str) -> dict[str, Any]:
        value = self.data.get(name) or {}
        return value if isinstance(value, dict) else {}


def _validate(doc: YamlDocument) -> list[FileProblem]:
    """Check a settings file against `SETTINGS`: a value of the wrong type or out of range
    raises (naming the file, the line and the key); keys nobody reads are returned, each with
    the closest known key, for the commands to warn about."""
    problems = validate(doc.data, SETTINGS)
    for p in problems:
        if not p.unknown:
            raise located_error(ConfigError, doc.path, doc.line(*p.keys), p.message)
    return [FileProblem(doc.path, doc.line(*p.keys), p.message, "ignored") for p in problems]


def default_author() -> str:
    """git's user.name, else the OS user name."""
    import getpass
    import subprocess

    try:
        out = subprocess.run(
            ["git", "config", "user.name"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
        name = out.stdout.strip()
        if out.returncode == 0 and name:
            return name
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "Human"
