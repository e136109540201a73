"""The messages on the server's standard input, taken apart before pygls sees them.

pygls's own reader (``pygls.io_.run_async``, pygls 2.1) trusts the editor's framing: a
``Content-Length`` it cannot read leaves it reading the body as headers (every later message
then lost), and an absurd one makes it ask for that many bytes at once (the server dies).
`Framed` reads each message itself, by the same rules (header lines until a blank one after
``Content-Length: N``, then N bytes), and hands pygls only well-framed ones, re-framed. A
header block with no usable length (missing, not a number, over `MAX_BODY`) is answered with
a JSON-RPC parse error (id null: its request's id is unknown) and skipped: reading goes on
from the next line holding ``Content-Length:``, where the editor's next message starts (a
body ends without a line break, so the next header follows it on the same line).

Imports nothing of pygls: `handshake` reads the first message by the same rules.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Protocol

MAX_HEADER = 1 << 16
"""Most bytes of one message's header lines."""
MAX_BODY = 64 << 20
"""Most bytes of one message: an editor sends a whole document in ``didOpen`` (a discussion of
tens of MiB would be extraordinary); a larger length is an error, never read."""
CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d{1,12})\r\n$")
"""The header pygls reads the body's length from (its reader's own pattern, with at most 12
digits, so a number of thousands is refused before it is converted)."""
_NAME = b"content-length:"
PARSE_ERROR = -32700


class Reader(Protocol):
    """What `Framed` reads from (the standard input, or `takeover.Replay` in front of it)."""

    def readline(self, size: int = -1, /) -> bytes: ...

    def read(self, n: int, /) -> bytes: ...


def declared_length(line: bytes) -> int | None:
    """The length a header line gives, when it is a ``Content-Length`` from 1 (no message is
    empty: pygls would not even read it) to `MAX_BODY`."""
    match = CONTENT_LENGTH.fullmatch(line)
    length = int(match.group(1)) if match else 0
    return length if 0 < length <= MAX_BODY else None


def framing_error(problem: str) -> bytes:
    """The JSON-RPC parse error (header and body) for a message that cannot be read."""
    body = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": problem}}
    ).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Framed:
    """A reader for pygls (its ``readline`` and ``read``) that gives well-framed messages only;
    `answer` writes the error for each message refused."""

    def __init__(self, inner: Reader, answer: Callable[[bytes], None]) -> None:
        self._inner = inner
        self._answer = answer
        self._ready = b""
        self._resync = False

    def readline(self) -> bytes:
        if not self._ready:
            self._ready = self._next()
        end = self._ready.find(b"\n") + 1 or len(self._ready)
        line, self._ready = self._ready[:end], self._ready[end:]
        return line

    def read(self, n: int) -> bytes:
        got, self._ready = self._ready[:n], self._ready[n:]
        return got

    def _next(self) -> bytes:
        """The next well-framed message, re-framed as pygls reads it; b"" at the end."""
        while True:
            header = self._header()
            if header is None:
                return b""
            length, problem = header
            if problem is None and length is not None:
                body = self._body(length)
                return b"Content-Length: %d\r\n\r\n" % length + body if body else b""
            self._answer(framing_error(problem or "no Content-Length header"))
            self._resync = True

    def _header(self) -> tuple[int | None, str | None] | None:
        """The length and the problem of the next header block; None at the end."""
        length: int | None = None
        problem: str | None = None
        size = 0
        while True:
            line = self._line()
            if not line:
                return None
            size += len(line)
            if not line.strip():
                if length is not None or problem is not None or size > len(line):
                    return length, problem
                size = 0  # blank lines before a header: pygls skips them too
                continue
            if size > MAX_HEADER or not line.endswith(b"\n"):
                problem = problem or f"the header is longer than {MAX_HEADER} bytes"
            elif line.lower().startswith(_NAME) and length is None and problem is None:
                length = declared_length(line)
                problem = None if length is not None else _length_problem(line)

    def _line(self) -> bytes:
        """The next line (at most `MAX_HEADER` bytes); after a refused message, from the first
        ``Content-Length:`` on (lines before it are the refused body)."""
        while True:
            line = self._inner.readline(MAX_HEADER)
            if not self._resync or not line:
                return line
            at = line.lower().find(_NAME)
            if at >= 0:
                self._resync = False
                return line[at:]

    def _body(self, length: int) -> bytes:
        """Exactly `length` bytes (b"": the input ended first)."""
        parts: list[bytes] = []
        left = length
        while left:
            chunk = self._inner.read(min(left, 1 << 20))
            if not chunk:
                return b""
            parts.append(chunk)
            left -= len(chunk)
        return b"".join(parts)


def _length_problem(line: bytes) -> str:
    shown = line.strip()[:60].decode("ascii", errors="replace")
    return (
        f"the header {shown!r} is not a Content-Length the server reads: a whole number of "
        f"bytes from 1 to {MAX_BODY}; the message was skipped"
    )
