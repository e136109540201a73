"""Provider definitions: built-in presets, SmartTools', the user's and (if trusted) the project's.

``providers.yaml`` has SmartTools' shape, plus optional keys::

    providers:
      - name: claude-sonnet
        command: "claude -p --model sonnet"
        description: "Balanced quality/speed"
        timeout: 600            # seconds (optional)
        output: text            # or codex-jsonl (optional)

Precedence, lowest first: built-in presets, ``$SMARTTOOLS_HOME`` (default ``~/.smarttools``)
``/providers.yaml``, the user dir's ``providers.yaml``, the project's ``providers.yaml``.

Security (DESIGN.md section 8): a project's ``providers.yaml`` comes with the repository, so a
clone could use it to run any command. Its definitions are used only after the user runs
``discussions trust`` in that project, which records the file's SHA-256 in the user dir's
``trust.yaml``; any later change to the file needs trusting again.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..config import load_yaml, user_dir
from ..errors import ConfigError, UnknownProvider, UntrustedProvider
from .base import OUTPUT_FORMATS, Provider, ProviderSpec
from .command import CommandProvider
from .mock import MockProvider

PROVIDERS_FILE = "providers.yaml"
TRUST_FILE = "trust.yaml"

_CLAUDE_TOOLS_OFF = (
    "--disallowedTools Bash,Edit,Write,MultiEdit,NotebookEdit,WebFetch,WebSearch,Task"
)
_CLAUDE = f"claude -p --output-format text {_CLAUDE_TOOLS_OFF}"
_CODEX = "codex exec - --sandbox read-only --json --color never --skip-git-repo-check"
_GEMINI = 'gemini -p "" --approval-mode plan -o text'


def _preset(name: str, command: str, description: str, **kw: Any) -> ProviderSpec:
    return ProviderSpec(name=name, command=command, description=description, **kw)


PRESETS: dict[str, ProviderSpec] = {
    p.name: p
    for p in [
        _preset("claude", _CLAUDE, "Claude Code, default model", env_remove=["CLAUDECODE"]),
        _preset(
            "claude-sonnet",
            f"{_CLAUDE} --model sonnet",
            "Claude Code, Sonnet",
            env_remove=["CLAUDECODE"],
        ),
        _preset(
            "claude-haiku",
            f"{_CLAUDE} --model haiku",
            "Claude Code, Haiku (fast)",
            env_remove=["CLAUDECODE"],
        ),
        _preset(
            "claude-opus", f"{_CLAUDE} --model opus", "Claude Code, Opus", env_remove=["CLAUDECODE"]
        ),
        _preset("codex", _CODEX, "OpenAI Codex CLI, read-only sandbox", output="codex-jsonl"),
        _preset("gemini", _GEMINI, "Gemini CLI, plan mode", nonzero_ok=True),
        _preset(
            "gemini-flash", f"{_GEMINI} -m gemini-2.5-flash", "Gemini CLI, Flash", nonzero_ok=True
        ),
        _preset("gemini-pro", f"{_GEMINI} -m gemini-2.5-pro", "Gemini CLI, Pro", nonzero_ok=True),
        _preset("opencode", "opencode run", "opencode, default model"),
        _preset(
            "opencode-deepseek",
            "opencode run --model deepseek/deepseek-chat",
            "opencode, DeepSeek chat",
        ),
        _preset("llm", "llm", "Simon Willison's llm, default model"),
        _preset("ollama", "ollama run llama3.2", "ollama, llama3.2 (local)"),
    ]
}
MOCK_SPEC = ProviderSpec(name="mock", command=None, description="Built-in mock (testing only)")


def smarttools_file() -> Path:
    base = os.environ.get("SMARTTOOLS_HOME")
    return (Path(base).expanduser() if base else Path.home() / ".smarttools") / PROVIDERS_FILE


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_specs(path: Path, source: str) -> list[ProviderSpec]:
    """Provider definitions from one ``providers.yaml``; errors name the file and the key."""
    data = load_yaml(path)
    if data is None:
        return []
    if not isinstance(data, dict) or not isinstance(data.get("providers", []), list):
        raise ConfigError(f"{path}: key 'providers' must be a list of {{name, command}} entries")
    specs: list[ProviderSpec] = []
    for i, item in enumerate(data.get("providers") or []):
        key = f"providers[{i}]"
        if not isinstance(item, dict):
            raise ConfigError(f"{path}: key '{key}' must be a mapping with name and command")
        name, command = item.get("name"), item.get("command")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(
                f"{path}: key '{key}.name' is required and must be text (quote names like \"yes\")"
            )
        if not isinstance(command, str) or not command.strip():
            raise ConfigError(f"{path}: key '{key}.command' is required (provider '{name}')")
        timeout = item.get("timeout")
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
        ):
            raise ConfigError(f"{path}: key '{key}.timeout' must be a positive number of seconds")
        output = item.get("output", "text")
        if output not in OUTPUT_FORMATS:
            raise ConfigError(
                f"{path}: key '{key}.output' must be one of {', '.join(OUTPUT_FORMATS)}"
            )
        env_remove = item.get("env_remove") or []
        if not isinstance(env_remove, list):
            raise ConfigError(f"{path}: key '{key}.env_remove' must be a list")
        specs.append(
            ProviderSpec(
                name=name.strip(),
                command=command,
                description=str(item.get("description") or ""),
                timeout=float(timeout) if timeout is not None else None,
                output=output,
                env_remove=[str(v) for v in env_remove],
                nonzero_ok=bool(item.get("nonzero_ok", False)),
                source=source,
            )
        )
    return specs


# --------------------------------------------------------------------------- trust


def _trust_path() -> Path:
    return user_dir() / TRUST_FILE


def _read_trust() -> dict[str, str]:
    path = _trust_path()
    if not path.is_file():
        return {}
    data = load_yaml(path) or {}
    projects = data.get("projects") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in (projects or {}).items()}


def is_trusted(project_file: Path) -> bool:
    return _read_trust().get(str(project_file.resolve())) == file_digest(project_file)


def trust(project_file: Path) -> str:
    """Record the user's opt-in for `project_file` at its current content. Returns the digest."""
    trusted = _read_trust()
    digest = file_digest(project_file)
    trusted[str(project_file.resolve())] = digest
    _write_trust(trusted)
    return digest


