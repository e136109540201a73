"""Reading a request's JSON body and its fields, with 400s that say what is wrong."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

from .access import ApiError

MAX_BODY = 1 << 20
"""Largest request body accepted, in bytes."""


async def json_body(request: Request) -> dict[str, Any]:
    """The JSON object sent (``{}`` when nothing was); stops reading past `MAX_BODY`."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise ApiError(413, f"request body over {MAX_BODY} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise ApiError(413, f"request body over {MAX_BODY} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    try:
        data = json.loads(raw or b"{}")
    except ValueError as exc:
        raise ApiError(400, f"the body is not JSON: {exc}") from None
    except RecursionError:
        raise ApiError(400, "the body is nested too deeply to be read") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    return data


def text(data: dict[str, Any], key: str, default: str | None = None) -> str | None:
    value = data.get(key, default)
    if value is not None and not isinstance(value, str):
        raise ApiError(400, f"{key!r} must be a string")
    return value


def names(data: dict[str, Any], key: str) -> list[str]:
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ApiError(400, f"{key!r} must be a list of participant aliases")
    return [v.lstrip("@") for v in value]


def whole(data: dict[str, Any], key: str) -> int | None:
    value = data.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ApiError(400, f"{key!r} must be a whole number")
    try:
        return int(value)
    except ValueError:
        raise ApiError(400, f"{key!r} must be a whole number") from None


def flag(data: dict[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise ApiError(400, f"{key!r} must be true or false")
    return value
