"""The King's Choice at the end of `discussions run`: when the run reached consensus and a
person is at the terminal, ask what to do with the decision (apply it now, leave it to a
person, decide later), record the answer in the file, and with "apply now" go on to
`discussions apply` (which shows the plan and asks for its own consent), through the
provider the run was given (``run --provider``), if any. Never asked without a terminal, in CI,
with --json or --yes."""

from __future__ import annotations

from pathlib import Path

import click

from .common import say
from .reviewing import no_one_to_ask

_MENU = (("a", "apply", "apply it now"), ("p", "person", "leave it to a person"),
         ("l", "later", "decide later"))  # fmt: skip


def offer(path: Path, stopped: str, as_json: bool, yes: bool, provider: str | None) -> None:
    """Ask and record the King's Choice after a run that stopped on consensus; "apply now"
    leads through `provider` as the run's calls went to it."""
    if stopped != "consensus" or yes or no_one_to_ask(as_json):
        return
    from ..ops.choice import choose
    from .common import workspace

    say("")
    say("The council decided. The King's Choice:")
    for key, _, text in _MENU:
        say(f"  [{key}] {text}")
    keys = click.Choice([k for k, _, _ in _MENU])
    try:
        key = click.prompt("Your choice", type=keys, default="l", show_choices=False)
    except click.Abort:
        say("No choice made; nothing recorded.", err=True)
        return
    choice = next(c for k, c, _ in _MENU if k == key)
    chosen = choose(workspace(warn=False), path, choice)
    say(chosen.to_dict()["said"] + " (recorded).")
    if choice == "apply":
        from .apply import apply_command

        click.get_current_context().invoke(apply_command, file=str(path), provider=provider)
