"""Commands about AI providers: providers list/test, trust."""

from __future__ import annotations

import time

import click

from ..errors import DiscussionsError
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
from .common import display_path, echo_json, style, workspace


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
