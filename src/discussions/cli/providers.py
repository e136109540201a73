"""Commands about AI providers: providers list/show/test, trust."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .. import ops
from ..errors import DiscussionsError, ProviderError
from ..providers.base import ProviderRequest, complete_with_usage
from ..providers.chains import participant_chain
from ..providers.kinds import kind_of
from ..providers.registry import ProviderRegistry
from ..providers.specs import read_specs
from ..providers.trust import (
    changed_since_trust,
    evidence_trusted,
    revoke,
    revoke_evidence,
    trust,
    trust_evidence,
    trust_refusal,
    trust_scope,
)
from ..providers.usage import UNKNOWN, Usage
from ..settings.workspace import Workspace
from .common import display_path, echo_json, style, workspace
from .options import json_option

if TYPE_CHECKING:
    from ..ops.probe import ProbePrompt, WindowFit


@click.group("providers")
def providers_group() -> None:
    """Show and try the AI command-line tools that answer for participants.

    Providers come from built-in presets (claude, codex, agy, gemini, opencode,
    qwen, llm, ollama, copilot, cursor-agent, mock), ~/.smarttools/providers.yaml,
    the user dir's providers.yaml, and - once you run `discussions trust` - the
    project's providers.yaml. An entry with `type: openai-compatible` is a local
    server (llama.cpp, LM Studio, vLLM, Ollama) rather than a command.

    Each participant tries its provider_hint, then providers.default (the
    default first for the bundled personas, whose hints are shipped defaults),
    then providers.fallback; when none of those is installed, the AI CLIs found on
    PATH in this order: claude, codex, agy, gemini, opencode, qwen, llm, ollama
    (switch off with `providers: {detect: false}` in discussions.yaml).
    """


@providers_group.command("list")
@json_option("Print JSON: providers and chains.")
def providers_list(as_json: bool) -> None:
    """List providers, whether each one is installed, and each participant's chain.

    The chain is the order in which a participant's providers are tried.

    \b
    Examples:
      discussions providers list
      discussions providers list --json

    \b
    JSON: {"providers": [{name, command, target, description, source,
    installed, executable, trusted, write_command, can_write, env, write_env}], "chains":
    {alias: [{name, status}]}, "mock_fallback": bool}

    "writes" marks a provider whose write mode is installed: it can lead
    `discussions apply`.
    """
    ws = workspace()
    reg = ProviderRegistry.load(ws.config.base_dir)
    rows = _provider_rows(reg)
    chains = _chains(ws, reg)
    mock_fallback = bool(ws.config.section("providers").get("mock_fallback", True))
    if as_json:
        echo_json(
            {
                "providers": rows,
                "chains": {
                    alias: [{"name": n, "status": reg.status(n)} for n in chain]
                    for alias, chain in chains.items()
                },
                "mock_fallback": mock_fallback,
            }
        )
        return
    _echo_rows(rows)
    if reg.untrusted:
        click.echo(
            f"\n{len(reg.untrusted)} provider(s) from "
            f"{display_path(reg.project_file or ws.config.base_dir)}"
            " are not used until you review them and run `discussions trust`."
        )
    if chains:
        click.echo("\nChains:")
        for alias, chain in chains.items():
            click.echo(f"  {alias}: {_chain_text(reg, chain, mock_fallback)}")


def _chains(ws: Workspace, reg: ProviderRegistry) -> dict[str, list[str]]:
    """The provider chain of each participant the workspace knows."""
    return {
        p.alias: participant_chain(reg, p, ws.config)
        for p in sorted(ws.participants, key=lambda p: p.alias)
    }


def _chain_text(reg: ProviderRegistry, chain: list[str], mock_fallback: bool) -> str:
    parts = [f"{name} ({reg.status(name)})" for name in chain]
    if mock_fallback and "mock" not in chain and not any(reg.installed(n) for n in chain):
        parts.append("mock (nothing installed)")
    return " -> ".join(parts)


def _provider_rows(reg: ProviderRegistry) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for name in reg.names():
        spec = reg.specs[name]
        found, where = kind_of(spec).location(spec)
        rows.append(
            {
                "name": name,
                "command": spec.command,
                "target": kind_of(spec).target(spec),
                "description": spec.description,
                "source": spec.source,
                "installed": found,
                "executable": where,
                "trusted": True,
                "write_command": spec.write_command,
                "can_write": reg.can_write(name),
                "env": spec.env,
                "write_env": spec.write_env,
            }
        )
    for name, spec in sorted(reg.untrusted.items()):
        rows.append(
            {
                "name": name,
                "command": spec.command,
                "target": kind_of(spec).target(spec),
                "description": spec.description,
                "source": "project",
                "installed": None,
                "executable": None,
                "trusted": False,
                "write_command": spec.write_command,
                "can_write": False,
                "env": spec.env,
                "write_env": spec.write_env,
            }
        )
    return rows


def _echo_rows(rows: list[dict[str, object]]) -> None:
    width = max(len(str(r["name"])) for r in rows)
    for r in rows:
        if not r["trusted"]:
            mark = style("untrusted", fg="red")
        elif r["installed"]:
            mark = style("installed", fg="green")
        else:
            mark = "missing  "
        writes = "writes" if r["can_write"] else "      "
        click.echo(f"{r['name']:<{width}}  {mark}  {writes}  {r['source']:<10}  {r['target']}")


@providers_group.command("show")
@click.argument("name")
@json_option("Print the provider's row of `providers list --json`.")
def providers_show(name: str, as_json: bool) -> None:
    """Show one provider: where it is defined, its command, and its write mode (the command
    that lets it change files, so it can lead `discussions apply`).

    \b
    Examples:
      discussions providers show claude
      discussions providers show codex --json
    """
    ws = workspace()
    reg = ProviderRegistry.load(ws.config.base_dir)
    row = next((r for r in _provider_rows(reg) if r["name"] == name), None)
    if row is None:
        raise click.ClickException(f"no provider '{name}'; `discussions providers list` shows them")
    if as_json:
        echo_json(row)
        return
    status = "untrusted" if not row["trusted"] else reg.status(name)
    click.echo(f"{name}: {row['description'] or '-'}")
    click.echo(f"Defined in: {row['source']}  ({status})")
    click.echo(f"{'Command' if row['command'] else 'Reaches'}: {row['target']}")
    for var, value in dict(row["env"]).items():  # type: ignore[call-overload]
        click.echo(f"  with {var}={value}")
    write = row["write_command"]
    if not write:
        click.echo("Write mode: none (cannot lead `discussions apply`)")
    else:
        ready = "can lead `discussions apply`" if row["can_write"] else "not installed here"
        click.echo(f"Write mode: {write}  ({ready})")
        for var, value in dict(row["write_env"]).items():  # type: ignore[call-overload]
            click.echo(f"  with {var}={value}")


@providers_group.command("test")
@click.argument("name")
@click.option(
    "--prompt",
    default="Reply with one short sentence: which AI model are you?",
    show_default=True,
    help="What to send.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    help="Seconds to wait (overrides the provider's own timeout; default: its own, else "
    "providers.timeout, as for a turn).",
)
@click.option(
    "--deep",
    is_flag=True,
    help="Send a real prompt as large as the configuration sends (a long sample discussion cut "
    "to the context budget); report the time, whether it fits the context window, whether the "
    "answer parsed and the usage the provider reported. Exits 1 when the call fails or the "
    "prompt does not fit.",
)
@json_option()
def providers_test(
    name: str, prompt: str, timeout: float | None, deep: bool, as_json: bool
) -> None:
    """Send a short prompt to one provider; show the answer and the time taken.

    \b
    Examples:
      discussions providers test claude-haiku
      discussions providers test mock --json
      discussions providers test claude --deep
    """
    ws = workspace()
    reg = ProviderRegistry.load(ws.config.base_dir)
    provider = reg.get(name)
    from ..engine.prompt.fitting import window_lines  # the engine only when a test is run

    if deep:
        _deep_test(name, reg, ws, timeout, as_json, window_lines(reg, name, ws))
        return
    window = window_lines(reg, name, ws)  # a model too small is named before it is called
    if not as_json:
        for line in window:
            click.echo(line, err=True)
    started = time.monotonic()
    completion = complete_with_usage(provider, _test_request(prompt, timeout, ws))
    elapsed = time.monotonic() - started
    if as_json:
        report = {"provider": name, "seconds": round(elapsed, 3), "answer": completion.text}
        echo_json({**report, "window": window})
        return
    click.echo(completion.text.rstrip())
    click.echo(f"\n{name} answered in {elapsed:.1f}s", err=True)


def _test_request(prompt: str, timeout: float | None, ws: Workspace) -> ProviderRequest:
    """The test's request, with the timeout a turn would have (`--timeout`, else the
    provider's own, else ``providers.timeout``), so a test says what a turn will do."""
    return ProviderRequest(
        prompt=prompt,
        timeout=timeout or ws.config.provider_timeout,
        timeout_explicit=timeout is not None,
        participant_name="Tester",
        participant_alias="tester",
    )


