"""A provider for a local server that speaks the OpenAI chat-completions API.

llama.cpp's server, LM Studio, vLLM and Ollama all serve ``POST {base_url}/chat/completions``.
In ``providers.yaml``::

    providers:
      - name: local
        type: openai-compatible
        base_url: http://127.0.0.1:8080/v1
        model: smollm2
        api_key_env: LOCAL_LLM_KEY   # optional: the variable's name, never the key
        context_window: 2048         # optional: tokens (else asked of the server)
        max_tokens: 400              # optional: the answer's limit, sent with each request
        stream: true                 # optional: false asks for one JSON object
        timeout: 120                 # optional: seconds for the whole call

* The prompt is one user message; the request asks for a stream (server-sent events) with
  ``stream_options.include_usage``, so the answer streams to the display and the token counts
  come in the last event. A server that answers with one JSON object instead is read as well;
  ``stream: false`` asks for that (llama-cpp-python's server reports usage only then).
* The whole call has one deadline (``timeout``): connecting, waiting for the first byte and
  every read after it. A server that never answers, or drips, is abandoned at the deadline.
* The response is capped (`DEFAULT_MAX_OUTPUT` bytes, as for commands): past it the call
  stops and fails, as a flooding command does.
* Plain ``http://`` goes only to a loopback address (127.0.0.0/8, ::1, ``localhost``) unless
  the entry says ``allow_plain_http: true``: a prompt holds the whole discussion, and an API
  key would travel in the clear. ``https://`` may go anywhere. Redirects are not followed.
* The API key is read from the named environment variable at call time and sent only as the
  ``Authorization`` header; it is never written into a discussion, an error or a listing. A
  server that repeats it (in its answer, streamed or not, or in an error) has it shown as
  ``***`` before the text reaches anything: a streamed piece that could be the start of the
  key is held back until the next one tells (`_KeyBlanker`).
* The context window: ``context_window:`` when configured, else what the server says (see
  `server_window`; asked once per process), else None (unknown). How many requests it serves
  at once (`parallel`): ``parallel:`` when configured, else what a server on this machine says
  (llama.cpp's slots; llama-cpp-python serves one); calls past it wait their turn
  (`slots.call_slot`), and each call's ``timeout`` counts from when it starts.
* A call abandoned (its deadline, Ctrl-C) has its connection closed: llama.cpp stops the
  generation then, and llama-cpp-python stops a streamed one (``stream: true``); it finishes
  a ``stream: false`` answer nobody will read, so a queue of them is never sent.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import ProviderError, ProviderFailed, ProviderOutputError, ProviderTimeout
from .api_keys import api_key, key_source, wants_key
from .base import Completion, Provider, ProviderRequest, ProviderSpec, call_timeout
from .command import DEFAULT_MAX_OUTPUT, also_on_terminate
from .server_window import (
    UNKNOWN_FACTS,
    ServerAddress,
    ServerFacts,
    is_loopback_host,
    server_facts,
    url_problem,
)
from .slots import stopped_since, stops_seen
from .usage import UNKNOWN, Usage

__all__ = ["Answer", "OpenAICompatibleProvider", "forget_windows"]

_FACTS: dict[tuple[str, str], ServerFacts] = {}
"""What each server said of itself for each model, asked once per process (a provider object
is made for every call)."""
_CHUNK = 65536
_STATED_WINDOW = re.compile(r"maximum context length is (\d+) tokens", re.IGNORECASE)
_ERROR_CHARS = 400


_open: set[socket.socket] = set()
_open_lock = threading.Lock()


def _abort_all() -> int:
    """End every call in progress by shutting its connection (Ctrl-C, SIGTERM: see
    `command.terminate_all`). Returns how many."""
    with _open_lock:
        socks = list(_open)
    for sock in socks:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    return len(socks)


also_on_terminate(_abort_all)


def forget_windows() -> None:
    """Ask servers again for their windows (after a server restarted with another one)."""
    _FACTS.clear()


_SECRET_LENGTH = 12
"""The shortest key blanked: providers' keys are far longer, while local servers take any key
and their guides give a word (Ollama's ``ollama``, LM Studio's ``lm-studio``, vLLM's
``EMPTY``), which blanked would turn each mention of it in an answer into ``***``."""


_HEADER_SAFE = re.compile(r"[\x20-\x7e\x80-\xff]+")
"""What an ``Authorization`` header's key may hold: printable latin-1, no line break."""


