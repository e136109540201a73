"""What `review` puts in a discussion: the changes between two states of the repository
(`collect_changes`) and their markdown (`render_review_context`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DiscussionsError
from ..syntax.fences import fence_block
from .confine import Confinement
from .run import git_text, repo_root, verify_rev

DIFF_BUDGET = 60_000
"""Characters of diff `review` puts in a discussion unless told otherwise."""


@dataclass(slots=True)
class _FileChange:
    path: str
    added: int | None
    """Lines added (None for a binary file)."""
    deleted: int | None


@dataclass(slots=True)
class Changes:
    """What `review` shows: the changes between two states of the repository."""

    description: str
    """What is compared, in words (``working tree against HEAD``, ``main..feature``)."""
    branch: str
    commits: list[str]
    """``<short hash> <subject>`` of each commit in the range, oldest first."""
    files: list[_FileChange]
    diffs: list[tuple[str, str]]
    """(path, that file's part of the diff), in diff order."""
    refused: list[tuple[str, str]] = field(default_factory=list)
    """(path, why) of each changed path the evidence rule refuses (`Confinement.sift`): named,
    never shown."""


def collect_changes(
    start: Path,
    rev_range: str | None = None,
    *,
    staged: bool = False,
    exclude: tuple[str, ...] = (),
    paths: tuple[str, ...] = (),
) -> Changes:
    """The changes to review: the working tree against HEAD (default), the index against HEAD
    (`staged`), a range ``A..B``, or the working tree against a revision. The changed paths
    are listed first and sifted by the evidence rule (secrets, `exclude`, what git ignores);
    the counts and the diff are asked for the allowed paths only, as literal pathspecs.
    `paths` (git pathspecs) limits the commits and the changes to what they match."""
    root = repo_root(start)
    branch = git_text(["rev-parse", "--abbrev-ref", "HEAD"], root).strip()
    if staged and rev_range:
        raise DiscussionsError("give a revision range or --staged, not both")
    commits: list[str] = []
    if staged:
        spec = ["--cached"]
        description = "staged changes against HEAD"
    elif rev_range:
        spec = [rev_range]
        log_range = rev_range if ".." in rev_range else f"{rev_range}..HEAD"
        for rev in re.split(r"\.{2,3}", rev_range):
            if rev:
                verify_rev(rev, root)
        log = git_text(["log", "--reverse", "--format=%h %s", log_range, "--", *paths], root)
        commits = [line for line in log.splitlines() if line.strip()]
        description = rev_range if ".." in rev_range else f"working tree against {rev_range}"
    else:
        spec = ["HEAD"]
        description = "working tree against HEAD"
    # --submodule=short: a submodule is its commits, never the diff of the files inside it
    # (``diff.submodule=diff`` would show them all under the one path the rule allowed)
    base = ["-c", "core.quotepath=off", "diff", "--no-color", "--no-ext-diff", "--submodule=short"]
    base += spec
    names = git_text([*base, "--name-only", "--no-renames", "-z", "--", *paths], root).split("\0")
    sifted = Confinement.of(root, exclude).sift([n for n in names if n])
    changes = Changes(description, branch, commits, [], [], sifted.refused)
    if sifted.allowed:
        numstat = git_text([*base, "--numstat", "-z", "--", *sifted.pathspecs()], root)
        diff = git_text([*base, "--", *sifted.pathspecs()], root)
        changes.files, changes.diffs = _numstat(numstat), _split_diff(diff)
    return changes


def _numstat(out: str) -> list[_FileChange]:
    files: list[_FileChange] = []
    parts = out.split("\0")
    i = 0
    while i < len(parts):
        entry = parts[i]
        i += 1
        if not entry.strip():
            continue
        added, deleted, path = (entry.split("\t", 2) + ["", ""])[:3]
        if not path:  # a rename: the two paths follow
            old, new = parts[i], parts[i + 1]
            i += 2
            path = f"{old} -> {new}"
        files.append(
            _FileChange(
                path,
                int(added) if added.isdigit() else None,
                int(deleted) if deleted.isdigit() else None,
            )
        )
    return files


def _split_diff(diff: str) -> list[tuple[str, str]]:
    pieces: list[tuple[str, str]] = []
    for chunk in re.split(r"(?m)^(?=diff --git )", diff):
        if not chunk.strip():
            continue
        first = chunk.split("\n", 1)[0]
        m = re.match(r"diff --git a/(.*) b/(.*)$", first)
        pieces.append((m.group(2) if m else first, chunk))
    return pieces


def render_review_context(changes: Changes, budget: int) -> tuple[str, list[str]]:
    """The markdown `review` puts in the discussion: what is compared, the commits, a table of
    changed files, and the diff in a fence it cannot close, within `budget` characters of
    diff. Returns the markdown and the files whose diff was left out."""
    lines = [f"**Branch:** `{changes.branch}` — {changes.description}", ""]
    if changes.commits:
        lines += ["**Commits:**", ""]
        lines += [f"- {_md_cell(c)}" for c in changes.commits]
        lines.append("")
    lines += ["| File | + | - |", "| --- | ---: | ---: |"]
    for f in changes.files:
        added = "bin" if f.added is None else str(f.added)
        deleted = "bin" if f.deleted is None else str(f.deleted)
        lines.append(f"| `{_md_cell(f.path)}` | {added} | {deleted} |")
    total_add = sum(f.added or 0 for f in changes.files)
    total_del = sum(f.deleted or 0 for f in changes.files)
    lines += ["", f"{len(changes.files)} file(s) changed, +{total_add} -{total_del}.", ""]
    if changes.refused:
        named = ", ".join(
            f"`{_md_cell(p)}` (refused: {_md_cell(why)})" for p, why in changes.refused
        )
        lines += [f"*Not shown, by the evidence rule: {named}.*", ""]
    kept: list[str] = []
    omitted: list[str] = []
    used = 0
    for path, chunk in changes.diffs:
        if used + len(chunk) <= budget:
            kept.append(chunk)
            used += len(chunk)
        else:
            omitted.append(path)
    if kept:
        lines.append(fence_block("".join(kept), "diff").rstrip("\n"))
    if omitted:
        lines += [
            "",
            f"*Diff left out to stay within {budget} characters: "
            + ", ".join(f"`{_md_cell(p)}`" for p in omitted)
            + ".*",
        ]
    return "\n".join(lines), omitted


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'").replace("\n", " ")