def _deep_test(
    name: str,
    reg: ProviderRegistry,
    ws: Workspace,
    timeout: float | None,
    as_json: bool,
    window: list[str],
) -> None:
    """`providers test --deep`: a real-size prompt, its fit and the answer (see engine.probe);
    `window` is what `window_lines` says of the provider's window."""
    from ..providers.window import provider_window
    from ..syntax.answers import parse_response, prompt_echo

    provider = reg.get(name)
    if not as_json:
        for line in window:
            click.echo(line, err=True)
    probe = ops.probe_prompt(ws)
    started = time.monotonic()
    completion, error = None, None
    try:
        completion = complete_with_usage(provider, _test_request(probe.text, timeout, ws))
    except ProviderError as exc:
        error = exc
    elapsed = time.monotonic() - started
    usage = completion.usage if completion else UNKNOWN
    spec = getattr(provider, "spec", None)
    room = getattr(spec, "max_tokens", None) or 0
    fit = ops.window_fit(probe, provider_window(reg, name).tokens, usage.input_tokens, room)
    answer = completion.text if completion else ""
    parsed = parse_response(answer, prompt_echo(probe.text)) if completion else None
    report: dict[str, object] = {
        "provider": name,
        "seconds": round(elapsed, 3),
        "answer": answer,
        "error": (error.reason + (f" ({error.detail})" if error.detail else "")) if error else None,
        "parsed": bool(parsed and parsed.structured and parsed.comment.strip()),
        "vote": parsed.vote if parsed else None,
        "notes": list(parsed.notes) if parsed else [],
        "window": window,
        "usage": {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cost_usd": usage.cost_usd,
        },
        **_fit_report(probe, fit),
    }
    if as_json:
        echo_json(report)
    else:
        _echo_deep(name, report, fit.describe(), elapsed)
    if error is not None or fit.fits is False:
        raise SystemExit(1)


