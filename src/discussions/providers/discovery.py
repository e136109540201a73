"""What AI tools this machine has, for `discussions init`: the AI CLIs installed (found the way
every chain finds them, `ProviderRegistry.installed`, then asked ``--version`` with a short
timeout) and the model servers running on loopback at their usual ports (an HTTP ``GET`` of
their OpenAI-compatible models list), each optionally tried with a tiny real call (`try_tool`).

Nothing here writes anything: `ops.wizard` decides what to keep and writes the settings.

The ``ollama`` preset (``ollama run llama3.2``) is never tried: ``ollama run`` downloads a model
it lacks (gigabytes, from a tiny test). A running Ollama server is found as a server instead,
with a model it already has; the CLI alone, without its server, cannot answer.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..errors import DiscussionsError
from .base import ProviderRequest, ProviderSpec, complete_with_usage
from .kinds import kind_of
from .kinds.command import program_on_path
from .registry import ProviderRegistry
from .server_window import models_at

CLI_VENDORS: dict[str, str] = {
    "claude": "Anthropic",
    "codex": "OpenAI",
    "gemini": "Google",
    "qwen": "Alibaba (Qwen)",
    "opencode": "opencode",
    "copilot": "GitHub",
    "llm": "llm",
    "ollama": "local",
}
"""The CLIs `discussions init` looks for, in the order it prefers them, with who makes the model
each one reaches by default (what makes a council diverse)."""

LOCAL_SERVERS: tuple[tuple[str, str], ...] = (
    ("ollama-server", "http://127.0.0.1:11434/v1"),
    ("llamacpp-server", "http://127.0.0.1:8080/v1"),
    ("lmstudio-server", "http://127.0.0.1:1234/v1"),
)
"""Where Ollama, a llama.cpp server and LM Studio listen unless told otherwise (their
documented default ports), with the provider name each one gets."""

VERSION_TIMEOUT = 15.0
"""Seconds a CLI has to print its version (gemini 0.61 takes 4 to 6 on a busy machine)."""
SERVER_TIMEOUT = 1.5
"""Seconds a server has to list its models (loopback: a running one answers at once)."""
TEST_PROMPT = "Reply with the single word: ready"


@dataclass(slots=True)
class FoundTool:
    """One AI tool found on this machine."""

    name: str
    """The provider name it is used by (a preset's, or a server's from `LOCAL_SERVERS`)."""
    kind: str
    """``cli`` or ``server``."""
    vendor: str
    """Who makes the model it reaches (`CLI_VENDORS`; ``local`` for servers)."""
    detail: str
    """Its version line (a CLI) or the model it serves (a server)."""
    spec: ProviderSpec | None = None
    """A server's provider definition (to be written to providers.yaml); None for presets."""
    usable: bool = True
    """False when it did not answer ``--version`` (or is the ``ollama`` CLI without a
    server): listed, never chosen."""
    test: str = "not tried"
    """``ok``, ``failed: WHY`` or ``not tried``."""
    seconds: float | None = None
    """How long the test call took."""
    models: list[str] = field(default_factory=list)
    """Every model a server listed."""

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "kind": self.kind,
            "vendor": self.vendor,
            "detail": self.detail,
            "usable": self.usable,
            "test": self.test,
            "seconds": None if self.seconds is None else round(self.seconds, 3),
            "base_url": self.spec.base_url if self.spec else None,
            "models": self.models,
        }


