"""pygls taking over a connection whose first message was read before pygls was loaded
(`handshake`): that message is given to pygls first, and pygls's answer to an ``initialize``
answered already is held back (an editor gets one answer per request), after checking that
it is the same bytes; so are its notifications that say what was sent early (`early`).

Imports pygls: only `discussions lsp` uses this module, once pygls is wanted.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import BinaryIO

from pygls.lsp.server import LanguageServer

from .framing import Framed
from .handshake import Opening
from .server import DiscussionsServer


class Replay:
    """A reader giving the bytes `first` and then what `inner` gives (the two calls
    `framing.Framed` makes: ``readline`` and ``read``)."""

    def __init__(self, inner: BinaryIO, first: bytes) -> None:
        self._inner = inner
        self._first = first

    def readline(self, size: int = -1) -> bytes:
        """A line, of at most `size` bytes when `size` is positive."""
        if not self._first:
            return self._inner.readline(size)
        end = self._first.find(b"\n") + 1 or len(self._first)
        if 0 < size < end:
            end = size
        line, self._first = self._first[:end], self._first[end:]
        if line.endswith(b"\n") or self._first or (0 < size <= len(line)):
            return line
        return line + self._inner.readline(size - len(line) if size > 0 else -1)

    def read(self, n: int) -> bytes:
        got, self._first = self._first[:n], self._first[n:]
        return got + self._inner.read(n - len(got)) if len(got) < n else got


class AnsweredOnce:
    """A writer passing all to `inner` but pygls's response to the request answered already
    (`opening`); that one is compared with what was sent, and a difference said on standard
    error."""

    def __init__(self, inner: BinaryIO, opening: Opening) -> None:
        self._inner = inner
        self._held: Opening | None = opening if opening.answer is not None else None
        self._early = [_body(data) for data in opening.early]
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:  # pygls writes from the event loop, `framing` from the reader's thread
            self._write(data)

    def send(self, data: bytes) -> None:
        """Write a whole message now (`framing`'s errors)."""
        with self._lock:
            self._write(data)
            self._inner.flush()

    def _write(self, data: bytes) -> None:
        if self._held is not None and _answers(data, self._held.ident):
            if data != self._held.answer:
                print(
                    "discussions lsp: pygls answered initialize otherwise than the early "
                    f"answer sent: {data.decode('utf-8', errors='replace')}",
                    file=sys.stderr,
                    flush=True,
                )
            self._held = None
            return
        if self._early and _body(data) in self._early:
            self._early.remove(_body(data))  # sent before pygls was loaded (`early`)
            return
        self._inner.write(data)

    def flush(self) -> None:
        self._inner.flush()

    def close(self) -> None:
        self._inner.close()


def _body(data: bytes) -> object:
    """The JSON body of the message `data` (header and body), None when it is none."""
    _, _, body = data.partition(b"\r\n\r\n")
    try:
        return json.loads(body)
    except ValueError:
        return None


def _answers(data: bytes, ident: int | str | None) -> bool:
    """Whether the message `data` (header and body) is a response to the request `ident`."""
    message = _body(data)
    return (
        isinstance(message, dict)
        and "method" not in message
        and message.get("id") == ident
        and ("result" in message or "error" in message)
    )


def unreadable(server: LanguageServer, opening: Opening) -> str | None:
    """Why pygls cannot read the request answered early (its parameters do not fit the
    protocol's types), or None."""
    if opening.answer is None:
        return None
    try:
        json.loads(opening.body, object_hook=server.protocol.structure_message)
    except Exception as exc:  # pygls raises its JSON-RPC errors from the converter's
        return f"{type(exc).__name__}: {exc.__cause__ or exc}"
    return None


def serve(server: DiscussionsServer, opening: Opening) -> None:
    """Serve `server` over standard input and output from `opening` on, from the analyses
    made early (not made again when pygls opens the same text). An ``initialize``
    answered early that pygls cannot read stops the server with the reason (pygls alone
    would not have answered it at all)."""
    problem = unreadable(server, opening)
    if problem is not None:
        print(
            "discussions lsp: the editor's initialize request does not fit the protocol "
            f"({problem}); stopping",
            file=sys.stderr,
            flush=True,
        )
        raise SystemExit(1)
    server.buffers.update(opening.analysed)
    stdout = AnsweredOnce(sys.stdout.buffer, opening)
    stdin = Framed(Replay(sys.stdin.buffer, opening.raw), stdout.send)
    server.start_io(stdin, stdout)  # type: ignore[arg-type]