@dataclass(slots=True)
class _KeyBlanker:
    """Shows `key` as ``***`` in a text that comes in pieces: `feed` returns what may be shown
    of the text so far, keeping back an end that could be the start of the key (it may be
    split across two server-sent events); `flush` returns what is kept at the end."""

    key: str
    held: str = ""

    def blank(self, text: str) -> str:
        return text.replace(self.key, "***") if self.key else text

    def feed(self, piece: str) -> str:
        text = self.blank(self.held + piece)
        keep = _key_start_at_end(text, self.key)
        self.held = text[len(text) - keep :]
        return text[: len(text) - keep]

    def flush(self) -> str:
        held, self.held = self.held, ""
        return held


def _key_start_at_end(text: str, key: str) -> int:
    """The length of the longest end of `text` that is the start of `key` (0: none)."""
    for n in range(min(len(key) - 1, len(text)), 0, -1):
        if text.endswith(key[:n]):
            return n
    return 0


@dataclass(slots=True)
class Answer:
    """What one call read: the text pieces (the key blanked), the usage, how many bytes
    came."""

    blanker: _KeyBlanker
    pieces: list[str] = field(default_factory=list)
    usage: Usage = UNKNOWN
    received: int = 0
    finish_reason: str = ""
    """Why the server says the answer ended (``length``: at ``max_tokens``)."""

    def add(self, piece: str, request: ProviderRequest | None = None) -> None:
        """Take `piece` of the answer; what may be shown of it goes to `request`'s display."""
        shown = self.blanker.feed(piece)
        if shown:
            self.pieces.append(shown)
            if request is not None:
                _report(request, shown)

    def end(self, request: ProviderRequest | None = None) -> Answer:
        """The answer complete: what was kept back is shown too."""
        rest = self.blanker.flush()
        if rest:
            self.pieces.append(rest)
            if request is not None:
                _report(request, rest)
        return self


