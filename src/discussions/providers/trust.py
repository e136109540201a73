"""The trust store: which project-defined commands the user allowed to run.

Security (docs/security.md): a project's ``providers.yaml`` comes with the
repository, so a clone could use it to run any command. Its definitions are used only after the
user runs ``discussions trust`` in that project. Trust covers what will run, not only the YAML: the
SHA-256 of ``providers.yaml`` (``env`` included) and of every file inside the project that a
command, a ``write_command`` or an ``env`` value names (a script argument, the executable
itself, a config file), recorded in the user
dir's ``trust.yaml`` under the project's resolved path. Any change to any of them needs
trusting again. A ``providers.yaml`` that is a symbolic link, or that resolves outside the
project, is never trusted. A project's ``evidence.commands`` are trusted the same way, under
their own key, and so are its ``evidence.web`` and ``evidence.search`` (network access).
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Iterable
from pathlib import Path

from .. import atomic
from ..errors import ConfigError, DiscussionsError
from ..settings.config import load_yaml, user_dir
from ..settings.research import WebSettings, web_scope
from ..syntax.digest import sha256_hex
from .base import ProviderSpec
from .command import split_command
from .specs import PROVIDERS_FILE, read_specs

_TRUST_FILE = "trust.yaml"


def file_digest(path: Path) -> str:
    """The SHA-256 of the file at `path`, as ``trust.yaml`` records it."""
    return sha256_hex(path.read_bytes())


def _trust_path() -> Path:
    return user_dir() / _TRUST_FILE


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
        named += _named_files(spec.api_key_command or "", root)
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


def _evidence_scope(root: Path, commands: dict[str, str]) -> dict[str, str]:
    """What trusting a project's ``evidence.commands`` covers: the commands themselves and
    every file inside the project they name (``{name: sha256}``)."""
    import json

    text = json.dumps(commands, sort_keys=True).encode("utf-8")
    scope = {"evidence.commands": sha256_hex(text)}
    root = root.resolve()
    for command in commands.values():
        for path in _named_files(command, root):
            scope[Path(os.path.relpath(path, root)).as_posix()] = file_digest(path)
    return dict(sorted(scope.items()))


def evidence_trusted(root: Path, commands: dict[str, str]) -> bool:
    """Whether the user trusted `commands` for the project at `root`, as they stand now."""
    recorded = _read_trust().get(str(root.resolve()) + _EVIDENCE_KEY)
    return bool(commands) and recorded == _evidence_scope(root, commands)


def trust_evidence(root: Path, commands: dict[str, str]) -> dict[str, str]:
    """Record the user's opt-in for the project's evidence commands; returns what it covers."""
    trusted = _read_trust()
    scope = _evidence_scope(root, commands)
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


_WEB_KEY = "#web"


def _web_scope(root: Path, settings: WebSettings) -> dict[str, str]:
    """What trusting a project's web settings covers: the settings themselves (`web_scope`)
    and every file inside the project the search command names."""
    scope = {"evidence.web": sha256_hex(web_scope(settings).encode("utf-8"))}
    root = root.resolve()
    for path in _named_files(settings.search_command, root) if settings.search_command else []:
        scope[Path(os.path.relpath(path, root)).as_posix()] = file_digest(path)
    return dict(sorted(scope.items()))


def web_trusted(root: Path, settings: WebSettings) -> bool:
    """Whether the web settings may be used: always when only the user's own config sets
    them; when the project's discussions.yaml does, once the user trusted them as they are."""
    if not settings.from_project:
        return True
    return _read_trust().get(str(root.resolve()) + _WEB_KEY) == _web_scope(root, settings)


def trust_web(root: Path, settings: WebSettings) -> dict[str, str]:
    """Record the user's opt-in for the project's web settings; returns what it covers."""
    trusted = _read_trust()
    scope = _web_scope(root, settings)
    trusted[str(root.resolve()) + _WEB_KEY] = scope
    _write_trust(trusted)
    return scope


def revoke_web(root: Path) -> bool:
    """Withdraw the opt-in for the project's web settings; whether there was one."""
    trusted = _read_trust()
    removed = trusted.pop(str(root.resolve()) + _WEB_KEY, None) is not None
    if removed:
        _write_trust(trusted)
    return removed


def _write_trust(trusted: dict[str, dict[str, str]]) -> None:
    import yaml  # only to write the list: reading it goes through the parsed-document cache

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
