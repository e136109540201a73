"""The Gemini API, as the stub model speaks it (for Gemini CLI).

``POST /v1beta/models/{model}:generateContent`` answers one ``GenerateContentResponse``;
``...:streamGenerateContent?alt=sse`` answers the same object as server-sent events (``data:``
lines only, no event names, no end marker: the stream ending is the end);
``...:countTokens`` answers ``{"totalTokens": N}``. A response is ``{"candidates": [{"content":
{"role": "model", "parts": [...]}, "finishReason": "STOP", "index": 0}], "usageMetadata":
{"promptTokenCount", "candidatesTokenCount", "totalTokenCount"}, "modelVersion"}``; a part is
``{"text": ...}`` or ``{"functionCall": {"name", "args", "id"}}``, and the CLI sends the tool's
result back as a ``{"functionResponse": {...}}`` part of a user turn. An error is
``{"error": {"code": 500, "message": ..., "status": "INTERNAL"}}`` with its HTTP status.

The shapes follow the Gemini API reference (ai.google.dev/api, "generateContent",
"streamGenerateContent": "Server-Sent Events (SSE)"; ai.google.dev/api/tokens, countTokens)
and its error docs (ai.google.dev/gemini-api/docs/troubleshooting: the ``code`` / ``message``
/ ``status`` object), as the @google/genai SDK's own tests model them (googleapis/js-genai
test/unit/models_test.ts: ``mockGenerateContentResponse`` and
``...WithFunctionCall``), which Gemini CLI uses to reach the API.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .stub import Exchange, Request, Route, StubModel

_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
_MODEL = r"/v1(?:beta|alpha)?/models/([^/:]+)"


def offers_tools(body: dict[str, Any]) -> bool:
    """Whether the request declares any function the model may call."""
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("functionDeclarations"):
            return True
    return False


def offered_names(body: dict[str, Any]) -> set[str]:
    """The names of the functions the request declares (what the CLI lets the model see)."""
    return {
        d.get("name")
        for tool in body.get("tools") or []
        if isinstance(tool, dict)
        for d in tool.get("functionDeclarations") or []
        if isinstance(d, dict)
    }


def has_function_response(body: dict[str, Any]) -> bool:
    for content in body.get("contents") or []:
        parts = content.get("parts") if isinstance(content, dict) else None
        if any(isinstance(p, dict) and "functionResponse" in p for p in parts or []):
            return True
    return False


def wants_tool(stub: StubModel, body: dict[str, Any]) -> bool:
    """Whether this request gets `stub.tool`: it offers tools (any: a model may name one the
    CLI did not declare, and the CLI must refuse that too) and no function response has come
    back yet."""
    return stub.tool is not None and offers_tools(body) and not has_function_response(body)


_CONTEXT = {
    "{cwd}": re.compile(r"Workspace Directories:\**\n\s*- (\S+)"),
    "{project_temp}": re.compile(r"The project's temporary directory is: (\S+)"),
}
"""Placeholders a probe's arguments may use, read from the session context Gemini CLI sends
first: the working directory (an apply's worktree) and the CLI's own temp folder for it."""


def _texts(body: dict[str, Any]) -> str:
    """The text parts of the request's contents, joined."""
    return "\n".join(
        str(part.get("text"))
        for content in body.get("contents") or []
        if isinstance(content, dict)
        for part in content.get("parts") or []
        if isinstance(part, dict) and "text" in part
    )


def _fill(value: Any, context: str) -> Any:
    if isinstance(value, dict):
        return {k: _fill(v, context) for k, v in value.items()}
    if isinstance(value, str):
        for name, pattern in _CONTEXT.items():
            found = pattern.search(context)
            if name in value and found:
                value = value.replace(name, found.group(1))
    return value


def _parts(stub: StubModel, body: dict[str, Any]) -> list[dict[str, Any]]:
    if wants_tool(stub, body):
        assert stub.tool is not None
        call = stub.tool
        args = _fill(call.arguments, _texts(body))
        return [{"functionCall": {"name": call.name, "args": args, "id": call.call_id}}]
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if config.get("responseMimeType") == "application/json" and isinstance(schema, dict):
        return [{"text": json.dumps(_instance(schema))}]
    return [{"text": stub.answer}]


def _instance(schema: dict[str, Any]) -> Any:
    """The smallest value that fits a response schema: what a model asked for JSON answers
    (Gemini CLI's side calls, such as its model router's ``complexity_score``, ask for JSON
    under a schema and retry with backoff while the answer does not parse)."""
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: _instance(v) for k, v in props.items() if isinstance(v, dict)}
    if kind == "array":
        items = schema.get("items")
        return [_instance(items)] if isinstance(items, dict) else []
    return {"string": "stub", "integer": 1, "number": 1, "boolean": False}.get(kind)


def _response(stub: StubModel, body: dict[str, Any], model: str) -> dict[str, Any]:
    inp, out = stub.usage["input_tokens"], stub.usage["output_tokens"]
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": _parts(stub, body)},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": inp,
            "candidatesTokenCount": out,
            "totalTokenCount": inp + out,
        },
        "modelVersion": model,
        "responseId": "stub-response-1",
    }


def _failed(stub: StubModel, exchange: Exchange) -> bool:
    """Answer `stub.error` in the API's error shape, if one is set."""
    if stub.error is None:
        return False
    status, message = stub.error
    error = {"code": status, "message": message, "status": _STATUS.get(status, "UNKNOWN")}
    exchange.send_json(status, {"error": error})
    return True


def _body(request: Request) -> dict[str, Any]:
    return request.body if isinstance(request.body, dict) else {}


def generate(stub: StubModel, exchange: Exchange, request: Request, match: Any) -> None:
    if not _failed(stub, exchange):
        exchange.send_json(200, _response(stub, _body(request), match.group(1)))


def stream(stub: StubModel, exchange: Exchange, request: Request, match: Any) -> None:
    if _failed(stub, exchange):
        return
    exchange.start_events()
    exchange.send_event(_response(stub, _body(request), match.group(1)))


def count_tokens(stub: StubModel, exchange: Exchange, request: Request, match: Any) -> None:
    if not _failed(stub, exchange):
        exchange.send_json(200, {"totalTokens": stub.usage["input_tokens"]})


ROUTES: list[Route] = [
    ("POST", _MODEL + ":generateContent", generate),
    ("POST", _MODEL + ":streamGenerateContent", stream),
    ("POST", _MODEL + ":countTokens", count_tokens),
]