class OpenAICompatibleProvider(Provider):
    """Sends each request to ``{base_url}/chat/completions``."""

    def __init__(self, spec: ProviderSpec, *, max_output: int = DEFAULT_MAX_OUTPUT) -> None:
        problem = url_problem(spec.base_url, spec.allow_plain_http)
        if problem is not None:
            raise ProviderFailed(spec.name, problem)
        if not spec.model:
            raise ProviderFailed(spec.name, "no model configured (model: in providers.yaml)")
        self.spec = spec
        self.name = spec.name
        self.max_output = max_output
        self.address = ServerAddress.of(spec.base_url)
        self._facts: ServerFacts | None = None
        self._api_key: str | None = None

    def facts(self) -> ServerFacts:
        """What the server says of itself (asked once per process; unknown without the API
        key, which the call itself will ask for)."""
        if self._facts is None:
            key = (self.address.display, self.spec.model)
            if key not in _FACTS:
                try:
                    headers = self._headers()
                except ProviderFailed:
                    return UNKNOWN_FACTS
                _FACTS[key] = server_facts(self.address, self.spec.model, headers)
            self._facts = _FACTS[key]
        return self._facts

    @property
    def context_window(self) -> int | None:
        """The configured window, else the server's (asked once), else None."""
        if self.spec.context_window is not None:
            return self.spec.context_window
        return self.facts().window

    @context_window.setter
    def context_window(self, value: int | None) -> None:
        self.spec.context_window = value

    @property
    def window_source(self) -> str:
        """Where `context_window` comes from, for the listings and the notes."""
        if self.spec.context_window is not None:
            return "providers.yaml"
        facts = self.facts()
        if facts.assumed:
            return f"assumed: {facts.server}'s default, as it does not report its own"
        return f"reported by {facts.server or 'the server'}"

    @property
    def parallel(self) -> int | None:
        """Requests the server serves at once: configured, else what a server on this
        machine says (a remote API is not asked: it serves many)."""
        if self.spec.parallel is not None:
            return self.spec.parallel
        if not is_loopback_host(self.address.host):
            return None
        return self.facts().parallel

    @parallel.setter
    def parallel(self, value: int | None) -> None:
        self.spec.parallel = value

    @property
    def slot_key(self) -> str:
        """Calls to one server share its slots, whichever entry names it."""
        return self.address.display

    def complete(self, request: ProviderRequest) -> str:
        return self.complete_with_usage(request).text

    def complete_with_usage(self, request: ProviderRequest) -> Completion:
        try:
            return self._call(request)
        except ProviderError as exc:  # a server may echo the key in any message it sends
            reason, detail = self._blank_key(exc.reason), _shorten(self._blank_key(exc.detail))
            if (reason, detail) == (exc.reason, exc.detail):
                raise
            raise type(exc)(exc.provider, reason, detail) from None

    def _blank_key(self, text: str) -> str:
        """`text` with the API key, should it hold it, shown as ``***``."""
        return self._blanker().blank(text)

    def _blanker(self) -> _KeyBlanker:
        """A `_KeyBlanker` of the key this call sends ("" when it sends none, or a placeholder:
        shorter than `_SECRET_LENGTH`)."""
        try:
            key = self._key()
        except ProviderFailed:  # no key was sent, so none can come back
            key = ""
        return _KeyBlanker(key if len(key) >= _SECRET_LENGTH else "")

    def _call(self, request: ProviderRequest) -> Completion:
        timeout = call_timeout(self.spec, request)
        deadline = time.monotonic() + timeout
        body = json.dumps(self._body(request.prompt)).encode("utf-8")
        conn = self.address.connection(timeout)
        try:
            answer = self._exchange(conn, body, deadline, request)
        except TimeoutError:
            raise ProviderTimeout(
                self.name, f"timed out after {timeout:g}s; connection closed"
            ) from None
        except OSError as exc:
            raise ProviderFailed(
                self.name, f"cannot reach {self.address.display}: {_os_reason(exc)}"
            ) from None
        except http.client.HTTPException as exc:
            raise ProviderOutputError(
                self.name, f"the server broke off the answer ({type(exc).__name__})"
            ) from None
        finally:
            conn.close()
        text = self._blank_key("".join(answer.pieces))  # pieces are; their joins too
        if not text.strip():
            detail = (
                "no event came at all; some servers end a stream silently when they refuse a "
                "prompt (over the context window): stream: false shows their reason"
                if answer.received == 0
                else ""
            )
            raise ProviderOutputError(self.name, "the server's answer was empty", detail)
        return Completion(text, answer.usage, length_cut=self._length_cut(answer))

    def _length_cut(self, answer: Answer) -> str:
        """``max_tokens N`` when the server says it stopped the answer at the token limit
        (``finish_reason: length``, the OpenAI API's word that llama.cpp, llama-cpp-python,
        vLLM and Ollama use too)."""
        if answer.finish_reason != "length":
            return ""
        return f"max_tokens {self.spec.max_tokens}" if self.spec.max_tokens else "max_tokens"

    def _body(self, prompt: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.spec.model,
            "messages": [{"role": "user", "content": prompt}],
            "stream": self.spec.stream,
        }
        if self.spec.stream:
            body["stream_options"] = {"include_usage": True}
        if self.spec.max_tokens:
            body["max_tokens"] = self.spec.max_tokens
        return body

    def _headers(self) -> dict[str, str]:
        accept = "text/event-stream" if self.spec.stream else "application/json"
        headers = {"Content-Type": "application/json", "Accept": accept}
        if wants_key(self.spec):
            key = self._key()
            source = key_source(self.spec)
            if not key:
                # Read after the provider's name on the FAILED block's line, as "exited
                # with status 3" is: "ant has no API key ($ANT_KEY, ...)".
                raise ProviderFailed(
                    self.name, f"has no API key ({source}, named by api_key_env, is not set)"
                )
            if not _HEADER_SAFE.fullmatch(key):  # http.client's error would quote the key
                raise ProviderFailed(
                    self.name,
                    f"the key from {source} holds a line break or a character an HTTP header "
                    "cannot carry",
                )
            headers.update(self._auth(key))
        return headers

    def _auth(self, key: str) -> dict[str, str]:
        """The header that carries `key` (the OpenAI API's bearer token)."""
        return {"Authorization": f"Bearer {key}"}

    def _key(self) -> str:
        """The API key this call sends, the white space around it (a key file's line end,
        ``\\r`` from an editor on Windows) trimmed; "" when it sends none. Read once per
        provider object (a command's token is cached longer: `api_keys`)."""
        if self._api_key is None:
            self._api_key = api_key(self.spec)
        return self._api_key

    def _exchange(
        self,
        conn: http.client.HTTPConnection,
        body: bytes,
        deadline: float,
        request: ProviderRequest,
    ) -> Answer:
        headers = self._headers()
        seen = stops_seen()
        conn.connect()
        sock = conn.sock
        with _open_lock:
            _open.add(sock)
        try:
            if stopped_since(seen):  # stopped as it connected: `_abort_all` may not have seen it
                sock.shutdown(socket.SHUT_RDWR)
            conn.request("POST", self._endpoint(), body, headers)
            _arm(sock, deadline)
            with conn.getresponse() as response:
                return self._answer(_Reader(response, sock, deadline), request)
        finally:
            with _open_lock:
                _open.discard(sock)
            sock.close()

    def _answer(self, reader: _Reader, request: ProviderRequest) -> Answer:
        response = reader.response
        if response.status >= 400:
            detail = self._error_detail(reader.read_capped(64 * 1024))
            reason = f"the server answered HTTP {response.status} {response.reason}".rstrip()
            if response.status in (401, 403) and wants_key(self.spec):
                reason += f"; check the key from {key_source(self.spec)}"
            raise ProviderFailed(self.name, reason + self._window_told(detail), detail)
        kind = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
        if kind == "text/event-stream":
            return self._read_stream(reader, request)
        raw = reader.read_capped(self.max_output + 1)
        if len(raw) > self.max_output:
            raise self._flooded()
        return self._whole(raw, Answer(self._blanker(), received=len(raw)))

    def _endpoint(self) -> str:
        """The path a call is posted to."""
        return self.address.path("chat/completions")

    def _whole(self, raw: bytes, answer: Answer) -> Answer:
        """A non-streamed answer read into `answer`."""
        return _one_object(self.name, raw, answer)

    def _event(self, line: bytes, answer: Answer, request: ProviderRequest) -> str:
        """One server-sent-events line read into `answer`; ``done`` at the stream's end."""
        return _take_event(self.name, line, answer, request)

    def _read_stream(self, reader: _Reader, request: ProviderRequest) -> Answer:
        answer = Answer(self._blanker())
        pending = b""
        while True:
            chunk = reader.read()
            if not chunk:
                break
            answer.received += len(chunk)
            if answer.received > self.max_output:
                raise self._flooded()
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                if self._event(line, answer, request) == "done":
                    return answer.end(request)
        self._event(pending, answer, request)
        return answer.end(request)

    def _flooded(self) -> ProviderOutputError:
        return ProviderOutputError(
            self.name,
            f"output exceeded {self.max_output // (1024 * 1024)} MiB; stopped and discarded",
        )

    def _window_told(self, detail: str) -> str:
        """What a refusal that states the window (llama-cpp-python's and OpenAI's "maximum
        context length is N tokens", ``context_length_exceeded`` in llama-cpp-python's
        ``server/errors.py``) teaches: the next prompts in this process are sized for it, and
        the user is told the line to add ("" when it states none, or one is configured)."""
        found = _STATED_WINDOW.search(detail)
        if found is None or self.spec.context_window is not None:
            return ""
        window = int(found.group(1))
        key = (self.address.display, self.spec.model)
        self._facts = _FACTS[key] = replace(self.facts(), window=window, assumed=False)
        return (
            f"; its window is {window:,} tokens: declare context_window: {window} under "
            f"{self.name} in providers.yaml"
        )

    def _error_detail(self, raw: bytes) -> str:
        """The server's own error message (JSON ``error.message`` or the text); the API key,
        should a server echo it, is blanked and the message shortened by
        `complete_with_usage`."""
        text = raw.decode("utf-8", errors="replace").strip()
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            err = data.get("error", data)
            message = err.get("message") if isinstance(err, dict) else err
            text = str(message if message is not None else text)
        return text


