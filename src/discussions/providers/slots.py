"""Calls that wait their turn: a provider that serves only so many requests at once (a local
server with one slot, `Provider.parallel`) gets no more than that from this process; the
other calls wait here, before they start, so each call's timeout counts from its own start
and not from the queue. Calls that would have waited in the server's queue instead run out
their timeout there (llama-cpp-python answers one request at a time; with its default
``interrupt_requests`` a new request even ends a streamed answer early).

`stop_waiting` (Ctrl-C, SIGTERM: `command.terminate_all`) sends the waiting calls away, so
no call starts after the others were stopped.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import ProviderFailed

_SLICE = 0.2
"""Seconds a waiting call sleeps at a time (a signal's handler runs between waits)."""

_busy: dict[tuple[str, int], int] = {}
"""Calls running for each (slot key, limit)."""
_changed = threading.Condition()
_stops = 0
"""How many times `stop_waiting` was called: a waiting call that sees it change leaves."""
_waiting = 0


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
