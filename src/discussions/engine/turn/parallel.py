"""Calls made at once, one thread each: their results as they finish, waited for in short
slices so that Ctrl-C reaches the main thread.

A turn's provider calls need no more than this (a thread per call, all started together), and
`concurrent.futures` would cost the turn ~3 ms of start-up before its first call (it loads
``logging``, ``traceback`` and ``queue``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextvars import copy_context
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_SLICE = 0.2
"""Seconds the main thread waits at a time, so a signal's handler runs between waits."""


class Parallel(Generic[T]):
    """Start each of `calls` in a thread of its own, in a copy of the caller's context (so a
    context variable set by the caller, as the turn's escape sweep, is seen by each)."""

    def __init__(self, calls: Sequence[Callable[[], T]]) -> None:
        self._ready = threading.Condition()
        self._finished: list[tuple[int, bool, Any]] = []
        self._threads = [
            threading.Thread(target=self._run, args=(i, copy_context(), call))
            for i, call in enumerate(calls)
        ]
        for thread in self._threads:
            thread.start()

    def _run(self, index: int, context: Any, call: Callable[[], T]) -> None:
        try:
            item: tuple[int, bool, Any] = (index, True, context.run(call))
        except BaseException as exc:  # handed to the thread that reads the results
            item = (index, False, exc)
        with self._ready:
            self._finished.append(item)
            self._ready.notify()

    def finished(self) -> Iterator[tuple[int, T]]:
        """(index in `calls`, result) as each call finishes (those found finished together in
        the order of `calls`); a call's exception is raised here, when its turn comes."""
        left = len(self._threads)
        while left:
            with self._ready:
                while not self._finished:
                    self._ready.wait(_SLICE)
                batch, self._finished = self._finished, []
            for index, ok, value in sorted(batch, key=lambda x: x[0]):  # calls' order
                left -= 1
                if not ok:
                    raise value
                yield index, value

    def join(self) -> None:
        """Wait until every call has returned."""
        for thread in self._threads:
            thread.join()
