"""The Anthropic Messages API, as the stub model speaks it (for Claude Code).

``POST /v1/messages`` (Claude Code adds ``?beta=true``), streamed when the body says
``"stream": true``: the server-sent events ``message_start`` (the message with empty content
and the input usage), per content block ``content_block_start`` / ``content_block_delta``
(``text_delta`` or ``input_json_delta``) / ``content_block_stop``, then ``message_delta``
(``stop_reason`` and the output usage) and ``message_stop``; otherwise one message object.
``POST /v1/messages/count_tokens`` answers ``{"input_tokens": N}``. An error is
``{"type": "error", "error": {"type": ..., "message": ...}}`` with its HTTP status.

The shapes follow the Messages API reference (docs.anthropic.com/en/api/messages-streaming,
"Event types" and "Basic streaming request"; /en/api/errors, "Error shapes"), as the
anthropic-sdk-python types model them (``RawMessageStartEvent``, ``RawContentBlockDeltaEvent``,
``RawMessageDeltaEvent`` with ``usage.output_tokens``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .stub import Exchange, Request, Route, StubModel

NARRATION = "Let me look at the repository first."
"""Text the model says before a tool call, as models do: never part of the comment."""

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def wants_tool(stub: StubModel, body: dict[str, Any]) -> bool:
    """Whether this request gets `stub.tool`: it offers tools (any: a CLI that does not offer
    the one called must refuse it) and no ``tool_result`` has come back yet."""
    return stub.tool is not None and bool(body.get("tools")) and not _has_tool_result(body)


def offered(body: dict[str, Any]) -> list[str]:
    """The names of the tools a request offers."""
    return [str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict)]


_CWD = re.compile(r"Primary working directory: (\S+)")


def working_directory(body: dict[str, Any]) -> str:
    """The working directory Claude Code states in its system prompt ("" if none)."""
    system = body.get("system")
    blocks = system if isinstance(system, list) else [{"text": system}]
    text = "\n".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict))
    found = _CWD.search(text)
    return found[1] if found else ""


def _arguments(arguments: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """`arguments` with ``{cwd}`` in string values replaced by the CLI's working directory
    (Claude Code's file tools take absolute paths; an apply's worktree is made at run time)."""
    cwd = working_directory(body)
    return {k: v.replace("{cwd}", cwd) if isinstance(v, str) else v for k, v in arguments.items()}


def _has_tool_result(body: dict[str, Any]) -> bool:
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(
            isinstance(c, dict) and c.get("type") == "tool_result" for c in content
        ):
            return True
    return False


def _blocks(stub: StubModel, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks of the answer: the tool call, or the canned text."""
    if wants_tool(stub, body):
        assert stub.tool is not None
        call = stub.tool
        arguments = _arguments(call.arguments, body)
        use = {"type": "tool_use", "id": call.call_id, "name": call.name, "input": arguments}
        return [{"type": "text", "text": NARRATION}, use]
    return [{"type": "text", "text": stub.answer}]


def _message(
    body: dict[str, Any], content: list[dict[str, Any]], usage: dict[str, int]
) -> dict[str, Any]:
    stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
    return {
        "id": "msg_stub_1",
        "type": "message",
        "role": "assistant",
        "model": body.get("model") or "stub",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }


def _usage(stub: StubModel) -> dict[str, int]:
    return {
        "input_tokens": stub.usage["input_tokens"],
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": stub.usage["output_tokens"],
    }


def send_error(ex: Exchange, status: int, message: str) -> None:
    """An error in the API's shape (docs.anthropic.com/en/api/errors)."""
    kind = _ERROR_TYPES.get(status, "api_error")
    ex.send_json(status, {"type": "error", "error": {"type": kind, "message": message}})


def messages(stub: StubModel, ex: Exchange, request: Request, match: re.Match[str]) -> None:
    """``POST /v1/messages``: the answer, streamed or not."""
    if stub.error is not None:
        send_error(ex, *stub.error)
        return
    body: dict[str, Any] = request.body if isinstance(request.body, dict) else {}
    content, usage = _blocks(stub, body), _usage(stub)
    if not body.get("stream"):
        ex.send_json(200, _message(body, content, usage))
        return
    ex.start_events()
    start = _message(body, [], {**usage, "output_tokens": 1})
    start["stop_reason"] = None
    ex.send_event({"type": "message_start", "message": start}, "message_start")
    for index, block in enumerate(content):
        _stream_block(ex, index, block)
    delta = {"stop_reason": _message(body, content, usage)["stop_reason"], "stop_sequence": None}
    ex.send_event(
        {
            "type": "message_delta",
            "delta": delta,
            "usage": {"output_tokens": usage["output_tokens"]},
        },
        "message_delta",
    )
    ex.send_event({"type": "message_stop"}, "message_stop")


def _stream_block(ex: Exchange, index: int, block: dict[str, Any]) -> None:
    """One content block as start, one delta, stop."""
    if block["type"] == "text":
        empty: dict[str, Any] = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    else:
        empty = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    ex.send_event(
        {"type": "content_block_start", "index": index, "content_block": empty},
        "content_block_start",
    )
    ex.send_event(
        {"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta"
    )
    ex.send_event({"type": "content_block_stop", "index": index}, "content_block_stop")


def count_tokens(stub: StubModel, ex: Exchange, request: Request, match: re.Match[str]) -> None:
    """``POST /v1/messages/count_tokens``: the input tokens the stub reports."""
    ex.send_json(200, {"input_tokens": stub.usage["input_tokens"]})


ROUTES: list[Route] = [
    ("POST", r"/v1/messages", messages),
    ("POST", r"/v1/messages/count_tokens", count_tokens),
]
