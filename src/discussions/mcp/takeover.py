"""The SDK's stdio transport taking over a connection whose first line was read before the SDK
was loaded (`handshake`): that line is given to the SDK first, and the SDK's answer to an
``initialize`` answered already is held back (a client must get one answer per request), after
checking that it says what was sent.

Imports the SDK: only `server.py` uses this module, once the SDK is wanted.
"""

from __future__ import annotations

import json
import sys
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from .handshake import Opening

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server
    from mcp.shared._stream_protocols import ReadStream, WriteStream

Incoming = SessionMessage | Exception


def replayed(line: bytes) -> Incoming | None:
    """`line` as the SDK's stdio reader makes it a message (or the error it passes on)."""
    if not line:
        return None
    text = line.decode("utf-8", errors="replace")
    try:
        message = mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except Exception as exc:  # as the SDK's reader: the session answers with an error
        return exc
    return SessionMessage(message)


class FirstThen:
    """A read stream giving `first` and then what `inner` gives."""

    def __init__(self, inner: ReadStream[Incoming], first: Incoming | None) -> None:
        self._inner = inner
        self._first = first

    @property
    def last_context(self) -> Any:
        """The sender's context of the last message (the SDK's streams keep one)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Incoming:
        if self._first is not None:
            first, self._first = self._first, None
            return first
        return await self._inner.receive()

    def __aiter__(self) -> FirstThen:
        return self

    async def __anext__(self) -> Incoming:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> FirstThen:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


class AnsweredOnce:
    """A write stream passing all to `inner` but the response to the request `sent` answered
    already; that one is compared with `sent`, and a difference said on standard error."""

    def __init__(self, inner: WriteStream[SessionMessage], sent: dict[str, Any] | None) -> None:
        self._inner = inner
        self._sent = sent

    async def send(self, item: SessionMessage, /) -> None:
        if self._sent is not None:
            wire = json.loads(item.message.model_dump_json(by_alias=True, exclude_unset=True))
            if wire.get("id") == self._sent["id"] and ("result" in wire or "error" in wire):
                if wire != self._sent:
                    print(
                        "discussions mcp: the SDK answered initialize otherwise than the early "
                        f"answer sent: {json.dumps(wire)}",
                        file=sys.stderr,
                        flush=True,
                    )
                self._sent = None
                return
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> AnsweredOnce:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


async def run_stdio(server: Server[Any], opening: Opening) -> None:
    """Serve `server` (the SDK's low-level one) over standard input and output, as
    ``MCPServer.run_stdio_async`` does, from `opening` on."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(
            FirstThen(read_stream, replayed(opening.line)),
            AnsweredOnce(write_stream, opening.answer),
            server.create_initialization_options(),
        )
