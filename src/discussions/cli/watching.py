"""`discussions watch`: the watchdog glue around `discussions.engine.watch.Watcher`."""

from __future__ import annotations

import os
import queue
import time
from datetime import datetime
from pathlib import Path

import click

from ..engine.watch import DEFAULT_DEBOUNCE, DEFAULT_MAX_CHAIN, Watcher, is_discussion_file
from ..errors import DiscussionNotFound
from .common import display_path, printable, workspace


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
def watch_command(
    paths: tuple[Path, ...], debounce: float | None, max_chain: int | None, provider: str | None
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
    """
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    ws = workspace()
    settings = ws.config.section("watch")
    watcher = Watcher(
        ws,
        log=_log,
        provider=provider,
        debounce=debounce
        if debounce is not None
        else float(settings.get("debounce", DEFAULT_DEBOUNCE)),
        max_chain=max_chain
        if max_chain is not None
        else int(settings.get("max_chain", DEFAULT_MAX_CHAIN)),
    )
    targets = list(paths) or [ws.config.output_directory]
    folders: set[Path] = set()
    for target in targets:
        if target.is_dir():
            folders.add(target.resolve())
            for f in sorted(target.glob("*.md")):
                if is_discussion_file(f):
                    watcher.add(f)
        elif target.is_file():
            from ..model.discussion import Discussion

            _ = Discussion.load(target, ws).text  # a binary file fails here, one line
            folders.add(target.resolve().parent)
            watcher.add(target)
        else:
            raise DiscussionNotFound(
                f"nothing to watch at {display_path(target)}: no such file or folder"
            )
    explicit_files = {t.resolve() for t in targets if t.is_file()}
    watched_dirs = {t.resolve() for t in targets if t.is_dir()}

    events: queue.Queue[Path] = queue.Queue()

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.is_directory or event.event_type not in (
                "modified",
                "created",
                "moved",
                "closed",
            ):
                return
            raw = getattr(event, "dest_path", "") or event.src_path
            path = Path(os.fsdecode(raw)).resolve()
            if path in explicit_files or path.parent in watched_dirs:
                events.put(path)

    observer = Observer()
    handler = Handler()
    for folder in sorted(folders):
        observer.schedule(handler, str(folder), recursive=False)
    observer.start()
    _log(
        f"watching {len(watcher.files)} discussion file(s) in "
        + ", ".join(display_path(f) for f in sorted(folders))
        + f" (debounce {watcher.debounce:g}s, loop guard {watcher.max_chain} turn(s));"
        " Ctrl-C to stop"
    )
    try:
        while True:
            due = watcher.next_due()
            wait = 0.5 if due is None else max(0.0, min(0.5, due - time.monotonic()))
            try:
                path = events.get(timeout=wait)
                watcher.notify(path)
                continue
            except queue.Empty:
                pass
            watcher.run_due()
    except KeyboardInterrupt:
        _log("stopped")
    finally:
        observer.stop()
        observer.join(timeout=5)
