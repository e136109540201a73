"""The person's side of a parley (``discussions apply --parley``): each file the lead changed,
its diff shown on the terminal and accepted or rejected with y/n. Only on a terminal: the
answer is a person's, never implied."""

from __future__ import annotations

import click

from .common import say, say_styled
from .reviewing import no_one_to_ask


def refuse_without_terminal(as_json: bool) -> None:
    """`apply --parley` asks about each file, so it needs a person at a terminal."""
    why = no_one_to_ask(as_json)
    if why:
        raise click.ClickException(
            f"--parley asks you about each changed file, and {why}: run it on a terminal, "
            "or apply without --parley and review the branch. Nothing was run."
        )


def ask_file(path: str, diff: str, n: int, total: int) -> bool:
    """Show one file's diff (control characters escaped: the lead wrote it) and ask whether
    to keep it; Ctrl-C or the end of input stop the parley (nothing is committed)."""
    say()
    say_styled(f"[{n}/{total}] {path}", bold=True)
    for line in diff.rstrip("\n").splitlines():
        colour = "green" if line.startswith("+") else "red" if line.startswith("-") else None
        say_styled(line, **({"fg": colour} if colour else {}))
    try:
        return click.confirm(f"Accept {path}?", default=None)
    except click.Abort:
        raise EOFError from None