def _fit_report(probe: ProbePrompt, fit: WindowFit) -> dict[str, object]:
    """The deep test's prompt and how it fits the window, for its report."""
    return {
        "prompt": {
            "chars": probe.chars,
            "estimated_tokens": probe.estimated_tokens,
            "budget_chars": probe.budget_chars,
            "participant": probe.participant,
        },
        "context_window": fit.window,
        "prompt_tokens": fit.tokens,
        "prompt_tokens_counted": fit.counted,
        "answer_tokens_reserved": fit.answer_room,
        "fits": fit.fits,
    }


def _echo_deep(name: str, report: dict[str, object], fit: str, elapsed: float) -> None:
    prompt = report["prompt"]
    assert isinstance(prompt, dict)
    if report["answer"]:
        click.echo(str(report["answer"]).rstrip())
    click.echo(
        f"\nPrompt: {prompt['chars']:,} characters, a sample discussion cut to the "
        f"{prompt['budget_chars']:,}-character budget, for @{prompt['participant']}",
        err=True,
    )
    click.echo(f"Window: {fit}", err=True)
    if report["error"]:
        click.echo(f"{name} failed after {elapsed:.1f}s: {report['error']}", err=True)
        return
    click.echo(f"{name} answered in {elapsed:.1f}s", err=True)
    parsed_text = "yes" if report["parsed"] else "no (not the JSON answer format)"
    click.echo(f"Parsed as a discussion answer: {parsed_text}", err=True)
    usage = report["usage"]
    assert isinstance(usage, dict)
    known = Usage(usage["input_tokens"], usage["output_tokens"], usage["cost_usd"])
    click.echo("Usage: " + ", ".join(known.meta_parts()), err=True)