def _shorten(text: str) -> str:
    """`text` on one line, at most `_ERROR_CHARS` characters."""
    text = " ".join(text.split())
    return text if len(text) <= _ERROR_CHARS else text[:_ERROR_CHARS] + "..."


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (is the server running?)"
    return exc.strerror or str(exc) or type(exc).__name__


def _arm(sock: socket.socket | None, deadline: float) -> None:
    """Let the next blocking socket operation wait only until the deadline."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError
    if sock is not None:
        sock.settimeout(remaining)


@dataclass(slots=True)
class _Reader:
    """Reads a response body piece by piece, each read bounded by the call's deadline."""

    response: http.client.HTTPResponse
    sock: socket.socket | None
    deadline: float

    def read(self, size: int = _CHUNK) -> bytes:
        _arm(self.sock, self.deadline)
        return self.response.read1(size)

    def read_capped(self, cap: int) -> bytes:
        """At most `cap` bytes of the body."""
        data = bytearray()
        while len(data) < cap:
            chunk = self.read(min(_CHUNK, cap - len(data)))
            if not chunk:
                break
            data.extend(chunk)
        return bytes(data)


def _take_event(name: str, line: bytes, answer: Answer, request: ProviderRequest) -> str:
    """Read one server-sent-events line into `answer`; ``done`` at ``data: [DONE]``."""
    text = line.decode("utf-8", errors="replace").strip()
    if not text.startswith("data:"):
        return ""  # comments (": ping"), event names, blank separators
    data = text[5:].strip()
    if data == "[DONE]":
        return "done"
    try:
        event = json.loads(data)
    except ValueError:
        raise ProviderOutputError(name, "the server sent an event that is not JSON") from None
    if not isinstance(event, dict):
        return ""
    if "error" in event:
        err = event["error"]
        message = err.get("message") if isinstance(err, dict) else err
        raise ProviderFailed(name, "the server reported an error", str(message))
    piece = _choice_text(event, "delta")
    if piece:
        answer.add(piece, request)
    answer.finish_reason = _finish_reason(event) or answer.finish_reason
    answer.usage = _usage(event.get("usage")) or answer.usage
    return ""


