"""A turn's progress on screen, drawn from the runner's `TurnEvent`s.

* **Live** (standard error is a terminal, ``TERM`` is not ``dumb``, no ``--json``): a header
  with ``done/total`` and the elapsed time, then one row per participant that changes the moment
  its events arrive: the provider it is asking, providers that failed before it
  (``codex ✗ timed out after 5s → claude-haiku``), its elapsed time, and its vote when done.
  Every line is cut to the terminal's width (read again on each draw), so nothing wraps; the
  final frame stays on screen. ``NO_COLOR`` turns colours off.
* **Plain** (a pipe, ``TERM=dumb``, ``--json``): one line per event, no cursor codes.

Everything that may hold someone else's words (provider names, error text with a provider's
standard error) goes through `printable` first.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
import unicodedata
from typing import IO, Any

import click

from ..engine.turn.outcomes import ParticipantOutcome, TurnEvent, outcome_text
from ..syntax.record import Record
from .common import color_enabled, printable

FALLBACK_HINT = (
    "add a fallback under providers.fallback in discussions.yaml (see `discussions providers list`)"
)
_TICK = 0.2
_NAME_WIDTH = 20
_HEAD_WIDTH = 20
"""Columns of a row's head besides the name (mark, elapsed time, state)."""
NARROW = 72
"""Terminals narrower than this show each participant on two lines."""
MIN_TEXT = 16
"""Columns of streamed text a narrow row keeps in view before provider details."""
SILENCE = 25.0
"""Seconds without output after which a row says that its provider has been silent."""