def version_of(executable: str, timeout: float = VERSION_TIMEOUT) -> str | None:
    """The first line ``EXECUTABLE --version`` prints on standard output (standard error when
    it prints nothing there), or None when it fails or takes longer than `timeout` (its whole
    process group is then killed: node CLIs start children). Standard error comes second:
    codex 0.171 warns there first ("WARNING: proceeding, even though we could not create PATH
    aliases") when its home is under a temporary folder."""
    try:
        proc = subprocess.Popen(
            [executable, "--version"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError:
        return None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return None
    text = out.decode("utf-8", "replace").strip() or err.decode("utf-8", "replace").strip()
    return text.splitlines()[0].strip()[:120] if proc.returncode == 0 and text else None


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.communicate()


def find_clis(registry: ProviderRegistry, timeout: float = VERSION_TIMEOUT) -> list[FoundTool]:
    """The CLIs of `CLI_VENDORS` installed here, each with its version (asked in parallel)."""
    names = [n for n in CLI_VENDORS if n in registry.specs and registry.installed(n)]
    with ThreadPoolExecutor(max_workers=max(1, len(names))) as pool:
        versions = list(pool.map(lambda n: _version_of_preset(registry, n, timeout), names))
    return [
        FoundTool(
            name,
            "cli",
            CLI_VENDORS[name],
            version or "no answer to --version",
            None,
            usable=version is not None,
        )
        for name, version in zip(names, versions, strict=True)
    ]


def _version_of_preset(registry: ProviderRegistry, name: str, timeout: float) -> str | None:
    executable = program_on_path(registry.specs[name].command or "")
    return version_of(executable, timeout) if executable else None


def find_servers(
    addresses: Iterable[tuple[str, str]] = LOCAL_SERVERS, timeout: float = SERVER_TIMEOUT
) -> list[FoundTool]:
    """The model servers answering at `addresses` ((name, base_url) pairs) with at least one
    model, each as an ``openai-compatible`` provider serving its first model."""
    pairs = list(addresses)
    with ThreadPoolExecutor(max_workers=max(1, len(pairs))) as pool:
        listed = list(pool.map(lambda p: models_at(p[1], timeout), pairs))
    found: list[FoundTool] = []
    for (name, base_url), models in zip(pairs, listed, strict=True):
        if models:
            spec = ProviderSpec(
                name=name,
                command=None,
                description=f"local server at {base_url}, found by discussions init",
                type="openai-compatible",
                base_url=base_url,
                model=models[0],
                source="user",
            )
            found.append(FoundTool(name, "server", "local", models[0], spec, models=models))
    return found


def server_name(base_url: str) -> str:
    """The provider name of a server given by its URL (``--server``): a usual one's name, else
    ``server-PORT``."""
    for name, url in LOCAL_SERVERS:
        if url.rstrip("/") == base_url.rstrip("/"):
            return name
    from .server_window import ServerAddress

    port = ServerAddress.of(base_url).port
    return f"server-{port}" if port else "server"


def settle_ollama(found: list[FoundTool]) -> None:
    """The ``ollama`` CLI is not used as such (module docstring): with an Ollama server found it
    is left out (the server entry stands for it), without one it cannot answer."""
    has_server = any(f.name == "ollama-server" for f in found)
    for f in found:
        if f.kind == "cli" and f.name == "ollama" and f.usable:
            f.usable = False
            f.detail += "; used through its server" if has_server else "; its server is not running"


def try_tool(registry: ProviderRegistry, tool: FoundTool, timeout: float) -> None:
    """One tiny real call to `tool` (`TEST_PROMPT`); sets its `FoundTool.test` and seconds.
    A failure is recorded, not raised: the wizard leaves that tool out and says why."""
    started = time.monotonic()
    try:
        provider = kind_of(tool.spec).build(tool.spec) if tool.spec else registry.get(tool.name)
        request = ProviderRequest(
            TEST_PROMPT, timeout=timeout, participant_name="Setup", participant_alias="setup"
        )
        answer = complete_with_usage(provider, request).text
    except DiscussionsError as exc:
        said = str(exc).strip().splitlines() or ["no answer"]
        tool.test = f"failed: {said[0][:200]}"
    else:
        tool.test = "ok" if answer.strip() else "failed: empty answer"
    tool.seconds = time.monotonic() - started


def try_tools(registry: ProviderRegistry, tools: list[FoundTool], timeout: float) -> None:
    """`try_tool` on each usable tool, all at once (a real CLI takes seconds to answer)."""
    usable = [t for t in tools if t.usable]
    with ThreadPoolExecutor(max_workers=max(1, len(usable))) as pool:
        list(pool.map(lambda t: try_tool(registry, t, timeout), usable))
