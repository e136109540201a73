"""Provider definitions: built-in presets, SmartTools', the user's and (if trusted) the project's.

``providers.yaml`` has SmartTools' shape, plus optional keys::

    providers:
      - name: claude-sonnet
        command: "claude -p --model sonnet"
        description: "Balanced quality/speed"
        timeout: 600            # seconds (optional)
        output: text            # or codex-jsonl, claude-json, gemini-json (optional)
        write_command: "claude -p --permission-mode acceptEdits"   # its write mode (optional)
        env: {NAME: value}      # variables set for the command (optional; see environment)
        write_env: {NAME: value}  # set for write_command, over env (optional)
        context_window: 8192    # the model's context window in tokens (optional; see window)
        parallel: 1             # requests it serves at once; more wait their turn (optional)

Precedence, lowest first: built-in presets, ``$SMARTTOOLS_HOME`` (default ``~/.smarttools``)
``/providers.yaml``, the user dir's ``providers.yaml``, the project's ``providers.yaml``.

Which providers a participant tries: `chains`.

Security (docs/security.md): a project's ``providers.yaml`` comes with the
repository, so a clone could use it to run any command. Its definitions are used only after the
user runs ``discussions trust`` in that project. Trust covers what will run, not only the YAML: the
SHA-256 of ``providers.yaml`` (``env`` included) and of every file inside the project that a
command, a ``write_command`` or an ``env`` value names (a script argument, the executable
itself, a config file), recorded in the user
dir's ``trust.yaml`` under the project's resolved path. Any change to any of them needs
trusting again. A ``providers.yaml`` that is a symbolic link, or that resolves outside the
project, is never trusted.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from .. import atomic
from ..errors import (
    ConfigError,
    DiscussionsError,
    ProviderNotFound,
    UnknownProvider,
    UntrustedProvider,
)
from ..settings.config import load_yaml, load_yaml_document, located_error, user_dir
from ..settings.schema import Fields, Flag, ListOf, Number, Text, validate
from .base import (
    HTTP_TYPE,
    OUTPUT_FORMATS,
    PROMPT_VIA,
    PROVIDER_TYPES,
    REPLAY_PREFIX,
    Provider,
    ProviderSpec,
)
from .chains import INSTALL_HINT as INSTALL_HINT  # their old home: still importable from here
from .chains import missing_cli_note as missing_cli_note
from .chains import participant_chain as participant_chain
from .chains import provider_chain as provider_chain
from .command import CommandProvider, split_command
from .environment import env_problem
from .presets import MOCK_SPEC, PRESETS

if TYPE_CHECKING:  # the mock, replays and servers: loaded when one is used
    from .replay import ReplayProvider

PROVIDERS_FILE = "providers.yaml"
TRUST_FILE = "trust.yaml"


def smarttools_file() -> Path:
    base = os.environ.get("SMARTTOOLS_HOME")
    return (Path(base).expanduser() if base else Path.home() / ".smarttools") / PROVIDERS_FILE


def file_digest(path: Path) -> str:
    import hashlib  # only for a project's providers.yaml and its trust

    return hashlib.sha256(path.read_bytes()).hexdigest()


_ENV = Fields({}, noun="environment variable", extra=True)
"""``env``/``write_env``: any names (`environment.env_problem` checks them and the values)."""


def _providers_file(extra: bool) -> Fields:
    entry = Fields(
        {
            "name": Text(what='text (quote names like "yes")'),
            "command": Text(),
            "write_command": Text(),
            "description": Text(),
            "timeout": Number(above=0, what="a positive number of seconds"),
            "output": Text(OUTPUT_FORMATS),
            "env_remove": ListOf(Text(), "a list of environment variable names"),
            "env": _ENV,
            "write_env": _ENV,
            "nonzero_ok": Flag(),
            "output_limit": Text(),
            "type": Text(PROVIDER_TYPES),
            "prompt_via": Text(PROMPT_VIA),
            "base_url": Text(),
            "model": Text(),
            "api_key_env": Text(what="the name of an environment variable"),
            "allow_plain_http": Flag(),
            "stream": Flag(),
            "max_tokens": Number(minimum=1, whole=True),
            "context_window": Number(minimum=1, whole=True, what="a whole number of tokens"),
            "parallel": Number(minimum=1, whole=True, what="a whole number of requests"),
        },
        noun="provider setting",
        required=("name",),
        extra=extra,
    )
    return Fields(
        {"providers": ListOf(entry, "a list of {name, command} entries")},
        noun="providers.yaml key",
        extra=extra,
    )


PROVIDERS = _providers_file(extra=False)
"""Every key of our ``providers.yaml`` (module docstring)."""
SMARTTOOLS_PROVIDERS = _providers_file(extra=True)
"""SmartTools' ``providers.yaml``: the same keys, and others of SmartTools' own left alone."""


def read_specs(path: Path, source: str) -> list[ProviderSpec]:
    """Provider definitions from one ``providers.yaml``; errors name the file, the line and
    the key (an unknown key with the closest known one)."""
    doc = load_yaml_document(path)
    schema = SMARTTOOLS_PROVIDERS if source == "smarttools" else PROVIDERS
    for problem in validate(doc.data, schema):
        raise located_error(ConfigError, path, doc.line(*problem.keys), problem.message)
    if not isinstance(doc.data, dict):
        return []
    specs: list[ProviderSpec] = []
    for i, item in enumerate(doc.data.get("providers") or []):
        unusable = _entry_problem(item)
        if unusable is not None:
            key, message = unusable
            line = doc.line("providers", i, key) if key in item else doc.line("providers", i)
            raise located_error(ConfigError, path, line, f"providers[{i}]: {message}")
        specs.append(_spec(item, source))
    return specs


def _entry_problem(item: dict[str, Any]) -> tuple[str, str] | None:
    """(key, why) for an entry its type cannot use, or None."""
    kind = (item.get("type") or "command").strip()
    needed = ("name", "base_url", "model") if kind == HTTP_TYPE else ("name", "command")
    for key in needed:
        if not str(item.get(key) or "").strip():
            return key, f"key '{key}' must not be empty" if key in item else f"needs '{key}'"
    for key in ("env", "write_env"):
        bad = env_problem(item.get(key) or {})
        if bad is not None:
            name, why = bad
            return key, f"{key}.{name} {why}" if name else f"{key} {why}"
    if kind == HTTP_TYPE:
        from .server_window import url_problem

        problem = url_problem(item["base_url"].strip(), bool(item.get("allow_plain_http")))
        return None if problem is None else ("base_url", problem)
    return None


def _spec(item: dict[str, Any], source: str) -> ProviderSpec:
    timeout, window, limit = (item.get(k) for k in ("timeout", "context_window", "max_tokens"))
    return ProviderSpec(
        name=item["name"].strip(),
        command=item.get("command"),
        write_command=str(item.get("write_command") or "").strip() or None,
        description=str(item.get("description") or ""),
        timeout=float(timeout) if timeout is not None else None,
        output=item.get("output") or "text",
        env_remove=[str(v) for v in item.get("env_remove") or []],
        env={str(k): v for k, v in (item.get("env") or {}).items()},
        write_env={str(k): v for k, v in (item.get("write_env") or {}).items()},
        nonzero_ok=bool(item.get("nonzero_ok", False)),
        output_limit=str(item.get("output_limit") or ""),
        source=source,
        type=(item.get("type") or "command").strip(),
        prompt_via=(item.get("prompt_via") or "stdin").strip(),
        base_url=str(item.get("base_url") or "").strip(),
        model=str(item.get("model") or "").strip(),
        api_key_env=str(item.get("api_key_env") or "").strip(),
        allow_plain_http=bool(item.get("allow_plain_http", False)),
        stream=bool(item.get("stream", True)),
        max_tokens=int(limit) if limit is not None else None,
        context_window=int(window) if window is not None else None,
        parallel=int(item["parallel"]) if item.get("parallel") is not None else None,
    )


# --------------------------------------------------------------------------- trust


def _trust_path() -> Path:
    return user_dir() / TRUST_FILE


def _read_trust() -> dict[str, dict[str, str]]:
    """``{resolved project path: {relative file: sha256}}``. Entries written by older versions
    (one digest of providers.yaml, keyed by the file) cover too little and are ignored."""
    path = _trust_path()
    if not path.is_file():
        return {}
    data = load_yaml(path) or {}
    projects = data.get("projects") if isinstance(data, dict) else None
    return {
        str(k): {str(f): str(d) for f, d in v.items()}
        for k, v in (projects or {}).items()
        if isinstance(v, dict)
    }


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def trust_refusal(project_file: Path) -> str | None:
    """Why `project_file` can never be trusted, or None: a symbolic link, or a file that
    resolves outside its project (it would lend one project's trust to another)."""
    if project_file.is_symlink():
        return f"{project_file} is a symbolic link; a linked providers.yaml is never trusted"
    root = project_file.parent.resolve()
    if not _inside(project_file.resolve(), root):
        return f"{project_file} resolves outside its project; it is never trusted"
    return None


def _named_files(command: str, root: Path) -> list[Path]:
    """Files inside `root` that `command` names: argv words (and ``--opt=value`` values) that
    are existing files, plus the executable when it lives in the project. Relative words are
    resolved from the project root and from the current folder (where the command will run)."""
    try:
        argv = split_command(command)
    except DiscussionsError:
        return []
    words = [w.split("=", 1)[1] if w.startswith("-") and "=" in w else w for w in argv]
    for flag, module in zip(argv, argv[1:], strict=False):
        if flag == "-m":  # `python -m pkg.mod`: the module's file (not what it imports)
            base = module.replace(".", "/")
            words += [f"{base}.py", f"{base}/__init__.py", f"{base}/__main__.py"]
    bases = dict.fromkeys([root, Path.cwd()])
    candidates = [Path(w) if os.path.isabs(w) else base / w for w in words if w for base in bases]
    exe = shutil.which(argv[0]) if argv else None
    if exe:
        candidates.append(Path(exe))
    found: list[Path] = []
    for path in candidates:
        lexical = Path(os.path.normpath(path))
        try:
            is_file = path.is_file()
        except OSError:
            continue
        if is_file and (_inside(lexical, root) or _inside(path.resolve(), root)):
            found.append(lexical)
    return found


def trust_scope(project_file: Path, specs: Iterable[ProviderSpec] | None = None) -> dict[str, str]:
    """What trusting `project_file` covers: ``{path relative to the project: sha256}`` for the
    file itself and every file inside the project its commands name."""
    root = project_file.parent.resolve()
    if specs is None:
        specs = read_specs(project_file, "project")
    scope = {PROVIDERS_FILE: file_digest(project_file)}
    for spec in specs:
        named = [*_named_files(spec.command or "", root)]
        named += _named_files(spec.write_command or "", root)
        for value in [*spec.env.values(), *spec.write_env.values()]:  # a config file's path
            named += _named_files(shlex.quote(value), root)
        for path in named:
            try:
                rel = path.relative_to(root).as_posix()
            except ValueError:
                rel = path.resolve().relative_to(root).as_posix()
            scope[rel] = file_digest(path)
    return dict(sorted(scope.items()))


def changed_since_trust(
    project_file: Path, specs: Iterable[ProviderSpec] | None = None
) -> list[str] | None:
    """None when `project_file` is trusted as it stands now; else what differs from the
    recorded trust (every covered file when the project was never trusted)."""
    if trust_refusal(project_file) is not None:
        return [PROVIDERS_FILE]
    recorded = _read_trust().get(str(project_file.parent.resolve()), {})
    current = trust_scope(project_file, specs)
    changed = sorted(
        name for name in {*recorded, *current} if recorded.get(name) != current.get(name)
    )
    return changed or None


def is_trusted(project_file: Path) -> bool:
    return changed_since_trust(project_file) is None


def trust(project_file: Path) -> dict[str, str]:
    """Record the user's opt-in for `project_file` and the files its commands name, at their
    current content. Returns what is covered (``{relative path: sha256}``)."""
    refusal = trust_refusal(project_file)
    if refusal is not None:
        raise ConfigError(refusal)
    trusted = _read_trust()
    scope = trust_scope(project_file)
    trusted[str(project_file.parent.resolve())] = scope
    _write_trust(trusted)
    return scope


def revoke(project_file: Path) -> bool:
    trusted = _read_trust()
    removed = trusted.pop(str(project_file.parent.resolve()), None) is not None
    if removed:
        _write_trust(trusted)
    return removed


_EVIDENCE_KEY = "#evidence"


def evidence_scope(root: Path, commands: dict[str, str]) -> dict[str, str]:
    """What trusting a project's ``evidence.commands`` covers: the commands themselves and
    every file inside the project they name (``{name: sha256}``)."""
    import hashlib
    import json

    text = json.dumps(commands, sort_keys=True).encode("utf-8")
    scope = {"evidence.commands": hashlib.sha256(text).hexdigest()}
    root = root.resolve()
    for command in commands.values():
        for path in _named_files(command, root):
            scope[Path(os.path.relpath(path, root)).as_posix()] = file_digest(path)
    return dict(sorted(scope.items()))


def evidence_trusted(root: Path, commands: dict[str, str]) -> bool:
    """Whether the user trusted `commands` for the project at `root`, as they stand now."""
    recorded = _read_trust().get(str(root.resolve()) + _EVIDENCE_KEY)
    return bool(commands) and recorded == evidence_scope(root, commands)


def trust_evidence(root: Path, commands: dict[str, str]) -> dict[str, str]:
    """Record the user's opt-in for the project's evidence commands; returns what it covers."""
    trusted = _read_trust()
    scope = evidence_scope(root, commands)
    trusted[str(root.resolve()) + _EVIDENCE_KEY] = scope
    _write_trust(trusted)
    return scope


def revoke_evidence(root: Path) -> bool:
    """Withdraw the opt-in for the project's evidence commands; whether there was one."""
    trusted = _read_trust()
    removed = trusted.pop(str(root.resolve()) + _EVIDENCE_KEY, None) is not None
    if removed:
        _write_trust(trusted)
    return removed


def _write_trust(trusted: dict[str, dict[str, str]]) -> None:
    path = _trust_path()
    if path.exists() and not path.is_file():
        raise ConfigError(f"{path}: is not a file; move it away so the trust list can be saved")
    path.parent.mkdir(parents=True, exist_ok=True)
    text = (
        "# Projects whose providers.yaml you allowed `discussions` to run: for each project,\n"
        "# the sha256 of providers.yaml and of the project files its commands name.\n"
    )
    text += yaml.safe_dump({"projects": trusted}, sort_keys=True)
    atomic.replace_file(path, text, what="the trust list")


# --------------------------------------------------------------------------- detection


@functools.lru_cache(maxsize=256)
def _which(executable: str, path_env: str | None) -> str | None:
    return shutil.which(executable, path=path_env)


def find_executable(executable: str) -> str | None:
    """`shutil.which`, cached per process (and per PATH value)."""
    return _which(executable, os.environ.get("PATH"))


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
    untrusted_reason: str = ""
    """Why the project's definitions are withheld (not trusted, changed since, a link)."""
    replays: dict[str, ReplayProvider] = field(default_factory=dict)
    """``replay:PATH`` providers handed out, one per name (each keeps its position)."""

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
                reg._add_project(pf, project_specs)
        return reg

    def _add_project(self, pf: Path, project_specs: list[ProviderSpec]) -> None:
        refusal = trust_refusal(pf)
        changed = changed_since_trust(pf, project_specs) if refusal is None else None
        if refusal is None and changed is None:
            for s in project_specs:
                self.specs[s.name] = s
            return
        self.untrusted = {s.name: s for s in project_specs}
        if refusal is not None:
            self.untrusted_reason = refusal
        elif set(changed or ()) == set(trust_scope(pf, project_specs)):
            self.untrusted_reason = f"defined in {pf}, which you have not trusted"
        else:
            self.untrusted_reason = (
                f"defined in {pf}; changed since you trusted it: {', '.join(changed or ())}"
            )

    def names(self) -> list[str]:
        return sorted(self.specs)

    def get(self, name: str) -> Provider:
        """The provider called `name`, ready to use."""
        # An untrusted project definition never runs. Where the user (or a preset) defines the
        # same name, theirs is used; where only the project does, say how to opt in.
        if name in self.untrusted and name not in self.specs:
            raise UntrustedProvider(
                name,
                self.untrusted_reason or f"defined in {self.project_file}, not trusted",
                "review that file, then run `discussions trust` in the project",
            )
        if name.startswith(REPLAY_PREFIX) and name not in self.specs:
            return self._replay(name)
        spec = self.specs.get(name)
        if spec is None:
            raise UnknownProvider(
                name,
                "no provider of that name",
                "add it to providers.yaml or see `discussions providers list`",
            )
        if spec.type == HTTP_TYPE:
            from .openai_compat import OpenAICompatibleProvider  # http.client: only when used

            return OpenAICompatibleProvider(spec)
        if spec.command is None:
            from .mock import MockProvider

            return MockProvider()
        return CommandProvider(spec)

    def _replay(self, name: str) -> ReplayProvider:
        """The ``replay:PATH`` provider (a recorded discussion answers; see `replay`)."""
        if name not in self.replays:
            path = Path(os.path.expanduser(name[len(REPLAY_PREFIX) :]))
            if not path.is_file():
                raise UnknownProvider(
                    name, f"no recording at {path}", "give the path of a discussion file"
                )
            from .replay import ReplayProvider

            self.replays[name] = ReplayProvider(path, name)
        return self.replays[name]

    def status(self, name: str) -> str:
        """``installed``, ``missing`` (executable not on PATH), ``built in`` (the mock),
        ``untrusted`` (only an untrusted project defines it) or ``unknown``."""
        spec = self.specs.get(name)
        if spec is None and name.startswith(REPLAY_PREFIX):
            path = Path(os.path.expanduser(name[len(REPLAY_PREFIX) :]))
            return "built in" if path.is_file() else "missing"
        if spec is None:
            return "untrusted" if name in self.untrusted else "unknown"
        if spec.type == HTTP_TYPE:
            return "installed"  # configured; whether its server is up shows at the call
        if spec.command is None:
            return "built in"
        try:
            argv = split_command(spec.command)
        except DiscussionsError:
            return "missing"
        return "installed" if argv and find_executable(argv[0]) else "missing"

    def can_write(self, name: str) -> bool:
        """Whether `name` has a write mode (`ProviderSpec.write_command`) whose executable is
        on PATH here: whether it can lead an apply."""
        spec = self.specs.get(name)
        if spec is None or not spec.can_write:
            return False
        try:
            argv = split_command(spec.write_command or "")
        except DiscussionsError:
            return False
        return bool(argv) and find_executable(argv[0]) is not None

    def installed(self, name: str) -> bool:
        """Whether `name` can run here (the mock always can)."""
        return self.status(name) in ("installed", "built in")

    def require(self, name: str) -> Provider:
        """The provider `name` a person asked for by name (``--provider``), when it can run
        here: `UnknownProvider` / `UntrustedProvider` as `get`, and `ProviderNotFound` for one
        whose executable is not on PATH. A configuration error, refused before anything is
        written: a call that cannot start is no call, and the file records only calls."""
        provider = self.get(name)
        if self.status(name) == "missing":
            spec = self.specs.get(name)
            what = f"`{_executable(spec.command)}`" if spec and spec.command else "its recording"
            raise ProviderNotFound(
                name,
                f"not installed: {what} not found on PATH",
                "install it, or leave out --provider to use the participants' providers; "
                "`discussions providers list` shows what is installed",
            )
        return provider


def _executable(command: str) -> str:
    """The program a provider's command line runs (the command itself when it cannot be
    split)."""
    try:
        argv = split_command(command)
    except DiscussionsError:
        return command
    return argv[0] if argv else command
