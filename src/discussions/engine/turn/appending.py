"""Appending the answers of one turn: answers that arrive while another is being written go
together in the next append (one lock, one journal entry, one fsync for all of them)."""

from __future__ import annotations

import threading
from pathlib import Path

from ...model import storage
from ...model.storage import Appended


class _Slot:
    """One caller's blocks in the queue, and how their write went (compared by identity).
    (A slotted class: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("blocks", "wake", "finished", "result", "error")

    def __init__(self, blocks: list[str]) -> None:
        self.blocks = blocks
        self.wake = threading.Event()
        self.finished = False
        self.result: Appended | None = None
        self.error: BaseException | None = None


class GroupAppend:
    """Appends blocks to one discussion file for several threads. The first caller writes its
    block; blocks queued meanwhile are written together by the next caller in the queue. Each
    block is in the file, in the order the calls came, when its call returns; a failed write
    raises in every call whose block it held."""

    def __init__(self, path: Path, root: Path | None) -> None:
        self.path = path
        self.root = root
        self._lock = threading.Lock()
        self._queue: list[_Slot] = []
        self._writing = False
        self._held: _Slot | None = None

    def hold(self, blocks: list[str]) -> None:
        """Queue `blocks` first, to be written by `release`; appends queued meanwhile wait
        behind them (a round's ``ROUND`` block, written while its providers think)."""
        slot = _Slot(list(blocks))
        with self._lock:
            self._queue.append(slot)
            self._writing = True
            self._held = slot

    def release(self) -> None:
        """Write what `hold` queued, with whatever queued behind it; does nothing the second
        time. Raises what the write raised."""
        slot, self._held = self._held, None
        if slot is None:
            return
        if not slot.finished:
            self._write_queued()
        if slot.error is not None:
            raise slot.error

    def append(self, block: str) -> Appended:
        slot = _Slot([block])
        with self._lock:
            self._queue.append(slot)
            lead = not self._writing
            self._writing = True
        if not lead:
            slot.wake.wait()  # written by another call, or our turn to write
        if not slot.finished:
            self._write_queued()
        if slot.error is not None:
            raise slot.error
        assert slot.result is not None
        return slot.result

    def _write_queued(self) -> None:
        """Write every queued block in one append, then hand the pen to the next caller."""
        with self._lock:
            batch, self._queue = self._queue, []
        try:
            done = storage.append(self.path, [b for s in batch for b in s.blocks], root=self.root)
        except BaseException as exc:  # every caller whose block this held gets the error
            for s in batch:
                s.error = exc
        else:
            for i, s in enumerate(batch):  # earlier lost appends are reported once
                s.result = Appended(s.blocks, done.lost if i == 0 else [])
        with self._lock:
            for s in batch:
                s.finished = True
            successor = self._queue[0] if self._queue else None
            self._writing = successor is not None
        for s in batch:
            s.wake.set()
        if successor is not None:
            successor.wake.set()
