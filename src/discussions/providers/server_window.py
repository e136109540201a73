"""Where a chat-completions server is, whether it may be used, and what it says of itself: the
window it serves and how many requests it serves at once.

`url_problem` says whether a ``base_url`` may be used: plain ``http://`` only to a loopback
address unless the entry allows it. `http.client` is imported only when a server is asked
something, so reading ``providers.yaml`` stays cheap.

Each server says it in its own place; only a figure that is the window the server will really
use is taken (a model's trained maximum is not: a server may load it with less):

* llama.cpp server: ``GET /props`` -> ``default_generation_settings.n_ctx`` (llama.cpp
  ``tools/server/README.md``, "GET /props").
* vLLM: ``GET /v1/models`` -> the model's ``max_model_len`` (vLLM's ``ModelCard`` in
  ``vllm/entrypoints/openai/protocol.py``).
* LM Studio (0.4+): ``GET /api/v1/models`` -> the model's ``loaded_instances[].config.
  context_length`` (LM Studio REST API, "List your models"); a model not loaded yet has none.
* Ollama: ``GET /api/ps`` -> the loaded model's ``context_length`` (``ProcessModelResponse``
  in ollama's ``api/types.go``), else ``POST /api/show`` -> ``num_ctx`` in ``parameters``.
  ``model_info``'s ``*.context_length`` is the trained maximum, not what Ollama allocates
  (its default is smaller), so it is not taken.
* llama-cpp-python (``python -m llama_cpp.server``) reports no window anywhere: its
  ``GET /v1/models`` entries hold only ``id``, ``object``, ``owned_by`` and ``permissions``
  (``get_models`` in ``llama_cpp/server/app.py``), and it has no ``/props``. It is known by
  the title of its ``GET /openapi.json`` ("llama.cpp Python API", ``create_app``); its window
  is then taken to be its default ``n_ctx``, 2,048 (``ModelSettings`` in
  ``llama_cpp/server/settings.py``), said as an assumption (`ServerFacts.assumed`).

How many requests a server serves at once (``parallel``): llama.cpp says it in ``/props``
(``total_slots``); llama-cpp-python serves one (every request takes one lock,
``get_llama_proxy`` in ``app.py``; and with ``interrupt_requests``, its default, a request that
arrives during a streamed answer ends that answer early). The others do not say.

Anything else (an error, another shape, no answer within a few seconds) means unknown (None).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import http.client

_PROBE_TIMEOUT = 3.0
"""Seconds for each question asked of the server."""
_PROBE_BUDGET = 6.0
"""Seconds for all of them together."""
_PROBE_CAP = 1024 * 1024
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)
_LLAMA_CPP_PYTHON_WINDOW = 2_048
"""llama-cpp-python's default ``n_ctx`` (``--n_ctx``), what its server uses unless told."""
_LLAMA_CPP_PYTHON_TITLE = "llama.cpp Python API"


@dataclass(slots=True, frozen=True)
class ServerFacts:
    """What a server says of itself (None: it does not say)."""

    window: int | None = None
    """The context window it serves the model with, in tokens."""
    parallel: int | None = None
    """How many requests it serves at once."""
    server: str = ""
    """What it is, when it says (``llama.cpp``, ``llama-cpp-python``...)."""
    assumed: bool = False
    """`window` is the server's default, not a figure it reported."""


UNKNOWN_FACTS = ServerFacts()


