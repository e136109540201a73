"""Commands for working in git: init, merge-file (the merge driver), resolve (`review` has a
module of its own: `codereview`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..errors import DiscussionsError
from ..git.driver import merge_file, resolve_conflict
from .options import json_option

# The merge driver runs once per conflicted file in a merge: it imports only what it needs
# (git.driver, git.merge, syntax.parse); the other commands import the rest when they run.


@click.command("init")
@click.option("--no-git", is_flag=True, help="Only the config file and folder; no git setup.")
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help="Set the AI providers up without asking: every tool found that answers its test, "
    "in the order found.",
)
@click.option("--provider", "-p", metavar="NAME", help="The default provider (no questions).")
@click.option(
    "--fallback", metavar="NAME", multiple=True, help="A fallback provider, in order (repeat)."
)
@click.option(
    "--server",
    "servers",
    metavar="URL",
    multiple=True,
    help="Look for a model server at URL (an OpenAI-compatible API root, e.g. "
    "http://127.0.0.1:8000/v1) instead of the usual ports (repeat).",
)
@click.option("--no-test", is_flag=True, help="Do not try each provider with a tiny real call.")
@click.option(
    "--hooks",
    is_flag=True,
    help="Install a pre-commit hook listing the code comments that summon a council "
    "(`discussions summon --hook`; never stops a commit).",
)
@json_option("Print what was done as JSON.")
def init_command(
    no_git: bool,
    yes: bool,
    provider: str | None,
    fallback: tuple[str, ...],
    servers: tuple[str, ...],
    no_test: bool,
    as_json: bool,
    hooks: bool = False,
) -> None:
    """Set a project up: discussions.yaml, the discussions folder, and for git the
    .gitattributes entries and this clone's merge driver. Safe to run again.

    Each clone needs it once: git takes merge drivers from the clone's own
    configuration, never from the repository.

    On a terminal it also finds the AI tools of this machine (the CLIs claude,
    codex, gemini, qwen, opencode, copilot, llm, ollama on PATH; Ollama, llama.cpp
    and LM Studio servers on 127.0.0.1:11434, 8080, 1234), tries each with a tiny
    call, asks which to use, and writes providers.default, providers.fallback and
    providers.personas (a persona each, spread over vendors) into discussions.yaml,
    keeping what is there. Without a terminal it does so only when told: --yes,
    or --provider and --fallback.

    \b
    Examples:
      discussions init
      discussions init --no-git        # outside a git repository
      discussions init --yes --json    # every tool found that answers
      discussions init --provider claude --fallback codex --no-test
      discussions init --hooks         # list @discuss comments at each commit
    """
    from ..git.setup import init_project
    from .common import echo_json, say
    from .reviewing import no_one_to_ask
    from .wizard import WizardOptions, run_wizard, wanted

    options = WizardOptions(yes, provider, fallback, servers, not no_test)
    interactive = not yes and options.named is None and not no_one_to_ask(as_json)
    report = init_project(Path.cwd(), use_git=not no_git, hooks=hooks)
    if not as_json:
        for step in report.steps:
            detail = f" ({step.detail})" if step.detail else ""
            say(f"{step.action:>9}  {step.what}{detail}")
    providers = (
        run_wizard(report.root, options, interactive, as_json)
        if wanted(options, interactive)
        else None
    )
    if as_json:
        echo_json({**report.to_dict(), **({"providers": providers} if providers else {})})
        return
    if report.changed:
        click.echo("Done. Commit discussions.yaml and .gitattributes so the team shares them;")
        click.echo("each clone runs `discussions init` once for the merge driver.")
    elif providers is None:
        click.echo("Nothing to do: the project is already set up.")


@click.command("merge-file")
@click.argument("base", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("ours", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("theirs", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("path", required=False)
@click.option(
    "--marker-size",
    type=click.IntRange(min=1),
    default=7,
    show_default=True,
    help="Length of conflict markers (git's %L).",
)
def merge_file_command(
    base: Path, ours: Path, theirs: Path, path: str | None, marker_size: int
) -> None:
    """Git merge driver: merge BASE, OURS and THEIRS block by block into OURS.

    Both sides' appended comments are kept, each once, in the phase its author
    saw; a phase or status change made on both sides is written once. Exits 0
    when clean, 1 with standard conflict markers in OURS when the sides cannot be
    merged safely (diverging phase moves, overlapping edits). PATH is only used
    in messages. `discussions init` registers it with git.

    \b
    Examples:
      git config merge.discussions.driver "discussions merge-file --marker-size %L %O %A %B %P"
      discussions merge-file base.md ours.md theirs.md discussions/feature-x.md
    """
    result = merge_file(base, ours, theirs, marker_size=marker_size)
    if not result.clean:
        click.echo(f"discussions: conflict in {path or ours}: {result.reason}", err=True)
        sys.exit(1)


@click.command("resolve")
@click.argument("files", nargs=-1, required=True)
@click.option(
    "--ours-phase",
    "prefer",
    flag_value="ours",
    help="Where the branches moved phase or status differently: keep ours (every comment of "
    "both is kept, theirs first, then a move back, then ours).",
)
@click.option(
    "--theirs-phase",
    "prefer",
    flag_value="theirs",
    help="As --ours-phase, keeping the phase and status of the branch being merged in.",
)
@json_option("Print what was resolved as JSON.")
def resolve_command(files: tuple[str, ...], prefer: str | None, as_json: bool) -> None:
    """Redo a conflicted merge of discussion files from git's index, block by block.

    For clones without the merge driver, and merges started elsewhere (a web
    UI): git's line merge conflicted; this merges the base, ours and theirs
    versions git keeps and writes a clean file, or refuses and leaves the file
    as it was when the merge is not safe, saying what to do instead.

    \b
    Examples:
      discussions resolve discussions/feature-x.md
      discussions resolve --ours-phase discussions/feature-x.md
      discussions resolve $(git diff --name-only --diff-filter=U -- 'discussions/*.md')
    """
    from .common import display_path, echo_json, resolve_file, say, workspace

    ws = workspace()
    done: list[dict[str, object]] = []
    failed = 0
    for name in files:
        path = resolve_file(name, ws)
        try:
            r = resolve_conflict(path, prefer)
        except DiscussionsError as exc:
            failed += 1
            done.append({"file": display_path(path), "resolved": False, "error": str(exc)})
            if not as_json:
                say(f"Error: {exc}", err=True)
            continue
        res = r.result
        done.append(
            {
                "file": display_path(path),
                "resolved": True,
                "from_ours": res.added_ours,
                "from_theirs": res.added_theirs,
                "shared": res.shared,
            }
        )
        if not as_json:
            say(
                f"Resolved {display_path(path)}: {res.added_ours} new block(s) from ours, "
                f"{res.added_theirs} from theirs, {res.shared} on both sides written once."
            )
    if as_json:
        echo_json(done)
    elif len(done) > failed:
        names = " ".join(str(d["file"]) for d in done if d["resolved"])
        click.echo(f"Check the result, then mark it resolved: git add {names}")
    if failed:
        sys.exit(1)