class Glyphs(Record):
    """The symbols a row uses; plain ASCII when the terminal's encoding lacks the others.
    (A slotted `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("done", "failed", "passed", "waiting", "arrow", "ellipsis", "spinner")

    def __init__(
        self, done: str, failed: str, passed: str, waiting: str, arrow: str, ellipsis: str,
        spinner: str,
    ) -> None:  # fmt: skip
        self.done = done
        self.failed = failed
        self.passed = passed
        self.waiting = waiting
        self.arrow = arrow
        self.ellipsis = ellipsis
        self.spinner = spinner


UNICODE_GLYPHS = Glyphs("✓", "✗", "·", "·", "→", "…", "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
ASCII_GLYPHS = Glyphs("+", "x", "-", ".", "->", "~", "|/-\\")


def glyphs_for(stream: IO[str]) -> Glyphs:
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        "✓✗·→…⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return ASCII_GLYPHS
    return UNICODE_GLYPHS


class Row(Record):
    """One participant's state in the display.
    (A slotted `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = (
        "alias", "name", "provider", "failures", "started", "outcome", "nothing_left", "latest",
        "heard",
    )  # fmt: skip
    alias: str
    name: str
    provider: str | None
    """The provider being asked now (or the one that answered)."""
    failures: list[tuple[str, str]]
    """(provider, short reason) for each provider that failed so far."""
    started: float | None
    """When the first provider was asked (monotonic seconds); None while waiting."""
    outcome: ParticipantOutcome | None
    nothing_left: bool
    """The last failure had no provider left in the chain."""
    latest: str
    """The latest line the provider being asked has streamed ("" before any output)."""
    heard: float | None
    """When the provider being asked last said something (or was started), monotonic."""

    def __init__(self, alias: str, name: str) -> None:
        self.alias = alias
        self.name = name
        self.provider = None
        self.failures = []
        self.started = None
        self.outcome = None
        self.nothing_left = False
        self.latest = ""
        self.heard = None

    @property
    def done(self) -> bool:
        return self.outcome is not None


def short_reason(event: TurnEvent) -> str:
    """``timed out after 5s`` from ``codex: timed out after 5s; process group killed (...)``."""
    text = event.message
    if event.provider and text.startswith(f"{event.provider}: "):
        text = text[len(event.provider) + 2 :]
    for stop in (" (", "; ", ": "):
        text = text.split(stop, 1)[0]
    return text.strip() or "failed"


def seconds(value: float) -> str:
    if value < 60:
        return f"{value:.1f}s"
    minutes, rest = divmod(int(value), 60)
    return f"{minutes}m{rest:02d}s"


def char_width(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def text_width(text: str) -> int:
    return sum(char_width(ch) for ch in text)


Segment = tuple[str, dict[str, Any]]


def fit(segments: list[Segment], width: int, ellipsis: str) -> list[Segment]:
    """`segments` cut so that their text takes at most `width` columns (ending in `ellipsis`
    when cut). Styles are applied afterwards, so escape codes never count or get cut."""
    total = sum(text_width(text) for text, _ in segments)
    if total <= width:
        return segments
    budget = max(width - text_width(ellipsis), 0)
    out: list[Segment] = []
    for text, style in segments:
        kept: list[str] = []
        for ch in text:
            w = char_width(ch)
            if w > budget:
                break
            kept.append(ch)
            budget -= w
        else:
            out.append((text, style))
            continue
        out.append(("".join(kept) + ellipsis, style))
        break
    return out


def terminal_size(stream: IO[str]) -> os.terminal_size:
    """Columns and lines of the terminal `stream` writes to (``COLUMNS`` and ``LINES`` win, as
    with shutil)."""
    if os.environ.get("COLUMNS", "").strip().isdigit():
        return shutil.get_terminal_size()
    try:
        return os.get_terminal_size(stream.fileno())
    except (AttributeError, ValueError, OSError):
        return shutil.get_terminal_size()


def terminal_width(stream: IO[str]) -> int:
    """Columns of the terminal `stream` writes to."""
    return terminal_size(stream).columns


class Progress:
    """Shows a turn's progress; call it with each `TurnEvent` (from any thread).

    `expected` lists the participants (alias, name) the turn will ask, in order, so the
    display knows the total before the first event; others get a row when they start.
    `forced` names the provider given with ``--provider`` (the hint for a participant left
    with nothing to try then says that it has no fallback)."""

    def __init__(
        self,
        stream: IO[str],
        live: bool,
        expected: list[tuple[str, str]] | None = None,
        *,
        color: bool | None = None,
        forced: str | None = None,
        said: set[str] | None = None,
        title: str = "discussions turn",
    ) -> None:
        self.stream = stream
        self.title = title
        """The header's first words (``discussions apply`` shows a lead's run the same way)."""
        self.said = set() if said is None else said
        """Notes shown already (shared by the rounds of a run: each is said once)."""
        self.notes: list[str] = []
        """Notes to show under the final live frame."""
        self.hint = (
            f"--provider {forced} has no fallback; leave it out to use the provider chain"
            if forced
            else FALLBACK_HINT
        )
        self.live = live
        self.color = color_enabled() if color is None else color
        self.glyphs = glyphs_for(stream)
        self.rows: dict[str, Row] = {a: Row(a, n) for a, n in expected or []}
        self.started = time.monotonic()
        self.finished: float | None = None
        self._hinted = False
        self._drawn = 0
        self._frame = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------

    def __enter__(self) -> Progress:
        self.started = time.monotonic()
        if self.live:
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()
        with self._lock:
            self.finished = time.monotonic()
            if self.live and self._drawn:
                self._draw()
                self.stream.write("\x1b[?25h")
                for line in self.hints():
                    self.stream.write(line + "\n")
                self.stream.flush()

    def _tick(self) -> None:
        while not self._stop.wait(_TICK):
            with self._lock:
                self._frame += 1
                if self._drawn:  # nothing on screen before the first event
                    self._draw()

    # -- events ---------------------------------------------------------------------------

    def __call__(self, ev: TurnEvent) -> None:
        with self._lock:
            row = self.rows.get(ev.alias)
            if row is None:
                row = self.rows[ev.alias] = Row(ev.alias, ev.name)
            if ev.kind == "start":
                self._on_start(row, ev)
            elif ev.kind == "attempt_failed":
                self._on_failed(row, ev)
            elif ev.kind == "done" and ev.outcome is not None:
                self._on_done(row, ev.outcome)
            elif ev.kind == "chunk":
                row.latest, row.heard = ev.message, time.monotonic()
            if self.live:
                self._draw()
            self.stream.flush()

    def _on_start(self, row: Row, ev: TurnEvent) -> None:
        if row.started is None:
            row.started = time.monotonic()
        row.provider = ev.provider
        row.latest, row.heard = "", time.monotonic()
        if ev.message and ev.message not in self.said:  # no AI CLI installed: said once
            self.said.add(ev.message)
            if self.live:
                self.notes.append(f"Note: {ev.message}")
            else:
                self._line(f"Note: {ev.message}")
        if not self.live:
            self._line(f"Invoking {ev.name} ({ev.provider})...")

    def _on_failed(self, row: Row, ev: TurnEvent) -> None:
        row.failures.append((ev.provider or "?", short_reason(ev)))
        row.provider = None
        row.nothing_left = ev.remaining == 0
        if self.live:
            return
        if ev.remaining > 0:
            self._line(f"  {ev.name}: {ev.message}; trying the next provider")
            return
        hint = "" if self._hinted else f" — {self.hint}"
        self._hinted = True
        self._line(f"  {ev.name}: {ev.message}; no configured provider left to try{hint}")

    def _on_done(self, row: Row, outcome: ParticipantOutcome) -> None:
        row.outcome = outcome
        row.provider = outcome.provider
        if row.started is None:
            row.started = time.monotonic() - outcome.duration
        if not self.live:
            self._line(f"  {outcome.name}: {outcome_text(outcome)}")

    def _line(self, text: str) -> None:
        self.stream.write(printable(text) + "\n")

    # -- the live frame -------------------------------------------------------------------

    def hints(self) -> list[str]:
        """Lines shown under the final frame: what to do about participants left without
        any provider."""
        lines = [printable(note) for note in self.notes]
        stuck = [r.name for r in self.rows.values() if r.nothing_left and r.done and _failed(r)]
        if stuck:
            names = ", ".join(stuck)
            lines.append(printable(f"No configured provider left to try for {names}: {self.hint}."))
        return lines

    def frame(self, width: int, height: int | None = None) -> list[str]:
        """The lines of the live display at `width` columns (styled, each fitting). Below
        `NARROW` columns a row takes two lines (participant, time and state; then the
        providers and the latest streamed text), unless the frame would not fit in `height`
        lines."""
        now = self.finished or time.monotonic()
        rows = list(self.rows.values())
        limit = max(width - 1, 1)  # the last column would make some terminals wrap
        name_w = min(max([len(r.name) for r in rows] + [4]), _NAME_WIDTH)
        narrow = width < NARROW and (height is None or 2 * len(rows) + 2 <= height)
        if narrow:
            name_w = max(min(name_w, limit - _HEAD_WIDTH), 4)
        done = sum(r.done for r in rows)
        failed = sum(_failed(r) for r in rows)
        header: list[Segment] = [(f"{self.title}: {done}/{len(rows)} done", {"bold": True})]
        if failed:
            header.append((f", {failed} failed", {"fg": "red"}))
        took = seconds(now - self.started)
        header.append((f" in {took}" if self.finished else f", {took}", {}))
        lines = [header]
        for r in rows:
            if narrow:
                lines += self._two_lines(r, now, name_w, limit)
            else:
                lines.append(self._fitting_row(r, now, name_w, limit))
        return [self._styled(fit(segments, limit, self.glyphs.ellipsis)) for segments in lines]

    def _fitting_row(self, row: Row, now: float, name_w: int, limit: int) -> list[Segment]:
        """The most detailed form of `row` that fits: failure reasons go first, then the
        failed providers' names, so the provider answering now stays in view."""
        head = self._head(row, now, name_w)
        forms = [_trimmed(head + self._tail(row, now, detail)) for detail in (2, 1, 0)]
        widths = [_width(segments) for segments in forms]
        for segments, used in zip(forms, widths, strict=True):
            if used <= limit:
                return segments
        return forms[widths.index(min(widths))]

    def _two_lines(self, row: Row, now: float, name_w: int, limit: int) -> list[list[Segment]]:
        """`row` on a narrow terminal. Participant, time, state and providers on one line when
        they fit (failure details go first); the latest streamed text on a line of its own
        under it. When the providers do not fit beside the state, they go on the second line
        too, as detailed as leaves `MIN_TEXT` columns for the text."""
        head = self._head(row, now, name_w)
        fixed = [self._tail(row, now, detail, stream=False) for detail in (2, 1, 0)]
        stream = self._tail(row, now, 0, stream=True)[len(fixed[2]) :]
        indent: Segment = ("   ", {})
        for tail in fixed:
            if _width(head + tail) <= limit:
                line = _trimmed(head + tail)
                return [line, _trimmed([indent, *stream])] if stream else [line]
        text = " ".join(row.latest.split()) if stream else ""
        room = limit - min(MIN_TEXT, text_width(text))
        fixed.append(self._tail(row, now, -1, stream=False))  # the provider asked now alone
        tail = next((t for t in fixed if _width([indent, *t]) <= room), fixed[-1])
        return [_trimmed(head), _trimmed([indent, *tail, *stream])]

    def _head(self, row: Row, now: float, name_w: int) -> list[Segment]:
        """Mark, name, elapsed time and state (the vote when done)."""
        g = self.glyphs
        o = row.outcome
        mark: Segment
        if o is None and row.started is None:
            mark, result, elapsed = (g.waiting, {"dim": True}), "waiting", ""
        elif o is None:
            spin = g.spinner[self._frame % len(g.spinner)]
            mark, result = (spin, {"fg": "cyan"}), "writing" if row.latest else "asking"
            elapsed = seconds(now - (row.started or now))
            if row.provider is None:  # between a failed provider and the next
                result = ""
        else:
            elapsed = seconds(o.duration)
            if o.status == "posted":
                mark, result = (g.done, {"fg": "green"}), o.vote or "no vote"
            elif o.status == "no_response":
                mark, result = (g.passed, {"dim": True}), "passed"
            else:
                mark, result = (g.failed, {"fg": "red"}), "failed"
        name = row.name if len(row.name) <= name_w else row.name[: name_w - 1] + g.ellipsis
        return [
            ("  ", {}),
            mark,
            (" ", {}),
            (f"{name:<{name_w}}", {}),
            (f" {elapsed:>5}  ", {}),
            (f"{result:<8}", _result_style(result)),
        ]

    def _tail(self, row: Row, now: float, detail: int, stream: bool = True) -> list[Segment]:
        """Failed providers (with their reasons at `detail` 2, names at 1, a count at 0, none
        at -1), the provider asked now and, while it runs, silence and its latest line."""
        g = self.glyphs
        segments: list[Segment] = []
        if row.failures and detail == 0:
            segments.append((f" {len(row.failures)} failed ", {"fg": "red"}))
            segments.append((g.arrow, {"dim": True}))
        for provider, reason in row.failures if detail > 0 else []:
            why = f" {reason}" if detail == 2 else ""
            segments.append((f" {provider} {g.failed}{why} ", {"fg": "red"}))
            segments.append((g.arrow, {"dim": True}))
        if row.provider:
            segments.append((f" {row.provider}", {}))
            if row.outcome is None and stream:
                segments.extend(self._stream_segments(row, now))
        elif row.nothing_left and row.failures:
            segments.append((" nothing left to try", {"fg": "red"}))
        return segments

    def _stream_segments(self, row: Row, now: float) -> list[Segment]:
        """What a running row adds after its provider: silence, then the latest line."""
        out: list[Segment] = []
        quiet = now - row.heard if row.heard is not None else 0.0
        if quiet >= SILENCE:
            out.append((f" silent for {seconds(quiet)}", {"fg": "yellow"}))
        if row.latest:
            out.append((f" {self.glyphs.arrow} ", {"dim": True}))
            out.append((" ".join(row.latest.split()), {"dim": True}))
        return out

    def _styled(self, segments: list[Segment]) -> str:
        parts = []
        for text, style in segments:
            text = printable(text)
            parts.append(click.style(text, **style) if self.color and style else text)
        return "".join(parts)

    def _draw(self) -> None:
        out = []
        if self._drawn:
            out.append(f"\x1b[{self._drawn}F\x1b[J")  # back to the frame's first line, clear
        else:
            out.append("\x1b[?25l")  # hide the cursor while the rows redraw
        size = terminal_size(self.stream)
        lines = self.frame(size.columns, size.lines)
        out.extend(f"\x1b[2K{line}\n" for line in lines)
        self.stream.write("".join(out))
        self.stream.flush()
        self._drawn = len(lines)


def _width(segments: list[Segment]) -> int:
    return sum(text_width(text) for text, _ in segments)


def _trimmed(segments: list[Segment]) -> list[Segment]:
    """`segments` without trailing blanks."""
    if not segments:
        return segments
    text, style = segments[-1]
    return [*segments[:-1], (text.rstrip(), style)]


def _failed(row: Row) -> bool:
    return row.outcome is not None and row.outcome.status == "failed"


def _result_style(result: str) -> dict[str, Any]:
    return {
        "READY": {"fg": "green"},
        "CHANGES": {"fg": "yellow"},
        "REJECT": {"fg": "red"},
        "failed": {"fg": "red"},
    }.get(result, {"dim": True} if result else {})
