"""Provider definitions as ``providers.yaml`` writes them: its schema and its reader.

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

Which files are read, in which order: `registry`; whether a project's may be used: `trust`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..settings.config import load_yaml_document, located_error
from ..settings.schema import Fields, Flag, ListOf, Number, Text, validate
from .base import OUTPUT_FORMATS, PROMPT_VIA, ProviderSpec
from .environment import env_problem
from .kinds import declarable, kind

PROVIDERS_FILE = "providers.yaml"


def smarttools_file() -> Path:
    base = os.environ.get("SMARTTOOLS_HOME")
    return (Path(base).expanduser() if base else Path.home() / ".smarttools") / PROVIDERS_FILE


_ENV = Fields({}, noun="environment variable", extra=True)
"""``env``/``write_env``: any names (`environment.env_problem` checks them and the values)."""


def _providers_file(extra: bool) -> Fields:
    """Every key of a ``providers.yaml`` (module docstring); with `extra`, other keys are left
    alone (SmartTools' file has keys of its own). Built per file read, so the ``type:``
    choices are the kinds registered then (`kinds.KINDS`)."""
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
            "type": Text(declarable()),
            "prompt_via": Text(PROMPT_VIA),
            "base_url": Text(),
            "model": Text(),
            "api_key_env": Text(what="the name of an environment variable"),
            "api_key_command": Text(what="a command line that prints the key"),
            "api_key_ttl": Number(0, what="a number of seconds (0 or more)"),
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


def read_specs(path: Path, source: str) -> list[ProviderSpec]:
    """Provider definitions from one ``providers.yaml``; errors name the file, the line and
    the key (an unknown key with the closest known one)."""
    doc = load_yaml_document(path)
    # SmartTools' own keys are left alone in its file; the kinds are those registered now
    schema = _providers_file(extra=source == "smarttools")
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
    its_kind = kind((item.get("type") or "command").strip())
    for key in its_kind.REQUIRED:
        if not str(item.get(key) or "").strip():
            return key, f"key '{key}' must not be empty" if key in item else f"needs '{key}'"
    for key in ("env", "write_env"):
        bad = env_problem(item.get(key) or {})
        if bad is not None:
            name, why = bad
            return key, f"{key}.{name} {why}" if name else f"{key} {why}"
    return its_kind.entry_problem(item)


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
        api_key_command=str(item.get("api_key_command") or "").strip() or None,
        api_key_ttl=float(item["api_key_ttl"]) if item.get("api_key_ttl") is not None else None,
    )
