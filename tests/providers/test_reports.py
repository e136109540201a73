"""What claude and codex say on stdout: the final message, the reason for a failure, and
tokens that describe the same calls as the cost (`providers.reports`, `usage.claude_json`).
The shapes are those the real CLIs print (tests/realcli runs them)."""

from __future__ import annotations

import json

from discussions.providers.reports import codex_last_message, failure_reason
from discussions.providers.usage import Usage, claude_json


def lines(*events: dict[str, object]) -> str:
    return "\n".join(json.dumps(e) for e in events) + "\n"


def message(text: str) -> dict[str, object]:
    return {"type": "item.completed", "item": {"type": "agent_message", "text": text}}


def test_codex_answer_is_its_last_message_not_the_narration_before_a_tool() -> None:
    tool = {"type": "item.completed", "item": {"type": "command_execution", "command": "ls"}}
    out = lines(message("I'll look at the files first."), tool, message("VOTE: READY"))
    assert codex_last_message(out) == "VOTE: READY"
    assert codex_last_message(lines(tool)) is None


def test_codex_failure_is_the_turn_failed_message_unwrapped() -> None:
    body = json.dumps({"error": {"message": "model not found", "type": "invalid_request_error"}})
    out = lines(
        {"type": "error", "message": "Reconnecting... 1/5"},
        {"type": "turn.failed", "error": {"message": body}},
    )
    assert failure_reason("codex-jsonl", out) == "model not found"
    plain = lines({"type": "turn.failed", "error": {"message": "quota exceeded"}})
    assert failure_reason("codex-jsonl", plain) == "quota exceeded"
    assert failure_reason("codex-jsonl", lines(message("hi"))) is None


def test_claude_failure_is_the_result_of_an_error_object() -> None:
    out = json.dumps({"type": "result", "is_error": True, "result": "API Error: 500 down"})
    assert failure_reason("claude-json", out) == "API Error: 500 down"
    ok = json.dumps({"type": "result", "is_error": False, "result": "fine"})
    assert failure_reason("claude-json", ok) is None
    assert failure_reason("text", out) is None


def test_claude_tokens_come_from_model_usage_like_the_cost() -> None:
    """A hidden call (the session title) is in ``modelUsage`` and the cost, not in ``usage``."""
    event = {
        "type": "result",
        "result": "hi",
        "total_cost_usd": 0.02,
        "usage": {"input_tokens": 100, "output_tokens": 10},
        "modelUsage": {
            "opus": {"inputTokens": 100, "cacheReadInputTokens": 50, "outputTokens": 10},
            "haiku": {"inputTokens": 90, "cacheCreationInputTokens": 5, "outputTokens": 4},
        },
    }
    assert claude_json("claude", json.dumps(event)) == ("hi", Usage(245, 14, 0.02))
    event["modelUsage"] = {"opus": {"inputTokens": 100}}  # one model named: it is recorded
    assert claude_json("claude", json.dumps(event)) == ("hi", Usage(None, None, 0.02, "opus"))
