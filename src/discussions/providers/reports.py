"""What an AI CLI said on its standard output: its final message, and why it failed.

The CLIs with structured output put the reason for a failure on stdout, not stderr (where
they write warnings and transcripts), and exit non-zero:

* ``claude -p --output-format json`` prints its one result object with ``"is_error": true``
  and the reason in ``result`` ("API Error: 500 ..."), then exits 1 (Claude Code 2.1.197,
  seen against a model server answering 500 and 400).
* ``codex exec --json`` prints a ``turn.failed`` event, ``{"type": "turn.failed", "error":
  {"message": ...}}``, after its retries (``error`` events, "Reconnecting... 1/5"), then exits
  1 (codex 0.171.0; codex-rs exec ``ThreadEvent::TurnFailed``). An HTTP error's message is
  the server's JSON body as text; its own ``error.message`` is the reason.

* ``gemini -o json`` prints an error object, ``{"error": {"message": ...}}``, on stderr (not
  stdout) and exits with the HTTP status modulo 256 (Gemini CLI 0.61.0; `usage.gemini_error`).

`failure_reason` reads those, so the user sees the CLI's own words rather than an empty or
unrelated last line of stderr.
"""

from __future__ import annotations

import json
from typing import Any

from .usage import FAILURE_READERS, gemini_error, json_events

_LIMIT = 400


def failure_reason(output: str, text: str, stderr: str = "") -> str | None:
    """The reason the CLI reported for a failed call, in its structured output format
    (``claude-json``, ``codex-jsonl``: on stdout, `text`; ``gemini-json``: on either, its
    error object on `stderr` as a rule); None when it reported none."""
    if output == "claude-json":
        return _claude_failure(text)
    if output == "codex-jsonl":
        return _codex_failure(text)
    if output == "gemini-json":
        return _short(gemini_error(text) or gemini_error(stderr))
    read = FAILURE_READERS.get(output)
    return _short(read(text)) if read else None


def _claude_failure(text: str) -> str | None:
    found = None
    for event in json_events(text):
        if event.get("type", "result") == "result" and event.get("is_error"):
            reason = event.get("result") or event.get("subtype")
            found = str(reason) if reason else None
    return _short(found)


def _codex_failure(text: str) -> str | None:
    """The last ``turn.failed`` message, else the last ``error`` event's."""
    failed: str | None = None
    other: str | None = None
    for event in json_events(text):
        if event.get("type") == "turn.failed":
            failed = _message(event.get("error")) or failed
        elif event.get("type") == "error":
            other = _message(event) or other
    return _short(failed or other)


def _message(value: Any) -> str | None:
    """The ``message`` of an error object; a message that is itself an API error body (JSON
    with ``error.message``) gives that inner message."""
    message = value.get("message") if isinstance(value, dict) else None
    if not isinstance(message, str) or not message.strip():
        return None
    try:
        body = json.loads(message)
    except (json.JSONDecodeError, RecursionError):
        return message.strip()
    inner = body.get("error") if isinstance(body, dict) else None
    return _message(inner) or message.strip()


def _short(text: str | None) -> str | None:
    if text is None:
        return None
    return text if len(text) <= _LIMIT else text[: _LIMIT - 3] + "..."


def codex_last_message(text: str) -> str | None:
    """The text of the last agent message of ``codex exec --json`` output (None: none).

    Only the last one is the answer: codex reports every message of the turn as an
    ``agent_message`` item, and the ones before a tool call are narration ("I'll look at
    the file first"). `codex exec -o FILE` writes this same last message (``codex exec
    --help``: "file where the last message from the agent should be written")."""
    last = None
    for event in json_events(text):
        if event.get("type") != "item.completed":
            continue
        item = event.get("item")
        if not isinstance(item, dict):
            continue
        kind = item.get("type") or item.get("item_type")
        if kind in ("agent_message", "assistant_message") and isinstance(item.get("text"), str):
            last = item["text"]
    return last