@click.command("trust")
@click.option("--revoke", "do_revoke", is_flag=True, help="Withdraw trust for this project.")
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
def trust_command(do_revoke: bool, yes: bool) -> None:
    """Allow this project's providers.yaml (and evidence.commands) to run commands.

    A repository you clone could otherwise make `discussions turn` run any
    command. Trust covers what will run: the SHA-256 of providers.yaml and of
    every file inside the project that its commands name (a script argument,
    or the executable itself), recorded in the user dir's trust.yaml. If any
    of them changes, the project must be trusted again. A providers.yaml that
    is a symbolic link, or resolves outside the project, is never trusted.
    The commands participants may ask to run as evidence (`evidence.commands`
    in discussions.yaml) are trusted the same way, separately, and so is the
    network access they may ask for (`evidence.web` domains, `evidence.search`).

    \b
    Examples:
      discussions trust
      discussions trust --revoke
    """
    from ..settings.evidence import evidence_settings
    from ..settings.research import web_settings
    from .webtrust import revoke_web_trust, web_to_trust

    ws = workspace()
    path = ws.config.base_dir / "providers.yaml"
    commands = evidence_settings(ws.config).commands
    web = web_settings(ws.config)
    if not path.is_file() and not commands and not web.from_project:
        raise DiscussionsError(
            f"nothing to trust in {ws.config.base_dir.resolve()}: no "
            "providers.yaml, and discussions.yaml sets no evidence.commands, evidence.web or "
            "evidence.search"
        )
    if do_revoke:
        if path.is_file():
            removed = revoke(path)
            click.echo(
                f"Trust withdrawn for {display_path(path)}." if removed else "It was not trusted."
            )
        if commands:
            gone = revoke_evidence(ws.config.base_dir)
            said = "Trust withdrawn for" if gone else "It was not trusted:"
            click.echo(f"{said} evidence.commands.")
        revoke_web_trust(ws.config.base_dir, web)
        return
    wanted = [
        *([_providers_to_trust(path)] if path.is_file() else []),
        *([_evidence_to_trust(ws.config.base_dir, commands)] if commands else []),
        web_to_trust(ws.config.base_dir, web),
    ]
    record = [each for each in wanted if each is not None]
    if not record:
        return
    if not yes and not _allowed():
        raise click.Abort()  # one question for all of it; nothing recorded
    for each in record:
        each()


def _allowed() -> bool:
    """The person's answer; no answer (the end of input, no terminal) trusts nothing and says
    how to trust without the question."""
    try:
        return click.confirm("Allow `discussions` to run them?", default=False)
    except click.Abort:
        raise click.ClickException(
            "no answer, so nothing was trusted: answer on a terminal, or run "
            "`discussions trust --yes` once you have read the above"
        ) from None


def _providers_to_trust(path: Path) -> Callable[[], None] | None:
    """Show the commands of the project's providers.yaml; what records trust in them (None:
    trusted already at its current content)."""
    refusal = trust_refusal(path)
    if refusal is not None:
        raise DiscussionsError(f"{refusal}; copy the file into the project to review and trust it")
    specs = read_specs(path, "project")
    if changed_since_trust(path, specs) is None:
        click.echo(f"{display_path(path)} is already trusted at its current content.")
        _echo_scope(trust_scope(path, specs))
        return None
    click.echo(f"{display_path(path)} defines these commands:")
    for s in specs:
        click.echo(f"  {s.name}: {kind_of(s).target(s)}")
        for name, value in s.env.items():
            click.echo(f"    env: {name}={value}")
        if s.write_command:  # what runs when it leads `discussions apply`
            click.echo(f"    write: {s.write_command}")
        for name, value in s.write_env.items():
            click.echo(f"    write env: {name}={value}")
    scope = trust_scope(path, specs)
    _echo_scope(scope)

    def record() -> None:
        trust(path)
        click.echo(f"Trusted {display_path(path)} ({len(scope)} file(s) covered).")

    return record


def _evidence_to_trust(root: Path, commands: dict[str, str]) -> Callable[[], None] | None:
    """Show the evidence commands of `discussions.yaml`; what records trust in them (None:
    trusted already as they stand)."""
    if evidence_trusted(root, commands):
        click.echo("evidence.commands in discussions.yaml is already trusted as it stands.")
        return None
    click.echo("discussions.yaml lets participants run (EVIDENCE: run NAME):")
    for name, command in sorted(commands.items()):
        click.echo(f"  {name}: {command}")

    def record() -> None:
        scope = trust_evidence(root, commands)
        click.echo(f"Trusted evidence.commands ({len(scope)} item(s) covered).")

    return record


def _echo_scope(scope: dict[str, str]) -> None:
    click.echo("Trust covers (any change needs `discussions trust` again):")
    for rel, digest in scope.items():
        click.echo(f"  {rel}  sha256 {digest[:12]}")
    click.echo(
        "Not covered: what those files load in turn (imports, `sh -c`, make or npm scripts), "
        "nor the agent configuration an AI CLI reads from the repository it works in "
        "(.gemini/, .qwen/, .cursor/cli.json, opencode.json); trust only commands you have read."
    )
