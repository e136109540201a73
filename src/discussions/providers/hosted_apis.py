"""Providers for two hosted APIs reached with an API key: Anthropic's Messages API and Google's
Gemini API. They share the openai-compatible client (`openai_compat`: one deadline for the
whole call, the answer capped, the key blanked should the server repeat it, the connection
closed on Ctrl-C) and differ in the request, the key's header and the events read back.

In ``providers.yaml``::

    providers:
      - name: claude-api
        type: anthropic
        model: claude-sonnet-4-5
        api_key_env: ANTHROPIC_API_KEY      # or api_key_command: "pass show anthropic"
        max_tokens: 2000                    # optional (the API requires one: 4096 if unset)
      - name: gemini-api
        type: gemini
        model: gemini-2.5-flash
        api_key_command: "secret-tool lookup service gemini"
        api_key_ttl: 600                    # seconds the printed key is reused

Formats relied on (looked up 2026-11-28):

* Anthropic Messages API (platform.claude.com/docs/build-with-claude/streaming and the
  ``messages.create`` reference): ``POST {base}/messages`` with the headers ``x-api-key`` and
  ``anthropic-version: 2023-06-01``; body ``model``, ``max_tokens`` (required), ``messages``,
  ``stream``. One answer: ``content`` (blocks; ``type: text`` ones hold ``text``),
  ``stop_reason`` (``max_tokens`` when cut), ``usage`` (``input_tokens``,
  ``cache_creation_input_tokens``, ``cache_read_input_tokens``, ``output_tokens``). Streamed:
  server-sent events ``message_start`` (``message.usage``: the input tokens),
  ``content_block_delta`` (``delta.type: text_delta``, ``delta.text``), ``message_delta``
  (``delta.stop_reason``; ``usage.output_tokens``, a running total, not an increment),
  ``message_stop``, ``ping``, and ``error`` (``error.type``, ``error.message``).
* Gemini API (ai.google.dev/api, "generateContent" and "streamGenerateContent"): ``POST
  {base}/models/{model}:generateContent``, or ``:streamGenerateContent?alt=sse`` for
  server-sent events, the key in the ``x-goog-api-key`` header; body ``contents`` (``role``,
  ``parts`` of ``text``) and ``generationConfig.maxOutputTokens``. Each event (and the one
  answer) is a ``GenerateContentResponse``: ``candidates[0].content.parts[].text`` (a part
  with ``thought: true`` is the model's thinking, not its answer), ``finishReason``
  (``MAX_TOKENS`` when cut), ``usageMetadata`` (``promptTokenCount``,
  ``candidatesTokenCount``, ``thoughtsTokenCount``, ``toolUsePromptTokenCount``; the last
  event's is the whole call's), ``modelVersion``; no ``[DONE]``: the stream just ends.

Neither API reports a price, and nothing here estimates one (`usage`): the cost of these
calls is recorded as unknown, their tokens as the API counted them.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from ..errors import ProviderFailed, ProviderOutputError
from .base import ProviderRequest, ProviderSpec
from .endpoints import ANTHROPIC_URL, GEMINI_URL
from .openai_compat import Answer, OpenAICompatibleProvider
from .server_window import UNKNOWN_FACTS, ServerFacts
from .usage import Usage

__all__ = ["ANTHROPIC_URL", "GEMINI_URL", "AnthropicProvider", "GeminiProvider"]

ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
"""The Messages API will not answer without ``max_tokens``: what is sent when none is set."""


def with_url(spec: ProviderSpec, default: str) -> ProviderSpec:
    """`spec` with its API's own URL when it names none."""
    return spec if spec.base_url else spec.replaced(base_url=default)