def _report(request: ProviderRequest, piece: str) -> None:
    if request.on_output is None:
        return
    try:
        request.on_output(piece)
    except Exception:  # noqa: BLE001 - a display callback must not break the call
        pass


def _one_object(name: str, raw: bytes, answer: Answer) -> Answer:
    """A non-streamed answer: one ``chat.completion`` object, read into `answer`."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ProviderOutputError(name, "the server's answer is not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        raise ProviderOutputError(name, "the server's answer has no choices")
    answer.add(_choice_text(data, "message"))
    answer.finish_reason = _finish_reason(data)
    answer.usage = _usage(data.get("usage")) or UNKNOWN
    return answer.end()


def _first_choice(event: dict[str, Any]) -> dict[str, Any]:
    """The event's first choice ({} when it has none)."""
    choices = event.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return {}
    return choices[0]


def _choice_text(event: dict[str, Any], key: str) -> str:
    part = _first_choice(event).get(key)
    content = part.get("content") if isinstance(part, dict) else None
    return content if isinstance(content, str) else ""


def _finish_reason(event: dict[str, Any]) -> str:
    """The first choice's ``finish_reason`` ("" when it has none yet)."""
    reason = _first_choice(event).get("finish_reason")
    return reason if isinstance(reason, str) else ""


def _usage(raw: object) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    prompt, completion = raw.get("prompt_tokens"), raw.get("completion_tokens")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (prompt, completion)):
        return None
    return Usage(prompt, completion, None)
