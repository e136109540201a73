"""What a call cost, as the AI CLI reported it: tokens in and out, and dollars.

Nothing here estimates. A field a CLI did not report stays ``None`` and is written as
``unknown``; a price list or a token count guessed from the text would be a guess presented
as a fact.

Where the numbers come from:

* ``claude -p --output-format json`` prints one JSON object: ``result`` (the answer),
  ``is_error``, ``total_cost_usd`` and the tokens twice: ``modelUsage`` (per model:
  ``inputTokens``, ``cacheCreationInputTokens``, ``cacheReadInputTokens``, ``outputTokens``,
  ``costUSD``; every call the cost covers) and ``usage`` (``input_tokens``, ... of the main
  loop only). Tokens are read from ``modelUsage``, from ``usage`` where it is missing. Input
  tokens are the sum of the three input counts (cache reads and writes are input the model
  was given).
* ``codex exec --json`` prints ``turn.completed`` events with ``usage`` (``input_tokens``,
  ``cached_input_tokens``, ``output_tokens``); codex reports no cost. ``cached_input_tokens``
  is part of ``input_tokens`` there, so it is not added again.
* ``gemini -o json`` prints one object: ``response`` (the last turn's text: narration before a
  tool call is not in it), ``stats.models.<model>.tokens`` (``prompt``, which includes
  ``cached``, ``candidates``, ``thoughts``, ``tool``) for every model the run called (its
  router and other side calls included), and on failure ``error`` (``type``, ``message``,
  ``code``), written to stderr (gemini-cli docs/cli/headless.md, "JSON output"; the counts
  are the API's ``usageMetadata``: ``promptTokenCount``, ``candidatesTokenCount``,
  ``thoughtsTokenCount``, ``toolUsePromptTokenCount``). Input tokens are prompt + tool,
  output tokens candidates + thoughts (thinking is billed as output); no cost is reported.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import ProviderFailed, ProviderOutputError
from ..syntax.lazyre import Lazy
from ..syntax.record import FrozenRecord


class Usage(FrozenRecord):
    """One call's reported usage; ``None`` where the CLI did not say.
    (A frozen `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("input_tokens", "output_tokens", "cost_usd", "model")
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    model: str | None
    """The model that answered, when the CLI named exactly one (`_answering_model`)."""

    def __init__(
        self,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        cost_usd: float | None = None,
        model: str | None = None,
    ) -> None:
        self._init(input_tokens, output_tokens, cost_usd, model)

    def with_model(self, model: str | None) -> Usage:
        """The same figures, answered by `model`."""
        return Usage(self.input_tokens, self.output_tokens, self.cost_usd, model)

    @property
    def tokens_known(self) -> bool:
        return self.input_tokens is not None and self.output_tokens is not None

    def meta_parts(self) -> list[str]:
        """The ``key: value`` parts written into a comment's metadata line."""
        tokens = (
            f"tokens: {self.input_tokens} in / {self.output_tokens} out"
            if self.tokens_known
            else "tokens: unknown"
        )
        cost = f"cost: ${self.cost_usd:.6f}" if self.cost_usd is not None else "cost: unknown"
        model = [f"model: {self.model}"] if self.model else []
        return [tokens, cost, *model]


UNKNOWN = Usage()


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)


def claude_json(name: str, text: str) -> tuple[str, Usage]:
    """The answer and usage from ``claude -p --output-format json`` (one JSON object; a
    ``stream-json`` transcript's last ``result`` event is accepted too)."""
    event = _last_result(text)
    if event is None:
        raise ProviderOutputError(name, "output is not Claude Code JSON (no result object)")
    if event.get("is_error") or event.get("subtype", "success") != "success":
        detail = event.get("result") or event.get("subtype") or "error"
        raise ProviderFailed(name, "reported an error", str(detail)[:400])
    result = event.get("result")
    if not isinstance(result, str):
        raise ProviderOutputError(name, "Claude Code JSON without a 'result' text")
    cost = _number(event.get("total_cost_usd"))
    models = event.get("modelUsage")
    model = _claude_model(text, models)
    if isinstance(models, dict) and models:
        return result, _claude_model_usage(models, cost).with_model(model)
    raw = event.get("usage")
    usage: dict[str, Any] = raw if isinstance(raw, dict) else {}
    parts = [
        _int(usage.get(k))
        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    ]
    input_tokens = None if parts[0] is None else sum(p or 0 for p in parts)
    return result, Usage(input_tokens, _int(usage.get("output_tokens")), cost, model)


def _claude_model(text: str, models: Any) -> str | None:
    """The model that answered a ``claude -p`` run: its ``system`` ``init`` event's (in a
    stream-json or verbose transcript), else the one key of ``modelUsage`` when the run called
    a single model. With several (the hidden title call may use a smaller one) and no init
    event, None: the model is never guessed."""
    return _session_model(text) or _answering_model(models)


def _session_model(text: str) -> str | None:
    """The ``model`` of the session's opening ``system`` event: claude's ``init`` (its
    SystemMessage.Init: type, subtype, session_id, tools, model, ...) or qwen's
    ``session_start`` (qwen-code docs, "Headless Mode", JSON output: the array opens with
    ``{"type": "system", "subtype": "session_start", ..., "model": ...}``)."""
    for event in _events(text):
        if event.get("type") == "system" and event.get("subtype") in ("init", "session_start"):
            return model_name(event.get("model"))
    return None


def _answering_model(models: Any) -> str | None:
    """The one model a per-model usage table names (``modelUsage``, gemini's
    ``stats.models``); None when it names none or several."""
    if isinstance(models, dict) and len(models) == 1:
        return model_name(next(iter(models)))
    return None


_MODEL_NAME = Lazy(r"[A-Za-z0-9][A-Za-z0-9._:/@+\[\]-]{0,119}")


def model_name(value: Any) -> str | None:
    """`value` as a model's name fit for a metadata field: letters, digits and
    ``. _ : / @ + - [ ]`` (claude names ``claude-opus-4-8[1m]``), at most 120 characters;
    None for anything else."""
    if isinstance(value, str) and _MODEL_NAME.fullmatch(value.strip()):
        return value.strip()
    return None


def _claude_model_usage(models: dict[str, Any], cost: float | None) -> Usage:
    """Tokens summed over ``modelUsage`` (one entry per model the run called). It counts
    every call ``total_cost_usd`` prices, side calls included (a session-title call is in
    both and not in ``usage``), so the tokens and the cost describe the same calls."""
    inputs: list[int] = []
    outputs: list[int] = []
    for entry in models.values():
        entry = entry if isinstance(entry, dict) else {}
        keys = ("inputTokens", "cacheCreationInputTokens", "cacheReadInputTokens")
        parts = [_int(entry.get(k)) for k in keys]
        out = _int(entry.get("outputTokens"))
        if parts[0] is None or out is None:
            return Usage(None, None, cost)
        inputs.append(sum(p or 0 for p in parts))
        outputs.append(out)
    return Usage(sum(inputs), sum(outputs), cost)


def _last_result(text: str) -> dict[str, Any] | None:
    found = None
    for event in _events(text):
        if event.get("type", "result") == "result":
            found = event
    return found


def _events(text: str) -> Iterator[dict[str, Any]]:
    """The JSON objects of `text`: one object, an array of them, or one a line."""
    stripped = text.strip()
    candidates: list[Any] = []
    try:
        candidates.append(json.loads(stripped))
    except json.JSONDecodeError:
        for line in stripped.splitlines():
            try:
                candidates.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    for item in candidates:
        for event in item if isinstance(item, list) else [item]:
            if isinstance(event, dict):
                yield event


def json_events(text: str) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSON-lines stream (``codex exec --json``); other lines skipped."""
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(event, dict):
            yield event


def codex_usage(text: str) -> Usage:
    """Token counts summed over the ``turn.completed`` events of ``codex exec --json``."""
    inputs: list[int] = []
    outputs: list[int] = []
    for event in json_events(text):
        if event.get("type") != "turn.completed":
            continue
        usage = event.get("usage")
        if not isinstance(usage, dict):
            continue
        i, o = _int(usage.get("input_tokens")), _int(usage.get("output_tokens"))
        if i is None or o is None:
            return UNKNOWN
        inputs.append(i)
        outputs.append(o)
    if not inputs:
        return UNKNOWN
    return Usage(sum(inputs), sum(outputs), None)


def gemini_json(name: str, text: str) -> tuple[str, Usage]:
    """The answer and usage from ``gemini -o json`` (one object; see the module docstring)."""
    data = _last_object(text, "response")
    if data is None:
        reason = gemini_error(text)
        if reason:
            raise ProviderFailed(name, "reported an error", reason)
        raise ProviderOutputError(name, "output is not Gemini CLI JSON (no response object)")
    response = data.get("response")
    if not isinstance(response, str) or not response.strip():
        reason = gemini_error(text)
        if reason:
            raise ProviderFailed(name, "reported an error", reason)
    stats = data.get("stats")
    usage = _gemini_usage(stats)
    models = stats.get("models") if isinstance(stats, dict) else None
    return (response if isinstance(response, str) else ""), usage.with_model(
        _answering_model(models)
    )


def _gemini_usage(stats: Any) -> Usage:
    models = stats.get("models") if isinstance(stats, dict) else None
    if not isinstance(models, dict) or not models:
        return UNKNOWN
    inputs = outputs = 0
    for model in models.values():
        tokens = model.get("tokens") if isinstance(model, dict) else None
        if not isinstance(tokens, dict) or _int(tokens.get("prompt")) is None:
            return UNKNOWN
        inputs += (_int(tokens.get("prompt")) or 0) + (_int(tokens.get("tool")) or 0)
        outputs += (_int(tokens.get("candidates")) or 0) + (_int(tokens.get("thoughts")) or 0)
    return Usage(inputs, outputs, None)


def gemini_error(text: str) -> str:
    """The reason in the last ``{"error": ...}`` object of Gemini CLI's output: the JSON
    result's ``error`` (on stderr, after a stack trace), or the API error a retry line quotes
    (``Attempt 2 failed with status 500. Retrying with backoff... ApiError: {"error": ...}``),
    the API's own message unwrapped; "" when there is none."""
    data = _last_object(text, "error")
    error = data.get("error") if data else None
    if not isinstance(error, dict):
        return ""
    message = error.get("message")
    try:
        inner = json.loads(message).get("error") if isinstance(message, str) else None
    except (ValueError, AttributeError):
        inner = None
    if isinstance(inner, dict) and inner.get("message"):
        error = inner
    words = str(error.get("message") or error.get("type") or "error")
    status = " ".join(str(error[k]) for k in ("status", "code") if error.get(k))
    return (f"{words} ({status})" if status else words)[:400]


def _last_object(text: str, key: str) -> dict[str, Any] | None:
    """The last JSON object in `text` with `key` that starts a line or is an error object
    quoted inside one (Gemini CLI prints its result indented over many lines, after whatever
    else the stream carries)."""
    decoder = json.JSONDecoder()
    starts = {m.start() for m in re.finditer(r"^\{", text, re.MULTILINE)}
    starts |= {m.start() for m in re.finditer(r'\{"error":', text)}
    for start in sorted(starts, reverse=True):
        try:
            value, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and key in value:
            return value
    return None


_QWEN_API_ERROR = "[API Error: "
"""How Qwen Code words a failed model call in its answer (qwen-code
packages/core/src/utils/errorParsing.ts, ``API_ERROR_PREFIX``): 0.15 ends such a run with
exit status 0 and ``subtype: success``, the error text standing as the answer."""


def qwen_json(name: str, text: str) -> tuple[str, Usage]:
    """The answer and tokens from ``qwen -o json`` (a JSON array of events; the last
    ``result`` event holds the final answer and the run's ``usage``; no cost). A model error
    it reports as its answer is raised as the error it is, never taken for a comment."""
    event = _last_result(text)
    if event is None:
        raise ProviderOutputError(name, "output is not Qwen Code JSON (no result event)")
    result = event.get("result")
    failed = event.get("is_error") or event.get("subtype", "success") != "success"
    if failed or (isinstance(result, str) and result.startswith(_QWEN_API_ERROR)):
        detail = event.get("error") or result or event.get("subtype") or "error"
        raise ProviderFailed(name, "reported an error", str(detail)[:400])
    if not isinstance(result, str):
        raise ProviderOutputError(name, "Qwen Code JSON without a 'result' text")
    raw = event.get("usage")
    usage: dict[str, Any] = raw if isinstance(raw, dict) else {}
    tokens = (_int(usage.get("input_tokens")), _int(usage.get("output_tokens")))
    return result, Usage(*tokens, None, _session_model(text))


def opencode_json(name: str, text: str) -> tuple[str, Usage]:
    """The answer and tokens from ``opencode run --format json`` (one JSON event a line,
    opencode packages/opencode/src/cli/cmd/run.ts): the ``text`` parts of the last message
    only (narration before a tool call is a message of its own), tokens summed over the
    ``step_finish`` events (input with cache reads and writes, output with reasoning). Its
    ``cost`` is opencode's own estimate from a price list, so none is taken."""
    reason = _opencode_error(text)
    if reason is not None:
        raise ProviderFailed(name, "reported an error", reason[:400])
    last: tuple[str, list[str]] = ("", [])
    inputs: list[int] = []
    outputs: list[int] = []
    for event in json_events(text):
        part = event.get("part")
        if not isinstance(part, dict):
            continue
        if event.get("type") == "text" and isinstance(part.get("text"), str):
            message = str(part.get("messageID", ""))
            last = (message, [*last[1], part["text"]] if message == last[0] else [part["text"]])
        elif event.get("type") == "step_finish":
            _opencode_tokens(part.get("tokens"), inputs, outputs)
    usage = Usage(sum(inputs), sum(outputs)) if inputs and len(inputs) == len(outputs) else UNKNOWN
    return "".join(last[1]), usage


def _opencode_tokens(raw: Any, inputs: list[int], outputs: list[int]) -> None:
    tokens: dict[str, Any] = raw if isinstance(raw, dict) else {}
    raw_cache = tokens.get("cache")
    cache: dict[str, Any] = raw_cache if isinstance(raw_cache, dict) else {}
    i, o = _int(tokens.get("input")), _int(tokens.get("output"))
    if i is not None and o is not None:
        inputs.append(i + (_int(cache.get("read")) or 0) + (_int(cache.get("write")) or 0))
        outputs.append(o + (_int(tokens.get("reasoning")) or 0))


def _opencode_error(text: str) -> str | None:
    """The message of the last ``error`` event of ``opencode run --format json`` (where it
    says why a run failed; it exits 1 and stderr stays empty), or None."""
    found = None
    for event in json_events(text):
        if event.get("type") == "error":
            error = event.get("error")
            data = error.get("data") if isinstance(error, dict) else None
            message = data.get("message") if isinstance(data, dict) else None
            found = str(message or (error.get("name") if isinstance(error, dict) else error))
    return found


def copilot_json(name: str, text: str) -> tuple[str, Usage]:
    """The answer from ``copilot --output-format json`` (one JSON event a line): the content
    of the last ``assistant.message`` (narration before a tool call is a message of its own).
    Its events carry no token counts (1.0.102 writes them only to ``--usage-output-file``)."""
    reason = _copilot_error(text)
    if reason is not None:
        raise ProviderFailed(name, "reported an error", reason[:400])
    answer = ""
    for event in json_events(text):
        data = event.get("data")
        if event.get("type") == "assistant.message" and isinstance(data, dict):
            content = data.get("content")
            answer = content if isinstance(content, str) else answer
    return answer, UNKNOWN


def _copilot_error(text: str) -> str | None:
    """The message of the last ``session.error`` event of ``copilot --output-format json``
    (why a run failed; it exits 1 with stderr empty), or None."""
    found = None
    for event in json_events(text):
        data = event.get("data")
        if event.get("type") == "session.error" and isinstance(data, dict):
            found = str(data.get("message") or data.get("errorType") or "error")
    return found


_LLM_USAGE = Lazy(r"Token usage: ([\d,]+) input, ([\d,]+) output")
"""What ``llm -u`` writes on stderr after the answer (llm's ``token_usage_string``)."""


def llm_usage(err: str) -> Usage:
    """The tokens ``llm -u`` reported on stderr (its last ``Token usage:`` line); no cost."""
    found = _LLM_USAGE.findall(err)
    if not found:
        return UNKNOWN
    given, taken = found[-1]
    return Usage(int(given.replace(",", "")), int(taken.replace(",", "")))


_AnswerParser = Callable[[str, str, str], tuple[str, Usage]]
"""Reads a CLI's answer and usage: (provider name, stdout, end of stderr) -> (text, usage)."""

ANSWER_PARSERS: dict[str, _AnswerParser] = {
    "claude-json": lambda name, out, err: claude_json(name, out),
    "gemini-json": lambda name, out, err: gemini_json(name, out),
    "qwen-json": lambda name, out, err: qwen_json(name, out),
    "opencode-json": lambda name, out, err: opencode_json(name, out),
    "copilot-json": lambda name, out, err: copilot_json(name, out),
    "llm-usage": lambda name, out, err: (out.removesuffix("\n"), llm_usage(err)),
}
"""The output formats (`base.OUTPUT_FORMATS`) read by one function each, by name."""

FAILURE_READERS: dict[str, Callable[[str], str | None]] = {
    "opencode-json": _opencode_error,
    "copilot-json": _copilot_error,
}
"""Output formats that say on stdout why a run failed (exit status not 0): the reader of
that reason, by format."""
