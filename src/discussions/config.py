"""Where things live and what the configuration says.

Precedence everywhere: project > user > bundled.

* The user dir is ``$DISCUSSIONS_HOME`` if set, else ``$XDG_CONFIG_HOME/discussions``, else
  ``~/.config/discussions``. It holds ``config.yaml``, ``providers.yaml``, ``participants/``,
  ``templates/`` and ``trust.yaml``.
* The project root is the nearest folder, from the start folder upwards, holding a
  ``discussions.yaml``; without one, the start folder itself.
* Bundled personas and templates ship inside the package (``discussions/_bundled``); in a
  source checkout they are read from the repository's top-level folders.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import ConfigError
from .voting import VotingConfig

ENV_HOME = "DISCUSSIONS_HOME"
PROJECT_FILE = "discussions.yaml"

try:  # libyaml is several times faster than the pure-Python loader
    _SafeLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _SafeLoader = yaml.SafeLoader

DEFAULTS: dict[str, Any] = {
    "default_participants": ["architect", "security", "pragmatist"],
    "default_template": "feature",
    "consensus": {"threshold_ready": 0.67, "threshold_reject": 0.01, "human_required": False},
    "providers": {"default": None, "fallback": [], "timeout": 300},
    "output": {"directory": "./discussions", "summary_files": False},
}


def user_dir() -> Path:
    """The user's configuration folder (see module docstring). Not created here."""
    env = os.environ.get(ENV_HOME)
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
    return base / "discussions"


def bundled_dir(kind: str) -> Path:
    """The folder of bundled ``participants`` or ``templates``."""
    here = Path(__file__).resolve().parent
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
    """Read a YAML file with the safe loader; errors name the file and the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid UTF-8") from exc
    try:
        return yaml.load(text, Loader=_SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{path}:{where}: invalid YAML: {problem}") from exc


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


@dataclass(slots=True)
class Config:
    """The merged configuration: defaults < user ``config.yaml`` < project ``discussions.yaml``."""

    data: dict[str, Any]
    """The merged mapping."""
    project_root: Path | None = None
    """Folder of the project's ``discussions.yaml``, if there is one."""
    base_dir: Path = field(default_factory=Path.cwd)
    """Folder relative paths in the configuration are resolved against."""
    sources: list[Path] = field(default_factory=list)
    """Files read, lowest precedence first."""

    @classmethod
    def load(cls, start: Path | None = None) -> Config:
        data = dict(DEFAULTS)
        sources: list[Path] = []
        user_file = user_dir() / "config.yaml"
        root = find_project_root(start)
        for path in (user_file, root / PROJECT_FILE if root else None):
            if path is None or not path.is_file():
                continue
            loaded = load_yaml(path)
            if loaded is None:
                continue
            if not isinstance(loaded, dict):
                raise ConfigError(f"{path}: expected a mapping of settings at the top level")
            _validate(loaded, path)
            data = _merge(data, loaded)
            sources.append(path)
        base = root if root else (start or Path.cwd()).resolve()
        return cls(data=data, project_root=root, base_dir=base, sources=sources)

    # -- typed views -------------------------------------------------------------------

    @property
    def voting(self) -> VotingConfig:
        c = self.data.get("consensus") or {}
        return VotingConfig(
            threshold_ready=float(c.get("threshold_ready", 0.67)),
            threshold_reject=float(c.get("threshold_reject", 0.01)),
            human_required=bool(c.get("human_required", False)),
        )

    @property
    def default_participants(self) -> list[str]:
        return [str(a) for a in self.data.get("default_participants") or []]

    @property
    def default_template(self) -> str:
        return str(self.data.get("default_template") or "feature")

    @property
    def output_directory(self) -> Path:
        raw = (self.data.get("output") or {}).get("directory") or "./discussions"
        path = Path(os.path.expandvars(str(raw))).expanduser()
        return path if path.is_absolute() else self.base_dir / path

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
    def provider_timeout(self) -> float:
        return float((self.data.get("providers") or {}).get("timeout") or 300)

    def section(self, name: str) -> dict[str, Any]:
        value = self.data.get(name) or {}
        return value if isinstance(value, dict) else {}


def _validate(data: dict[str, Any], path: Path) -> None:
    """Reject settings of the wrong type, naming the file and the key."""

    def fail(key: str, expected: str) -> None:
        raise ConfigError(f"{path}: key '{key}' must be {expected}")

    for section in ("consensus", "providers", "output", "context", "watch"):
        if section in data and data[section] is not None and not isinstance(data[section], dict):
            fail(section, "a mapping")
    consensus = data.get("consensus") or {}
    for key in ("threshold_ready", "threshold_reject"):
        if key in consensus:
            v = consensus[key]
            if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 1:
                fail(f"consensus.{key}", "a number between 0 and 1")
    if "human_required" in consensus and not isinstance(consensus["human_required"], bool):
        fail("consensus.human_required", "true or false")
    if "default_participants" in data:
        v = data["default_participants"]
        if not isinstance(v, list) or not all(isinstance(a, str) for a in v):
            fail("default_participants", "a list of aliases")
    providers = data.get("providers") or {}
    if "fallback" in providers:
        v = providers["fallback"]
        if v is not None and (not isinstance(v, list) or not all(isinstance(a, str) for a in v)):
            fail("providers.fallback", "a list of provider names")
    if "timeout" in providers:
        v = providers["timeout"]
        if isinstance(v, bool) or not isinstance(v, int | float) or v <= 0:
            fail("providers.timeout", "a positive number of seconds")
