"""Streaming a provider's standard output: raw bytes in, decoded text pieces out.

`output_sink` returns a function fed with every stdout chunk as it is read. It decodes UTF-8
incrementally (a character split across reads is held back) and calls ``on_output`` with each
decoded piece. For ``codex-jsonl`` it keeps a line buffer, parses each complete JSON event and
reports the agent's message text (and a short note for other events) instead of raw JSON.
Errors in the callback are swallowed: streaming is a display, never a reason for a call to fail.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable


def output_sink(output: str, on_output: Callable[[str], None]) -> Callable[[bytes], None]:
    """A feeder for stdout chunks that reports decoded text to `on_output`."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = [""]

    def report(text: str) -> None:
        if not text:
            return
        try:
            on_output(text)
        except Exception:  # noqa: BLE001 - a display callback must not break the call
            pass

    def feed_text(chunk: bytes) -> None:
        report(decoder.decode(chunk))

    def feed_jsonl(chunk: bytes) -> None:
        pending[0] += decoder.decode(chunk)
        *lines, pending[0] = pending[0].split("\n")
        for line in lines:
            report(codex_event_text(line))

    def feed_nothing(chunk: bytes) -> None:
        """JSON read whole at the end (claude's, gemini's, qwen's ...): nothing readable streams."""

    if output == "codex-jsonl":
        return feed_jsonl
    streamed = output in ("text", "llm-usage")  # the answer is stdout as it comes
    return feed_text if streamed else feed_nothing  # JSON read whole at the end


def codex_event_text(line: str) -> str:
    """What one `codex exec --json` event line says to a reader ("" for nothing to show)."""
    line = line.strip()
    if not line.startswith("{"):
        return ""
    try:
        event = json.loads(line)
    except json.JSONDecodeError:
        return ""
    if not isinstance(event, dict):
        return ""
    etype = event.get("type")
    raw = event.get("item")
    item: dict[str, object] = raw if isinstance(raw, dict) else {}
    kind = str(item.get("type") or item.get("item_type") or "")
    text = item.get("text")
    if etype in ("item.completed", "item.updated", "item.delta") and isinstance(text, str):
        if kind in ("agent_message", "assistant_message"):
            return text + "\n"
        if kind == "reasoning" and text.strip():
            return "(thinking) " + text.strip().splitlines()[0] + "\n"
    if etype == "item.started" and kind:
        return f"({kind.replace('_', ' ')})\n"
    if etype in ("turn.failed", "error"):
        return "(error)\n"
    return ""
