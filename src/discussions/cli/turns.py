"""Commands that involve AI providers: turn, providers list/test, trust."""

from __future__ import annotations

import sys
import threading
import time
from typing import IO

import click

from ..model import Discussion
from ..runner import ParticipantOutcome, Runner, TurnEvent, TurnResult
from .common import echo_json, resolve_file, style, workspace


class Progress:
    """Shows a turn's progress: live lines on a terminal, plain lines otherwise."""

    def __init__(self, stream: IO[str], live: bool) -> None:
        self.stream = stream
        self.live = live
        self.rows: dict[str, list[object]] = {}  # alias -> [name, provider, started, state]
        self._drawn = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Progress:
        if self.live:
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()
        if self.live:
            with self._lock:
                self._draw()

    def _tick(self) -> None:
        while not self._stop.wait(0.25):
            with self._lock:
                self._draw()

    def _draw(self) -> None:
        if self._drawn:
            self.stream.write(f"\x1b[{self._drawn}F")
        now = time.monotonic()
        for name, provider, started, state in self.rows.values():
            elapsed = now - float(started)  # type: ignore[arg-type]
            text = state if state else f"{elapsed:5.1f}s"
            self.stream.write(f"\x1b[2K  {name:<18} {provider!s:<16} {text}\n")
        self._drawn = len(self.rows)
        self.stream.flush()

    def __call__(self, ev: TurnEvent) -> None:
        with self._lock:
            if ev.kind == "start":
                if ev.alias in self.rows:
                    row = self.rows[ev.alias]
                    row[1] = ev.provider
                else:
                    self.rows[ev.alias] = [ev.name, ev.provider, time.monotonic(), ""]
                if not self.live:
                    self.stream.write(f"Invoking {ev.name} ({ev.provider})...\n")
            elif ev.kind == "attempt_failed":
                if not self.live:
                    self.stream.write(f"  {ev.name}: {ev.message}; trying the next provider\n")
            elif ev.kind == "done" and ev.outcome is not None:
                o = ev.outcome
                row = self.rows.setdefault(ev.alias, [ev.name, o.provider, time.monotonic(), ""])
                row[3] = _outcome_text(o)
                if not self.live:
                    self.stream.write(f"  {ev.name}: {_outcome_text(o)}\n")
            if self.live:
                self._draw()
            self.stream.flush()


def _outcome_text(o: ParticipantOutcome) -> str:
    if o.status == "posted":
        vote = f", VOTE: {o.vote}" if o.vote else ""
        return f"posted via {o.provider} in {o.duration:.1f}s{vote}"
    if o.status == "no_response":
        return f"nothing to add ({o.provider}, {o.duration:.1f}s)"
    return "failed: " + o.error


@click.command("turn")
@click.argument("file")
@click.argument("aliases", nargs=-1)
@click.option("-c", "--callout", help="A specific question or request for this turn.")
@click.option("-p", "--provider", help="Use this provider for every participant (no fallback).")
@click.option("-s", "--sequential", is_flag=True, help="One after another; each sees the others.")
@click.option("-t", "--timeout", type=click.FloatRange(min=0.1), help="Seconds per provider call.")
@click.option("--json", "as_json", is_flag=True, help="Print the turn's result as JSON.")
def turn_command(
    file: str,
    aliases: tuple[str, ...],
    callout: str | None,
    provider: str | None,
    sequential: bool,
    timeout: float | None,
    as_json: bool,
) -> None:
    """Invoke AI participants and append their comments and votes.

    With no @alias: the participants mentioned and not yet answered, else the
    discussion's participants. @all means all of the discussion's participants.

    \b
    Examples:
      discussions turn feature-x.md @architect @security
      discussions turn feature-x.md @all --callout "Review the updated proposal."
      discussions turn feature-x.md                # answer pending @mentions
      discussions turn feature-x.md @pragmatist --provider mock
      discussions turn feature-x.md @all --sequential --json
    """
    ws = workspace()
    d = Discussion.load(resolve_file(file, ws), ws)
    live = not as_json and sys.stderr.isatty()
    stream = sys.stderr if (live or as_json) else sys.stdout
    with Progress(stream, live) as progress:
        runner = Runner(ws, timeout=timeout, on_event=progress)
        result = runner.run_turn(
            d, list(aliases), callout, provider=provider, sequential=sequential
        )
    if as_json:
        echo_json(result.to_dict())
    else:
        _summary(result)
    if result.failed:
        names = ", ".join(o.name for o in result.failed)
        if not as_json:
            for o in result.failed:
                click.echo(f"Error: {o.name} got no answer: {o.error}", err=True)
        else:
            click.echo(f"Error: no answer from {names}", err=True)
        sys.exit(1)


def _summary(result: TurnResult) -> None:
    n = len(result.posted)
    click.echo("")
    click.echo(f"Discussion updated with {n} new comment{'s' if n != 1 else ''}.")
    counts = result.consensus.get("counts", {})
    click.echo(
        f"Votes: READY: {counts.get('READY', 0)}, CHANGES: {counts.get('CHANGES', 0)}, "
        f"REJECT: {counts.get('REJECT', 0)}"
    )
    for o in result.outcomes:
        for note in o.notes:
            click.echo(f"Note: {o.name}: {note}")
    mocked = [o for o in result.outcomes if o.mock_fallback]
    if mocked:
        tried = sorted({a.provider for o in mocked for a in o.attempts})
        click.echo(
            style("Note:", fg="yellow")
            + f" no AI CLI from the provider chain is installed ({', '.join(tried)}); the built-in"
            " mock provider answered. Install one, or set providers.default in discussions.yaml"
            " (see `discussions providers list`)."
        )
    for c in result.changes:
        if c.kind == "phase":
            click.echo(f"Advanced to phase: {c.target} ({c.reason})")
        else:
            click.echo(f"Status changed to: {c.target} ({c.reason})")
