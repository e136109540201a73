"""The `discussions` command line. Commands are thin: parse, call the library, render.

Each command group lives in its own module; this one builds the root group and maps library
errors to one-line messages with a non-zero exit (never a traceback for a user error).
"""

from __future__ import annotations

import sys
from typing import Any

import click

from .. import __version__
from ..errors import DiscussionsError

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class DiscussionsGroup(click.Group):
    """A group that turns `DiscussionsError` into ``Error: <message>`` and exit code 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except DiscussionsError as exc:
            raise click.ClickException(str(exc)) from None
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            sys.exit(130)


@click.group(cls=DiscussionsGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "--version", prog_name="discussions")
def cli() -> None:
    """Structured discussions between AI personas and humans, in one markdown file each.

    \b
    Quick tour:
      discussions new "Add user authentication"
      discussions turn add-user-authentication.md @architect @security
      discussions comment add-user-authentication.md --vote READY "Ship it."
      discussions status add-user-authentication.md
      discussions advance add-user-authentication.md

    A FILE argument is looked up as given, then in the discussions folder
    (output.directory in discussions.yaml, default ./discussions).
    """


def main() -> None:
    cli(prog_name="discussions")


from . import files as _files  # noqa: E402,F401  (registers commands)
from . import registry as _registry  # noqa: E402,F401
from . import turns as _turns  # noqa: E402,F401