@dataclass(slots=True, frozen=True)
class ServerAddress:
    """A server's scheme, host, port and API path, from a ``base_url``."""

    scheme: str
    host: str
    port: int | None
    base_path: str
    """The API path without a trailing slash, e.g. ``/v1``."""

    @classmethod
    def of(cls, base_url: str) -> ServerAddress:
        parts = urlsplit(base_url)
        return cls(parts.scheme, parts.hostname or "", parts.port, parts.path.rstrip("/"))

    @property
    def display(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = f":{self.port}" if self.port else ""
        return f"{self.scheme}://{host}{port}{self.base_path}"

    @property
    def root(self) -> str:
        """The server's own root: the API path less a final ``/v1``."""
        return self.base_path[: -len("/v1")] if self.base_path.endswith("/v1") else self.base_path

    def path(self, endpoint: str) -> str:
        return f"{self.base_path}/{endpoint}"

    def connection(self, timeout: float) -> http.client.HTTPConnection:
        import http.client

        kind = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        return kind(self.host, self.port, timeout=timeout)


def is_loopback_host(host: str) -> bool:
    """Whether `host` names this machine without leaving it (no name lookup but localhost)."""
    import ipaddress

    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_problem(base_url: str, allow_plain_http: bool, what: str = "base_url") -> str | None:
    """Why `base_url` cannot be used, or None (`what`: how the message names it)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{what} {base_url!r} is not an http:// or https:// URL"
    if parts.username or parts.password:
        return "base_url must not hold a user name or password; use api_key_env"
    if parts.scheme == "http" and not allow_plain_http and not is_loopback_host(parts.hostname):
        return (
            f"base_url {base_url!r} is plain http to a host that is not loopback; use https, "
            "or set allow_plain_http: true if that network is yours"
        )
    return None


def _ask_json(
    address: ServerAddress,
    method: str,
    path: str,
    headers: dict[str, str],
    body: dict[str, Any] | None = None,
    timeout: float = _PROBE_TIMEOUT,
) -> Any:
    """The JSON a server answers at `path`, or None (error status, not JSON, unreachable, or
    not all of it within `timeout` seconds: a server sending a byte now and then is left)."""
    import http.client

    deadline = time.monotonic() + timeout
    conn = address.connection(timeout)
    try:
        payload = json.dumps(body).encode() if body is not None else None
        conn.request(method, path, payload, headers)
        response = conn.getresponse()
        if response.status != 200:
            return None
        raw = bytearray()
        while len(raw) <= _PROBE_CAP:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            if conn.sock is not None:
                conn.sock.settimeout(remaining)
            chunk = response.read1(65536)
            if not chunk:
                return json.loads(raw.decode("utf-8"))
            raw += chunk
        return None
    except (OSError, http.client.HTTPException, ValueError, UnicodeDecodeError):
        return None
    finally:
        conn.close()


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _entries(data: Any, key: str) -> list[dict[str, Any]]:
    items = data.get(key) if isinstance(data, dict) else None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def _llama_cpp(address: ServerAddress, model: str, headers: dict[str, str]) -> ServerFacts | None:
    data = _ask_json(address, "GET", f"{address.root}/props", headers)
    if not isinstance(data, dict):
        return None
    settings = data.get("default_generation_settings")
    window = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
    window, slots = window or _positive(data.get("n_ctx")), _positive(data.get("total_slots"))
    return ServerFacts(window, slots, "llama.cpp") if window or slots else None


def _vllm(address: ServerAddress, model: str, headers: dict[str, str]) -> ServerFacts | None:
    for entry in _entries(_ask_json(address, "GET", address.path("models"), headers), "data"):
        if entry.get("id") == model and _positive(entry.get("max_model_len")):
            return ServerFacts(_positive(entry.get("max_model_len")), server="vLLM")
    return None


def _lm_studio(address: ServerAddress, model: str, headers: dict[str, str]) -> ServerFacts | None:
    data = _ask_json(address, "GET", f"{address.root}/api/v1/models", headers)
    for entry in _entries(data, "models"):
        if entry.get("key") != model:
            continue
        for instance in _entries(entry, "loaded_instances"):
            config = instance.get("config")
            if isinstance(config, dict) and _positive(config.get("context_length")):
                return ServerFacts(_positive(config.get("context_length")), server="LM Studio")
    return None


def _ollama(address: ServerAddress, model: str, headers: dict[str, str]) -> ServerFacts | None:
    for entry in _entries(_ask_json(address, "GET", f"{address.root}/api/ps", headers), "models"):
        if model in (entry.get("name"), entry.get("model")) and _positive(
            entry.get("context_length")
        ):
            return ServerFacts(_positive(entry.get("context_length")), server="Ollama")
    shown = _ask_json(address, "POST", f"{address.root}/api/show", headers, {"model": model})
    parameters = shown.get("parameters") if isinstance(shown, dict) else None
    if isinstance(parameters, str):
        found = _NUM_CTX.search(parameters)
        if found:
            return ServerFacts(int(found.group(1)), server="Ollama")
    return None


def _llama_cpp_python(
    address: ServerAddress, model: str, headers: dict[str, str]
) -> ServerFacts | None:
    """llama-cpp-python, known by its API's title: one request at a time, and its default
    window (module docstring)."""
    data = _ask_json(address, "GET", f"{address.root}/openapi.json", headers)
    info = data.get("info") if isinstance(data, dict) else None
    title = info.get("title") if isinstance(info, dict) else None
    if not isinstance(title, str) or _LLAMA_CPP_PYTHON_TITLE not in title:
        return None
    return ServerFacts(_LLAMA_CPP_PYTHON_WINDOW, 1, "llama-cpp-python", assumed=True)


_PROBES: tuple[Callable[[ServerAddress, str, dict[str, str]], ServerFacts | None], ...] = (
    _llama_cpp,
    _vllm,
    _lm_studio,
    _ollama,
    _llama_cpp_python,
)


def server_facts(address: ServerAddress, model: str, headers: dict[str, str]) -> ServerFacts:
    """What the server at `address` says of itself for `model`: the first server kind that
    answers (`UNKNOWN_FACTS` when none does within a few seconds)."""
    ask_headers = {k: v for k, v in headers.items() if k != "Accept"}
    started = time.monotonic()
    for probe in _PROBES:
        if time.monotonic() - started > _PROBE_BUDGET:
            break
        facts = probe(address, model, ask_headers)
        if facts is not None:
            return facts
    return UNKNOWN_FACTS


def models_at(base_url: str, timeout: float) -> list[str] | None:
    """The model names a chat-completions server at `base_url` serves (``GET {base_url}/models``,
    the OpenAI-compatible list that llama.cpp, LM Studio, vLLM and Ollama all answer), or None
    when nothing answers that within `timeout` seconds: how `discussions init` finds a local
    server."""
    address = ServerAddress.of(base_url)
    data = _ask_json(address, "GET", address.path("models"), {}, timeout=timeout)
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        return None
    return [str(e["id"]) for e in _entries(data, "data") if isinstance(e.get("id"), str)]