def revoke(project_file: Path) -> bool:
    trusted = _read_trust()
    removed = trusted.pop(str(project_file.resolve()), None) is not None
    if removed:
        _write_trust(trusted)
    return removed


def _write_trust(trusted: dict[str, str]) -> None:
    path = _trust_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    text = "# Projects whose providers.yaml you allowed `discussions` to run (path: sha256).\n"
    text += yaml.safe_dump({"projects": trusted}, sort_keys=True)
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


# --------------------------------------------------------------------------- registry


@dataclass(slots=True)
class ProviderRegistry:
    """All provider definitions visible from a project."""

    specs: dict[str, ProviderSpec] = field(default_factory=dict)
    """Usable definitions by name."""
    untrusted: dict[str, ProviderSpec] = field(default_factory=dict)
    """Project definitions withheld until the project is trusted."""
    project_file: Path | None = None
    """The project's providers.yaml, if there is one."""

    @classmethod
    def load(cls, project_root: Path | None) -> ProviderRegistry:
        reg = cls(specs=dict(PRESETS))
        reg.specs["mock"] = MOCK_SPEC
        st = smarttools_file()
        if st.is_file():
            for s in read_specs(st, "smarttools"):
                reg.specs[s.name] = s
        uf = user_dir() / PROVIDERS_FILE
        if uf.is_file():
            for s in read_specs(uf, "user"):
                reg.specs[s.name] = s
        if project_root is not None:
            pf = project_root / PROVIDERS_FILE
            if pf.is_file():
                reg.project_file = pf
                project_specs = read_specs(pf, "project")
                if is_trusted(pf):
                    for s in project_specs:
                        reg.specs[s.name] = s
                else:
                    reg.untrusted = {s.name: s for s in project_specs}
        return reg

    def names(self) -> list[str]:
        return sorted(self.specs)

    def get(self, name: str) -> Provider:
        """The provider called `name`, ready to use."""
        # An untrusted project definition never runs. Where the user (or a preset) defines the
        # same name, theirs is used; where only the project does, say how to opt in.
        if name in self.untrusted and name not in self.specs:
            raise UntrustedProvider(
                name,
                f"defined in {self.project_file}, which you have not trusted",
                "review that file, then run `discussions trust` in the project",
            )
        spec = self.specs.get(name)
        if spec is None:
            raise UnknownProvider(
                name,
                "no provider of that name",
                "add it to providers.yaml or see `discussions providers list`",
            )
        if spec.command is None:
            return MockProvider()
        return CommandProvider(spec)
