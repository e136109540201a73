"""Commands that involve AI providers: turn, providers list/test, trust."""

from __future__ import annotations

import sys
import threading
import time
from typing import IO

import click

from ..errors import DiscussionsError
from ..model import Discussion
from ..providers.base import ProviderRequest
from ..providers.command import CommandProvider
from ..providers.registry import (
    ProviderRegistry,
    file_digest,
    is_trusted,
    read_specs,
    revoke,
    trust,
)
from ..runner import ParticipantOutcome, Runner, TurnEvent, TurnResult
from .common import display_path, echo_json, resolve_file, style, workspace


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


@click.group("providers")
def providers_group() -> None:
    """Show and try the AI command-line tools that answer for participants.

    Providers come from built-in presets (claude, codex, gemini, opencode, llm,
    ollama, mock), ~/.smarttools/providers.yaml, the user dir's providers.yaml,
    and - once you run `discussions trust` - the project's providers.yaml.
    """


@providers_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
def providers_list(as_json: bool) -> None:
    """List providers and whether each one's executable is installed.

    \b
    Examples:
      discussions providers list
      discussions providers list --json
    """
    ws = workspace()
    reg = ProviderRegistry.load(ws.config.base_dir)
    rows = []
    for name in reg.names():
        spec = reg.specs[name]
        if spec.command is None:
            found, where = True, "built in"
        else:
            exe = CommandProvider(spec).executable()
            found, where = exe is not None, exe or "not found"
        rows.append(
            {
                "name": name,
                "command": spec.command,
                "description": spec.description,
                "source": spec.source,
                "installed": found,
                "executable": where,
                "trusted": True,
            }
        )
    for name, spec in sorted(reg.untrusted.items()):
        rows.append(
            {
                "name": name,
                "command": spec.command,
                "description": spec.description,
                "source": "project",
                "installed": None,
                "executable": None,
                "trusted": False,
            }
        )
    if as_json:
        echo_json(rows)
        return
    width = max(len(r["name"]) for r in rows)  # type: ignore[arg-type]
    for r in rows:
        if not r["trusted"]:
            mark = style("untrusted", fg="red")
        elif r["installed"]:
            mark = style("installed", fg="green")
        else:
            mark = "missing  "
        click.echo(
            f"{r['name']:<{width}}  {mark}  {r['source']:<10}  {r['command'] or '(built in)'}"
        )
    if reg.untrusted:
        click.echo(
            f"\n{len(reg.untrusted)} provider(s) from "
            f"{display_path(reg.project_file or ws.config.base_dir)}"
            " are not used until you review them and run `discussions trust`."
        )


@providers_group.command("test")
@click.argument("name")
@click.option(
    "--prompt",
    default="Reply with one short sentence: which AI model are you?",
    show_default=True,
    help="What to send.",
)
@click.option(
    "-t",
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=120,
    show_default=True,
    help="Seconds to wait.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def providers_test(name: str, prompt: str, timeout: float, as_json: bool) -> None:
    """Send a short prompt to one provider; show the answer and the time taken.

    \b
    Examples:
      discussions providers test claude-haiku
      discussions providers test mock --json
    """
    ws = workspace()
    reg = ProviderRegistry.load(ws.config.base_dir)
    provider = reg.get(name)
    started = time.monotonic()
    answer = provider.complete(
        ProviderRequest(
            prompt=prompt, timeout=timeout, participant_name="Tester", participant_alias="tester"
        )
    )
    elapsed = time.monotonic() - started
    if as_json:
        echo_json({"provider": name, "seconds": round(elapsed, 3), "answer": answer})
        return
    click.echo(answer.rstrip())
    click.echo(f"\n{name} answered in {elapsed:.1f}s", err=True)


@click.command("trust")
@click.option("--revoke", "do_revoke", is_flag=True, help="Withdraw trust for this project.")
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
def trust_command(do_revoke: bool, yes: bool) -> None:
    """Allow this project's providers.yaml to define commands that run.

    A repository you clone could otherwise make `discussions turn` run any
    command. Trust is recorded with the file's SHA-256 in the user dir's
    trust.yaml; if the file changes, it must be trusted again.

    \b
    Examples:
      discussions trust
      discussions trust --revoke
    """
    ws = workspace()
    path = ws.config.base_dir / "providers.yaml"
    if not path.is_file():
        raise DiscussionsError(
            f"no providers.yaml in {display_path(ws.config.base_dir)}; nothing to trust"
        )
    if do_revoke:
        removed = revoke(path)
        click.echo(
            f"Trust withdrawn for {display_path(path)}." if removed else "It was not trusted."
        )
        return
    specs = read_specs(path, "project")
    if is_trusted(path):
        click.echo(f"{display_path(path)} is already trusted at its current content.")
        return
    click.echo(f"{display_path(path)} defines these commands:")
    for s in specs:
        click.echo(f"  {s.name}: {s.command}")
    if not yes and not click.confirm("Allow `discussions` to run them?", default=False):
        raise click.Abort()
    trust(path)
    click.echo(f"Trusted {display_path(path)} (sha256 {file_digest(path)[:12]}).")
