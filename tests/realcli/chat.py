"""OpenAI Chat Completions for the stub model (qwen, opencode, copilot and llm speak it).

``POST /v1/chat/completions`` answers streamed (server-sent ``chat.completion.chunk`` events,
then a usage chunk with empty ``choices`` when ``stream_options.include_usage`` is set, then
``[DONE]``) or as one ``chat.completion`` object, as the request's ``stream`` asks
(platform.openai.com/docs/api-reference/chat, "The chat completion chunk object"). A request
that offers ``tools`` and carries no ``role: tool`` message yet is answered with a line of
`NARRATION` and the stub's `ToolCall` (``tool_calls``, ``finish_reason: tool_calls``);
otherwise with the canned text.
``stub.error`` fails every model request with the API's error object. ``GET /v1/models`` lists
the model the CLI asks for (any name is served).
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from .stub import Exchange, Request, Route, StubModel, ToolCall

MODEL = "m"
"""The model name the tests configure (any name is answered)."""

NARRATION = "Let me look at the code before I answer."
"""What the model says before its tool call (as models do): it must not reach the comment."""


def wants_tool(stub: StubModel, body: dict[str, Any]) -> ToolCall | None:
    """The tool call to answer with: one is set, tools are offered, no tool result came yet."""
    messages = body.get("messages") or []
    answered = any(isinstance(m, dict) and m.get("role") == "tool" for m in messages)
    return stub.tool if stub.tool and body.get("tools") and not answered else None


def _usage(stub: StubModel) -> dict[str, int]:
    i, o = stub.usage["input_tokens"], stub.usage["output_tokens"]
    return {"prompt_tokens": i, "completion_tokens": o, "total_tokens": i + o}


def _call(tool: ToolCall) -> dict[str, Any]:
    return {
        "id": tool.call_id,
        "type": "function",
        "function": {"name": tool.name, "arguments": json.dumps(tool.arguments)},
    }


def _head(body: dict[str, Any], kind: str) -> dict[str, Any]:
    model = body.get("model") or MODEL
    return {"id": "chatcmpl-stub", "object": kind, "created": int(time.time()), "model": model}


def _error(stub: StubModel, ex: Exchange) -> bool:
    """Answer `stub.error` in the API's shape; whether it did."""
    if stub.error is None:
        return False
    status, message = stub.error
    kind = "server_error" if status >= 500 else "invalid_request_error"
    ex.send_json(status, {"error": {"message": message, "type": kind, "param": None, "code": None}})
    return True


def completions(stub: StubModel, ex: Exchange, request: Request, _: re.Match[str]) -> None:
    """``POST /v1/chat/completions``."""
    body: dict[str, Any] = request.body if isinstance(request.body, dict) else {}
    if _error(stub, ex):
        return
    tool = wants_tool(stub, body)
    if body.get("stream"):
        _stream(stub, ex, body, tool)
        return
    message: dict[str, Any] = {"role": "assistant", "content": NARRATION if tool else stub.answer}
    if tool:
        message["tool_calls"] = [_call(tool)]
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if tool else "stop"}
    ex.send_json(
        200, {**_head(body, "chat.completion"), "choices": [choice], "usage": _usage(stub)}
    )


def _stream(stub: StubModel, ex: Exchange, body: dict[str, Any], tool: ToolCall | None) -> None:
    head = _head(body, "chat.completion.chunk")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
        ex.send_event({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    ex.start_events()
    chunk({"role": "assistant", "content": ""})
    if tool:
        chunk({"content": NARRATION})
        chunk({"tool_calls": [{"index": 0, **_call(tool)}]})
    else:
        for i in range(0, len(stub.answer), 16):
            chunk({"content": stub.answer[i : i + 16]})
    chunk({}, "tool_calls" if tool else "stop")
    if (body.get("stream_options") or {}).get("include_usage"):
        ex.send_event({**head, "choices": [], "usage": _usage(stub)})
    ex.send_event("[DONE]")


def models(stub: StubModel, ex: Exchange, request: Request, _: re.Match[str]) -> None:
    """``GET /v1/models``: the one model the tests name."""
    entry = {"id": MODEL, "object": "model", "created": 0, "owned_by": "stub"}
    ex.send_json(200, {"object": "list", "data": [entry]})


ROUTES: list[Route] = [
    ("POST", r"(/v1)?/chat/completions", completions),
    ("GET", r"(/v1)?/models", models),
]


def model_calls(stub: StubModel) -> list[Request]:
    """The chat-completions requests the stub got."""
    return stub.model_requests(r"/chat/completions")