def _event_data(name: str, line: bytes) -> dict[str, Any] | None:
    """The JSON object of one ``data:`` line (None for other lines: event names, comments)."""
    text = line.decode("utf-8", errors="replace").strip()
    if not text.startswith("data:"):
        return None
    try:
        event = json.loads(text[5:].strip())
    except ValueError:
        raise ProviderOutputError(name, "the server sent an event that is not JSON") from None
    return event if isinstance(event, dict) else None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _error(name: str, event: dict[str, Any]) -> ProviderFailed:
    """An error the API reported inside its answer or stream."""
    err = event.get("error")
    message = err.get("message") if isinstance(err, dict) else err
    return ProviderFailed(name, "the server reported an error", str(message))


def _answer_object(name: str, raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ProviderOutputError(name, "the server's answer is not JSON") from None
    if not isinstance(data, dict):
        raise ProviderOutputError(name, "the server's answer is not a JSON object")
    if "error" in data:
        raise _error(name, data)
    return data


class _Hosted(OpenAICompatibleProvider):
    """A hosted API: not asked for its context window or its slots (declare
    ``context_window:`` in providers.yaml)."""

    def facts(self) -> ServerFacts:
        return UNKNOWN_FACTS


class AnthropicProvider(_Hosted):
    """Anthropic's Messages API."""

    def __init__(self, spec: ProviderSpec) -> None:
        super().__init__(with_url(spec, ANTHROPIC_URL))

    def _endpoint(self) -> str:
        return self.address.path("messages")

    def _auth(self, key: str) -> dict[str, str]:
        return {"x-api-key": key}

    def _headers(self) -> dict[str, str]:
        return {**super()._headers(), "anthropic-version": ANTHROPIC_VERSION}

    def _body(self, prompt: str) -> dict[str, Any]:
        return {
            "model": self.spec.model,
            "max_tokens": self.spec.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": [{"role": "user", "content": prompt}],
            "stream": self.spec.stream,
        }

    def _length_cut(self, answer: Answer) -> str:
        """The limit sent, named even when the entry sets none (`DEFAULT_MAX_TOKENS`)."""
        limit = self.spec.max_tokens or DEFAULT_MAX_TOKENS
        return f"max_tokens {limit}" if answer.finish_reason == "length" else ""

    def _whole(self, raw: bytes, answer: Answer) -> Answer:
        data = _answer_object(self.name, raw)
        blocks = data.get("content")
        if not isinstance(blocks, list):
            raise ProviderOutputError(self.name, "the server's answer has no content")
        answer.add("".join(_block_text(b) for b in blocks))
        answer.finish_reason = _anthropic_stop(data.get("stop_reason"))
        answer.usage = _anthropic_usage(data.get("usage"), data.get("model")) or answer.usage
        return answer.end()

    def _event(self, line: bytes, answer: Answer, request: ProviderRequest) -> str:
        event = _event_data(self.name, line)
        kind = event.get("type") if event else None
        if event is None or kind == "ping":
            return ""
        if kind == "error":
            raise _error(self.name, event)
        if kind == "message_start" and isinstance(event.get("message"), dict):
            message = event["message"]
            answer.usage = _anthropic_usage(message.get("usage"), message.get("model"))
        elif kind == "content_block_delta" and isinstance(event.get("delta"), dict):
            delta = event["delta"]
            if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
                answer.add(delta["text"], request)
        elif kind == "message_delta":
            _message_delta(event, answer)
        return "done" if kind == "message_stop" else ""


def _block_text(block: Any) -> str:
    if isinstance(block, dict) and block.get("type") == "text":
        text = block.get("text")
        return text if isinstance(text, str) else ""
    return ""


def _anthropic_stop(reason: Any) -> str:
    """``length`` (the word `OpenAICompatibleProvider` reads) when cut at ``max_tokens``."""
    return "length" if reason == "max_tokens" else str(reason or "")


def _anthropic_usage(raw: Any, model: Any) -> Usage:
    """Tokens of a ``usage`` object: input is the fresh input plus the cache reads and writes
    (input the model was given, as `usage.claude_json` counts them)."""
    if not isinstance(raw, dict):
        return Usage()
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    inputs = sum(_count(raw.get(k)) for k in keys)
    output = raw.get("output_tokens")
    known_in = inputs if isinstance(raw.get("input_tokens"), int) else None
    known_out = output if isinstance(output, int) and not isinstance(output, bool) else None
    return Usage(known_in, known_out, None, model if isinstance(model, str) else None)


def _message_delta(event: dict[str, Any], answer: Answer) -> None:
    """The stop reason and the output tokens so far (a running total: the latest wins)."""
    delta = event.get("delta")
    if isinstance(delta, dict) and delta.get("stop_reason"):
        answer.finish_reason = _anthropic_stop(delta["stop_reason"])
    usage = event.get("usage")
    if isinstance(usage, dict) and isinstance(usage.get("output_tokens"), int):
        was = answer.usage
        answer.usage = Usage(was.input_tokens, usage["output_tokens"], None, was.model)


class GeminiProvider(_Hosted):
    """Google's Gemini API (``generateContent``, ``streamGenerateContent?alt=sse``)."""

    def __init__(self, spec: ProviderSpec) -> None:
        super().__init__(with_url(spec, GEMINI_URL))

    def _endpoint(self) -> str:
        model = quote(self.spec.model.removeprefix("models/"), safe="-._~")
        method = "streamGenerateContent?alt=sse" if self.spec.stream else "generateContent"
        return self.address.path(f"models/{model}:{method}")

    def _auth(self, key: str) -> dict[str, str]:
        return {"x-goog-api-key": key}

    def _body(self, prompt: str) -> dict[str, Any]:
        body: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": prompt}]}]}
        if self.spec.max_tokens:
            body["generationConfig"] = {"maxOutputTokens": self.spec.max_tokens}
        return body

    def _whole(self, raw: bytes, answer: Answer) -> Answer:
        data = _answer_object(self.name, raw)
        if not isinstance(data.get("candidates"), list) and "usageMetadata" not in data:
            raise ProviderOutputError(self.name, "the server's answer has no candidates")
        _gemini_chunk(data, answer, None)
        return answer.end()

    def _event(self, line: bytes, answer: Answer, request: ProviderRequest) -> str:
        event = _event_data(self.name, line)
        if event is None:
            return ""
        if "error" in event:
            raise _error(self.name, event)
        _gemini_chunk(event, answer, request)
        return ""


def _gemini_chunk(data: dict[str, Any], answer: Answer, request: ProviderRequest | None) -> None:
    """One ``GenerateContentResponse`` read into `answer`."""
    candidates = data.get("candidates")
    first = candidates[0] if isinstance(candidates, list) and candidates else {}
    if isinstance(first, dict):
        content = first.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict) and not part.get("thought"):
                text = part.get("text")
                if isinstance(text, str) and text:
                    answer.add(text, request)
        reason = first.get("finishReason")
        if reason:
            answer.finish_reason = "length" if reason == "MAX_TOKENS" else str(reason)
    meta = data.get("usageMetadata")
    if isinstance(meta, dict):
        model = data.get("modelVersion")
        answer.usage = _gemini_usage(meta, model if isinstance(model, str) else None)


def _gemini_usage(meta: dict[str, Any], model: str | None) -> Usage:
    """Input is prompt + tool-use prompt tokens, output candidates + thoughts (thinking is
    billed as output), as `usage.gemini_json` reads the same counts from the Gemini CLI."""
    prompt = meta.get("promptTokenCount")
    known = isinstance(prompt, int) and not isinstance(prompt, bool)
    inputs = _count(prompt) + _count(meta.get("toolUsePromptTokenCount")) if known else None
    has_out = isinstance(meta.get("candidatesTokenCount"), int)
    output = _count(meta.get("candidatesTokenCount")) + _count(meta.get("thoughtsTokenCount"))
    return Usage(inputs, output if has_out else None, None, model)
