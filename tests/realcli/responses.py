"""The OpenAI Responses API event stream, as the stub model speaks it (for the Codex CLI).

``POST /v1/responses`` with ``"stream": true`` answers server-sent events, each ``event:``
named by the ``type`` of its JSON data: ``response.created``; per output item
``response.output_item.added``, for a message ``response.output_text.delta``, then
``response.output_item.done`` carrying the whole item; and ``response.completed`` with the
response's ``id`` and ``usage`` (``input_tokens``, ``input_tokens_details.cached_tokens``,
``output_tokens``, ``output_tokens_details.reasoning_tokens``, ``total_tokens``).

A message item is ``{"type": "message", "role": "assistant", "content": [{"type":
"output_text", "text": ...}]}``; a tool call is ``{"type": "function_call", "name": ...,
"arguments": "<JSON text>", "call_id": ...}``, and its result comes back in the next
request's ``input`` as a ``function_call_output`` item with the same ``call_id``.

Codex reads exactly these (openai/codex, codex-rs/codex-api/src/sse/responses.rs
``process_sse``: ``response.output_item.done`` parsed as a ``ResponseItem``,
``response.output_text.delta``, ``response.created``, ``response.completed`` into
``ResponseCompleted {id, usage}``, ``response.failed`` with ``response.error.message``; a
stream that closes without ``response.completed`` is an error). The names and shapes are the
API reference's (platform.openai.com/docs/api-reference/responses-streaming).

An HTTP error is ``{"error": {"message", "type", "code"}}`` with its status, as the API sends.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .anthropic import NARRATION
from .stub import Exchange, Request, Route, StubModel


def offered(body: dict[str, Any]) -> list[str]:
    """The names of the tools a request offers (function tools, namespaces, and built-ins
    by their type)."""
    return [
        str(t.get("name") or t.get("type")) for t in body.get("tools") or [] if isinstance(t, dict)
    ]


def _has_tool_output(body: dict[str, Any]) -> bool:
    items = body.get("input")
    return isinstance(items, list) and any(
        isinstance(i, dict) and str(i.get("type", "")).endswith("_call_output") for i in items
    )


def wants_tool(stub: StubModel, body: dict[str, Any]) -> bool:
    """Whether this request gets `stub.tool`: it offers tools (any: a CLI that does not offer
    the one called must refuse it) and no tool output came back yet."""
    return stub.tool is not None and bool(body.get("tools")) and not _has_tool_output(body)


def _message(text: str, item_id: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": item_id,
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def _items(stub: StubModel, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The output items of the answer: narration and the tool call, or the canned message."""
    if wants_tool(stub, body):
        assert stub.tool is not None
        call = stub.tool
        function_call = {
            "type": "function_call",
            "id": "fc_stub_1",
            "status": "completed",
            "name": call.name,
            "arguments": json.dumps(call.arguments),
            "call_id": call.call_id,
        }
        return [_message(NARRATION, "msg_stub_0"), function_call]
    return [_message(stub.answer, "msg_stub_1")]


def _usage(stub: StubModel) -> dict[str, Any]:
    i, o = stub.usage["input_tokens"], stub.usage["output_tokens"]
    return {
        "input_tokens": i,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": o,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": i + o,
    }


def _response(body: dict[str, Any], status: str, output: list[Any], usage: Any) -> dict[str, Any]:
    return {
        "id": "resp_stub_1",
        "object": "response",
        "status": status,
        "model": body.get("model") or "stub",
        "output": output,
        "usage": usage,
    }


def send_error(ex: Exchange, status: int, message: str) -> None:
    """An HTTP error in the API's shape."""
    kind = "invalid_request_error" if status < 500 else "server_error"
    ex.send_json(status, {"error": {"message": message, "type": kind, "code": None}})


def responses(stub: StubModel, ex: Exchange, request: Request, match: re.Match[str]) -> None:
    """``POST /v1/responses``: the answer as an event stream (or one response object)."""
    if stub.error is not None:
        send_error(ex, *stub.error)
        return
    body: dict[str, Any] = request.body if isinstance(request.body, dict) else {}
    items, usage = _items(stub, body), _usage(stub)
    if not body.get("stream"):
        ex.send_json(200, _response(body, "completed", items, usage))
        return
    ex.start_events()
    seq = iter(range(1_000))

    def send(kind: str, **data: Any) -> None:
        ex.send_event({"type": kind, "sequence_number": next(seq), **data}, kind)

    send("response.created", response=_response(body, "in_progress", [], None))
    for index, item in enumerate(items):
        _stream_item(send, index, item)
    send("response.completed", response=_response(body, "completed", items, usage))


def _stream_item(send: Callable[..., None], index: int, item: dict[str, Any]) -> None:
    """One output item: added (empty), its text as one delta (a message), done (whole)."""
    if item["type"] == "message":
        send("response.output_item.added", output_index=index, item={**item, "content": []})
        text = item["content"][0]["text"]
        send(
            "response.output_text.delta",
            item_id=item["id"],
            output_index=index,
            content_index=0,
            delta=text,
        )
    else:
        send("response.output_item.added", output_index=index, item={**item, "arguments": ""})
    send("response.output_item.done", output_index=index, item=item)


ROUTES: list[Route] = [("POST", r"/v1/responses", responses)]
