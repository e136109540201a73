"""`discussions watch`: the command around `discussions.ops.watch` (`Watcher`, `observe`)."""

from __future__ import annotations

import queue
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..ops.codewatch import CodeWatcher, observe_code, serve_all
from ..ops.watch import DEFAULT_DEBOUNCE, DEFAULT_MAX_CHAIN, Watcher, observe
from ..settings.workspace import Workspace
from .common import display_path, printable, workspace

if TYPE_CHECKING:
    from watchdog.observers.api import BaseObserver


def _log(message: str) -> None:
    click.echo(f"{datetime.now().strftime('%H:%M:%S')} {printable(message)}")


@click.command("watch")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--debounce",
    type=click.FloatRange(min=0),
    help=f"Seconds of quiet before acting on a save (default: watch.debounce, {DEFAULT_DEBOUNCE}).",
)
@click.option(
    "--max-chain",
    type=click.IntRange(min=0),
    help="AI turns one human comment may "
    f"set off when AIs mention each other (default: watch.max_chain, {DEFAULT_MAX_CHAIN}).",
)
@click.option("-p", "--provider", help="Use this provider for every turn.")
@click.option(
    "--code",
    is_flag=True,
    help="Also watch the project's files for new code comments that summon a council "
    "(`# @discuss: ...`) and start their discussions.",
)
def watch_command(
    paths: tuple[Path, ...],
    debounce: float | None,
    max_chain: int | None,
    provider: str | None,
    code: bool = False,
) -> None:
    """Answer @mentions when a discussion file is saved.

    Watches folders (new files in them are picked up) or single files; by default
    the discussions folder. When a saved file has a new comment by a person that
    @mentions participants who have not answered it, runs a turn for them. Ends
    with Ctrl-C.

    \b
    Examples:
      discussions watch
      discussions watch discussions/feature-x.md --debounce 2
      discussions watch docs/decisions --max-chain 1 --provider claude-haiku
      discussions watch --code         # and new `# @discuss:` comments in the code
    """
    ws = workspace()
    watcher = Watcher.configured(
        ws, log=_log, provider=provider, debounce=debounce, max_chain=max_chain
    )
    targets = watcher.watch(list(paths) or [ws.config.output_directory])
    changes: queue.Queue[Path] = queue.Queue()
    observer = observe(targets, changes)
    _log(
        f"watching {len(watcher.files)} discussion file(s) in "
        + ", ".join(display_path(f) for f in sorted(targets.folders))
        + f" (debounce {watcher.debounce:g}s, loop guard {watcher.max_chain} turn(s));"
        " Ctrl-C to stop"
    )
    coder = _code_watch(ws, watcher.debounce, changes) if code else None
    try:
        if coder is None:
            watcher.serve(changes)
        else:
            serve_all([(watcher, targets.wants), (coder[0], lambda p: True)], changes)
    except KeyboardInterrupt:
        _log("stopped")
    finally:
        for running in (observer, *(coder[1:] if coder else ())):
            running.stop()
            running.join(timeout=5)


def _code_watch(
    ws: Workspace, debounce: float, changes: queue.Queue[Path]
) -> tuple[CodeWatcher, BaseObserver]:
    """The code watcher of `watch --code` and its observer, started."""
    coder = CodeWatcher(ws, log=_log, debounce=debounce)
    observer = observe_code(coder.root, changes)
    _log(f"watching the code under {display_path(coder.root)} for new {coder.prefix}: comments")
    return coder, observer
