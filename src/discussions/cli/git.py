"""Commands for working in git: init, merge-file (the merge driver), resolve, review."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import DiscussionExists, DiscussionsError
from ..git.driver import merge_file, resolve_conflict
from .options import json_option

if TYPE_CHECKING:
    from ..engine.turn.outcomes import TurnResult
    from ..git.review import Changes
    from ..model.discussion import Discussion
    from ..settings.workspace import Workspace

# The merge driver runs once per conflicted file in a merge: it imports only what it needs
# (git.driver, git.merge, syntax.parse); the other commands import the rest when they run.

DEFAULT_BUDGET = 60_000


@click.command("init")
@click.option("--no-git", is_flag=True, help="Only the config file and folder; no git setup.")
@json_option("Print what was done as JSON.")
def init_command(no_git: bool, as_json: bool) -> None:
    """Set a project up: discussions.yaml, the discussions folder, and for git the
    .gitattributes entries and this clone's merge driver. Safe to run again.

    Each clone needs it once: git takes merge drivers from the clone's own
    configuration, never from the repository.

    \b
    Examples:
      discussions init
      discussions init --no-git        # outside a git repository
      discussions init --json
    """
    from ..git.setup import init_project
    from .common import echo_json, say

    report = init_project(Path.cwd(), use_git=not no_git)
    if as_json:
        echo_json(report.to_dict())
        return
    for step in report.steps:
        detail = f" ({step.detail})" if step.detail else ""
        say(f"{step.action:>9}  {step.what}{detail}")
    if report.changed:
        click.echo("Done. Commit discussions.yaml and .gitattributes so the team shares them;")
        click.echo("each clone runs `discussions init` once for the merge driver.")
    else:
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


@click.command("review")
@click.argument("args", nargs=-1, metavar="[REV-RANGE] [@ALIAS]...")
@click.option("--staged", is_flag=True, help="Review the staged changes (index against HEAD).")
@click.option("--title", help="Discussion title (default: from the branch and what is compared).")
@click.option(
    "--budget",
    type=click.IntRange(min=0),
    default=DEFAULT_BUDGET,
    show_default=True,
    help="Characters of diff to include; files beyond it are listed, not shown.",
)
@click.option(
    "--with-files",
    is_flag=True,
    help="Attach the current text of the changed files as evidence.",
)
@json_option("Print the created discussion as JSON.")
def review_command(
    args: tuple[str, ...],
    staged: bool,
    title: str | None,
    budget: int,
    as_json: bool,
    with_files: bool = False,
) -> None:
    """Open a code-review discussion from a git diff, and with @aliases run their turn.

    Default: the working tree against HEAD. The discussion lists the branch, the
    commits of a range, the changed files with +/- counts, and the diff as code.

    \b
    Examples:
      discussions review
      discussions review --staged @security
      discussions review main..HEAD @architect @security
      discussions review HEAD~3 --title "Retry logic" --budget 20000
      discussions review --with-files @security
    """
    from ..git.review import render_review_context
    from ..model.discussion import Discussion
    from .common import display_path, echo_json, workspace

    aliases = [a for a in args if a.startswith("@")]
    revs = [a for a in args if not a.startswith("@")]
    if len(revs) > 1:
        raise click.UsageError(f"give at most one REV-RANGE (got: {' '.join(revs)})")
    ws = workspace()
    changes = _changes(ws, revs[0] if revs else None, staged)
    context, omitted = render_review_context(changes, budget)
    shown = title or f"{changes.branch}: {changes.description}"
    d = Discussion.create(shown, template="code-review", context=context, workspace=ws)
    d = _unused_path(d, shown, context)
    d.save()
    attached = _attach_changed(d, [f.path for f in changes.files]) if with_files else []
    result = None
    if aliases:
        from ..engine.runner import Runner

        result = Runner(ws).run_turn(d, aliases)
    if as_json:
        data = d.to_dict()
        data["omitted_files"] = omitted
        data["refused_files"] = [{"path": p, "reason": why} for p, why in changes.refused]
        if result is not None:
            data["turn"] = result.to_dict()
        echo_json(data)
        return
    click.echo(f"Created: {display_path(d.path)} ({len(changes.files)} file(s) changed)")
    if omitted:
        click.echo(f"Diff of {len(omitted)} file(s) left out (--budget {budget}).")
    if changes.refused:
        click.echo(f"Not shown, by the evidence rule: {', '.join(p for p, _ in changes.refused)}")
    for line in attached:
        click.echo(line)
    _say_outcomes(result, d)


def _changes(ws: Workspace, rev_range: str | None, staged: bool) -> Changes:
    """What `review` shows, its paths sifted by the evidence rule (``evidence.exclude``
    included); a clear error when nothing changed."""
    from ..git.review import collect_changes
    from ..settings.evidence import evidence_settings

    exclude = evidence_settings(ws.config).exclude
    changes = collect_changes(Path.cwd(), rev_range, staged=staged, exclude=exclude)
    if not changes.files and not changes.refused:
        raise DiscussionsError(f"nothing to review: no changes ({changes.description})")
    return changes


def _say_outcomes(result: TurnResult | None, d: Discussion) -> None:
    """What the review's turn did, or how to ask for one."""
    from .common import say

    if result is None:
        click.echo(f"Ask for a review: discussions turn {d.path.name} @all")
        return
    for o in result.outcomes:
        vote = f", VOTE: {o.vote}" if o.vote else ""
        state = f"posted via {o.provider}{vote}" if o.status == "posted" else o.status
        if o.status == "failed":
            state += f": {o.error}"
        say(f"  {o.name}: {state}")


def _attach_changed(d: Discussion, paths: list[str]) -> list[str]:
    """Attach the current text of the changed files that still exist, as evidence."""
    from ..engine.evidence.fulfil import attach
    from ..git.run import repo_root
    from .common import default_author

    root = repo_root(Path.cwd())
    present = [p for p in paths if (root / p).is_file()]
    return attach(d, default_author(), present).lines() if present else []


def _unused_path(d: Discussion, title: str, context: str) -> Discussion:
    """`d`, or the same discussion at ``<slug>-2.md``, ``-3``... when the file exists."""
    from ..model.discussion import Discussion, slugify
    from .common import display_path

    if not d.path.exists():
        return d
    for n in range(2, 1000):
        path = d.path.with_name(f"{slugify(title)}-{n}.md")
        if not path.exists():
            return Discussion.create(
                title, template="code-review", context=context, path=path, workspace=d.workspace
            )
    raise DiscussionExists(f"{display_path(d.path)} and 998 numbered copies already exist")
