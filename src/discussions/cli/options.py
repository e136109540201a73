"""Options several commands share, declared once (sqlite-utils' shared option stacks), so a
flag means the same in every command. Imports only click: the merge driver loads this too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


JSON_WANTED = "discussions.json"
"""The key of ``ctx.meta`` (shared by every context of one invocation) that says ``--json``
was given: the root group then prints an error as a JSON object (`cli.JsonError`)."""


def json_option(help: str = "Print the result as JSON.") -> Callable[[F], F]:
    """``--json`` (to the ``as_json`` parameter), the same in every command that has it; read
    before the other options (eager), so an option refused as it is read is said in JSON too."""
    return click.option(
        "--json", "as_json", is_flag=True, help=help, callback=_remember_json, is_eager=True
    )


def _remember_json(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.meta[JSON_WANTED] = True
    return value


def dir_option(help: str) -> Callable[[F], F]:
    """``-d/--dir DIR`` (to the ``directory`` parameter): a folder that must not be a file."""
    return click.option(
        "-d",
        "--dir",
        "directory",
        type=click.Path(file_okay=False, path_type=Path),
        help=help,
    )


def ai_options(f: F) -> F:
    """The options `turn` and `run` share: ``-c/--callout``, ``-p/--provider``,
    ``-s/--sequential``, ``--timeout`` and ``--no-progress``."""
    for option in reversed(
        [
            click.option("-c", "--callout", help="A specific question or request for the AIs."),
            click.option(
                "-p", "--provider", help="Use this provider for every participant (no fallback)."
            ),
            click.option(
                "-s",
                "--sequential",
                is_flag=True,
                help="One after another, each seeing the answers before it (run: order shuffled).",
            ),
            click.option(
                "--timeout", type=click.FloatRange(min=0.1), help="Seconds per provider call."
            ),
            click.option(
                "--no-progress",
                is_flag=True,
                help="Plain progress lines instead of the live display (as on a pipe).",
            ),
        ]
    ):
        f = option(f)
    return f
