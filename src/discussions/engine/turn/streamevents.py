"""Turning streamed text pieces into "latest line" progress reports.

A provider streams its answer in pieces of any size (a line may arrive in several pieces, a
piece may hold several lines). `stream_reporter` keeps everything streamed so far and calls
``report(latest_line, text_so_far)`` after each piece, where the latest line is the last
non-blank line (a partial one counts: it is what the provider is writing now).
"""

from __future__ import annotations

from collections.abc import Callable

MAX_STREAM_KEEP = 256 * 1024
"""Characters of streamed text kept for display; the answer itself is collected elsewhere."""


def latest_line(text: str) -> str:
    """The last non-blank line of `text`, stripped ("" if there is none)."""
    for line in reversed(text[-4096:].splitlines()):
        if line.strip():
            return line.strip()
    return ""


def stream_reporter(report: Callable[[str, str], None]) -> Callable[[str], None]:
    """An `on_output` callback that reports ``(latest line, text so far)`` for each piece."""
    parts: list[str] = []
    size = [0]

    def on_output(piece: str) -> None:
        if not piece:
            return
        parts.append(piece)
        size[0] += len(piece)
        if size[0] > MAX_STREAM_KEEP:
            joined = "".join(parts)[-MAX_STREAM_KEEP:]
            parts[:] = [joined]
            size[0] = len(joined)
        text = "".join(parts) if len(parts) > 1 else parts[0]
        if len(parts) > 1:
            parts[:] = [text]
        report(latest_line(text), text)

    return on_output
