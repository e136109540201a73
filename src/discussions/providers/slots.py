"""Calls that wait their turn: a provider that serves only so many requests at once (a local
server with one slot, `Provider.parallel`) gets no more than that from this process; the
other calls wait here, before they start, so each call's timeout counts from its own start
and not from the queue. Calls that would have waited in the server's queue instead run out
their timeout there (llama-cpp-python answers one request at a time; with its default
``interrupt_requests`` a new request even ends a streamed answer early).

`stop_waiting` (Ctrl-C, SIGTERM: `command.terminate_all`) sends the waiting calls away, so
no call starts after the others were stopped. It also counts the stops: the calls of a
`stoppable` block (a turn, a participant's walk down its provider chain) that start, or are
seen by `terminate_all` only, after a stop are ended by their callers (`stopped_since`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ..errors import ProviderFailed

_SLICE = 0.2
"""Seconds a waiting call sleeps at a time (a signal's handler runs between waits)."""

_busy: dict[tuple[str, int], int] = {}
"""Calls running for each (slot key, limit)."""
_changed = threading.Condition()
_stops = 0
"""How many times `stop_waiting` was called: a waiting call that sees it change leaves."""
_waiting = 0
_since: ContextVar[int | None] = ContextVar("discussions_stops_seen", default=None)
"""The stop count at the start of the innermost `stoppable` block (None: outside any)."""


@contextmanager
def call_slot(name: str, key: str, limit: int | None) -> Iterator[None]:
    """Run the block once fewer than `limit` calls of `key` are running (no wait without a
    `limit`). Raises `ProviderFailed` for provider `name` when the calls are stopped while it
    waits."""
    if not limit:
        yield
        return
    global _waiting
    slot = (key, limit)
    with _changed:
        seen, _waiting = _stops, _waiting + 1
        try:
            while _busy.get(slot, 0) >= limit and _stops == seen:
                _changed.wait(_SLICE)
        finally:
            _waiting -= 1
        if _stops != seen:
            raise ProviderFailed(name, "not started: the calls were stopped")
        _busy[slot] = _busy.get(slot, 0) + 1
    try:
        yield
    finally:
        with _changed:
            _busy[slot] -= 1
            _changed.notify_all()


def stop_waiting() -> int:
    """Send every waiting call away (see `call_slot`); returns how many there were."""
    global _stops
    with _changed:
        _stops += 1
        _changed.notify_all()
        return _waiting


@contextmanager
def stoppable() -> Iterator[None]:
    """Within the block (or the function it decorates), calls go by the stops counted since
    the block began (an enclosing block's start, if any): after a Ctrl-C, a fallback provider
    or a follow-up of the block is not started, and a call spawned as the stop came is ended
    (`stopped_since`), though `terminate_all` never saw it. Threads started inside need the
    context (``contextvars.copy_context().run``)."""
    token = _since.set(stops_seen())
    try:
        yield
    finally:
        _since.reset(token)


def stops_seen() -> int:
    """The stop count the current calls go by: the `stoppable` block's start, else now's."""
    seen = _since.get()
    return _stops if seen is None else seen


def stopped_since(seen: int) -> bool:
    """Whether the calls were stopped (`stop_waiting`) after `seen` (from `stops_seen`)."""
    with _changed:
        return _stops != seen
