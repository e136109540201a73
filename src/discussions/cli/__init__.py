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
from ..errors import BadInput, DiscussionsError

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


# Commands are imported only when used, so `discussions status` does not pay for the runner.
# Each entry: "module:attribute" under this package, and the command's short help as its
# docstring gives it (the first sentence), which `--help` lists without importing anything
# (tests/cli/test_help.py checks the two agree).
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "new": ("files:new_command", "Create a discussion file from a template."),
    "list": ("files:list_command", "List the discussions in the discussions folder."),
    "status": (
        "status:status_command",
        "Show a discussion's phase, votes, consensus and open items.",
    ),
    "comment": (
        "files:comment_command",
        "Append a comment (and optionally a vote) as a human participant.",
    ),
    "advance": (
        "files:advance_command",
        "Move a discussion to its next phase (votes restart in the new phase).",
    ),
    "close": (
        "files:close_command",
        "Close a discussion by hand: record a status change in the file.",
    ),
    "reopen": (
        "files:reopen_command",
        "Reopen a closed or decided discussion (records a status change to OPEN).",
    ),
    "check": ("check:check_command", "Report problems in discussion files as FILE:LINE: message."),
    "evidence": (
        "evidence:evidence_command",
        "Fulfil the pending EVIDENCE: requests of a discussion now.",
    ),
    "init": (
        "git:init_command",
        "Set a project up: discussions.yaml, the discussions folder, and for git the "
        ".gitattributes entries and this clone's merge driver.",
    ),
    "merge-file": (
        "git:merge_file_command",
        "Git merge driver: merge BASE, OURS and THEIRS block by block into OURS.",
    ),
    "resolve": (
        "git:resolve_command",
        "Redo a conflicted merge of discussion files from git's index, block by block.",
    ),
    "review": (
        "codereview:review_command",
        "Open a code-review discussion from a git diff, and with @aliases run their turn.",
    ),
    "summary": (
        "files:summary_command",
        "Write FILE's summary to a .sum.md next to it (rebuilt from the file).",
    ),
    "export": (
        "exporting:export_command",
        "Export FILE as HTML, JSON, a written post or a hand-off; the discussion is not changed.",
    ),
    "run": (
        "running:run_command",
        "Run rounds until the discussion is decided or a stop condition is met.",
    ),
    "decisions": (
        "ledger:decisions_command",
        "List every DECISION: across the project's discussions, oldest first.",
    ),
    "chronicle": (
        "ledger:chronicle_command",
        "Write CHRONICLE.md in the discussions folder: every decision, by discussion.",
    ),
    "adr": (
        "ledger:adr_command",
        "Write FILE's decisions as a numbered architecture decision record.",
    ),
    "memory": (
        "ledger:memory_command",
        "Show what participant ALIAS is reminded of from its earlier discussions.",
    ),
    "watch": ("watching:watch_command", "Answer @mentions when a discussion file is saved."),
    "turn": ("turns:turn_command", "Invoke AI participants and append their comments and votes."),
    "apply": (
        "apply:apply_command",
        "Have a lead implement a decided discussion on a new git branch.",
    ),
    "draft": (
        "drafting:draft_command",
        "Draft the document that records a decided discussion, and have the council approve it.",
    ),
    "providers": (
        "providers:providers_group",
        "Show and try the AI command-line tools that answer for participants.",
    ),
    "trust": (
        "providers:trust_command",
        "Allow this project's providers.yaml (and evidence.commands) to run commands.",
    ),
    "participants": ("registry:participants_group", "Show the AI personas that can take part."),
    "templates": ("registry:templates_group", "Show the discussion templates and their phases."),
    "mcp": (
        "mcp:mcp_command",
        "Serve this project's discussions to AI coding agents over MCP (stdio).",
    ),
    "lsp": (
        "lsp:lsp_command",
        "Serve discussion files to an editor (the Language Server Protocol, stdio).",
    ),
    "ui": ("ui:ui_command", "Browse, follow and take part in discussions in a terminal app."),
    "serve": (
        "web:serve_command",
        "Serve the discussions folder as a live web page and a JSON API.",
    ),
    "outcome": (
        "hindsight:outcome_command",
        "Record how a decision turned out: an OUTCOME: line in a comment of yours.",
    ),
    "retrial": (
        "hindsight:retrial_command",
        "Ask a decision's first ballot again of another provider or model, and record the flips.",
    ),
    "calibration": (
        "hindsight:calibration_command",
        "Score each persona and provider against how the folder's decisions turned out.",
    ),
    "summon": (
        "summon:summon_command",
        "List the code comments that summon a council (`# @discuss: QUESTION`).",
    ),
    "drift": (
        "drift:drift_command",
        "List the decisions whose governed code changed since they were recorded or implemented.",
    ),
    "recheck": (
        "recheck:recheck_command",
        "Ask the council whether the governed code, as it is now, still conforms to the decision.",
    ),
    "trial": (
        "trial:trial_command",
        "Run a task file through arms and report whether the council beats one model.",
    ),
    "council-memory": (
        "council_memory:council_memory_command",
        "Show what the council decided across the project's discussions and how its votes went.",
    ),
}


class JsonError(click.ClickException):
    """A command's error when ``--json`` was asked for: ``{"error": message}`` on standard
    output, where a script reads the result, with the exit code the error has."""

    def __init__(self, exc: click.ClickException) -> None:
        super().__init__(exc.format_message())
        setattr(self, "exit_code", exc.exit_code)  # noqa: B010 - click's is a class variable

    def show(self, file: Any = None) -> None:
        from .common import echo_json

        echo_json({"error": self.format_message()})


class DiscussionsGroup(click.Group):
    """The root group: loads subcommands lazily and turns `DiscussionsError` (and an
    `OSError` about a file) into ``Error: <message>`` with exit code 1; with ``--json``,
    every error into a JSON object (`JsonError`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS and cmd_name not in self.commands:
            module_name, attr = LAZY_COMMANDS[cmd_name][0].split(":")
            module = importlib.import_module(f"{__name__}.{module_name}")
            self.add_command(getattr(module, attr), cmd_name)
        _modules_loaded()
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their short help, from `LAZY_COMMANDS` for those not loaded."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in LAZY_COMMANDS and name not in self.commands:
                # shortened as click shortens a command's own help (a bare command does it)
                placeholder = click.Command(name, help=LAZY_COMMANDS[name][1])
                rows.append((name, placeholder.get_short_help_str(limit)))
                continue
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return self._invoke_plain(ctx)
        except click.ClickException as exc:
            from .options import JSON_WANTED

            if ctx.meta.get(JSON_WANTED) and not isinstance(exc, JsonError):
                raise JsonError(exc) from None
            raise

    def _hint(self, ctx: click.Context, field: str) -> str:
        """How a usage error names `field`: ``'--reason'`` for an option, ``'PATHS'`` for an
        argument of the command that ran."""
        command = self.get_command(ctx, ctx.invoked_subcommand or "")
        for param in command.params if command is not None else ():
            if param.name == field and isinstance(param, click.Argument):
                return f"'{param.human_readable_name}'"
        return f"'--{field.replace('_', '-')}'"

    def _invoke_plain(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BadInput as exc:  # the caller can correct it: a usage error on its option
            from .common import printable

            if not exc.field:
                raise click.UsageError(printable(str(exc))) from None
            raise click.BadParameter(
                printable(str(exc)), param_hint=self._hint(ctx, exc.field)
            ) from None
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
