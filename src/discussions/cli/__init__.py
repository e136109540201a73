"""The `discussions` command line. Commands are thin: parse, call the library, render.

Each command group lives in its own module; this one builds the root group and maps library
errors to one-line messages with a non-zero exit (never a traceback for a user error).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from .. import __version__
from ..errors import DiscussionsError

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


# Commands are imported only when used, so `discussions status` does not pay for the runner.
LAZY_COMMANDS = {
    "new": "files:new_command",
    "list": "files:list_command",
    "status": "files:status_command",
    "comment": "files:comment_command",
    "advance": "files:advance_command",
    "close": "files:close_command",
    "reopen": "files:reopen_command",
    "check": "check:check_command",
    "evidence": "evidence:evidence_command",
    "init": "git:init_command",
    "merge-file": "git:merge_file_command",
    "resolve": "git:resolve_command",
    "review": "git:review_command",
    "summary": "files:summary_command",
    "export": "exporting:export_command",
    "run": "running:run_command",
    "decisions": "ledger:decisions_command",
    "chronicle": "ledger:chronicle_command",
    "adr": "ledger:adr_command",
    "memory": "ledger:memory_command",
    "watch": "watching:watch_command",
    "turn": "turns:turn_command",
    "draft": "drafting:draft_command",
    "providers": "providers:providers_group",
    "trust": "providers:trust_command",
    "participants": "registry:participants_group",
    "templates": "registry:templates_group",
    "mcp": "mcp:mcp_command",
    "lsp": "lsp:lsp_command",
    "ui": "ui:ui_command",
    "serve": "web:serve_command",
}


class DiscussionsGroup(click.Group):
    """The root group: loads subcommands lazily and turns `DiscussionsError` (and an
    `OSError` about a file) into ``Error: <message>`` with exit code 1."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS and cmd_name not in self.commands:
            module_name, attr = LAZY_COMMANDS[cmd_name].split(":")
            module = importlib.import_module(f"{__name__}.{module_name}")
            self.add_command(getattr(module, attr), cmd_name)
        _modules_loaded()
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except DiscussionsError as exc:
            from .common import printable

            raise click.ClickException(printable(str(exc))) from None
        except BrokenPipeError:
            raise
        except OSError as exc:  # a file the library did not expect to be missing or unreadable
            from .common import printable

            where = f"{exc.filename}: " if exc.filename else ""
            raise click.ClickException(printable(f"{where}{exc.strerror or exc}")) from None
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


def _modules_loaded() -> None:
    """Turn the garbage collector back on once the command's modules are loaded (`main`
    turns it off for the loading), with what loading made kept out of its way (`gc.freeze`):
    module objects live as long as the process."""
    import gc

    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def main() -> None:
    # SIGTERM/SIGHUP (CI cancellation, `timeout`, a closed terminal) must take the running AI
    # CLIs down with us: see providers.command.install_signal_handlers. Installed here without
    # importing the provider machinery, so `discussions status` does not pay for it: until that
    # module is loaded no provider can be running, and there is nothing to kill.
    import signal

    def on_signal(signum: int, frame: Any) -> None:
        command = sys.modules.get("discussions.providers.command")
        if command is not None:
            command.on_termination_signal(signum, frame)
        raise SystemExit(128 + signum)

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), on_signal)
    # Loading the modules allocates a great deal and frees almost nothing: collections then
    # cost ~10% of the start-up for nothing. On again once the command is loaded.
    import gc

    gc.disable()
    try:
        cli(prog_name="discussions")
    except SystemExit as exc:
        code: object = exc.code
    else:  # pragma: no cover - click in standalone mode always exits
        code = 0
    from .exiting import finish

    finish(code)
