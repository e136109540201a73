"""The merge driver: merge three versions of a discussion file, git's ``merge-file`` entry
point, and `resolve` (the same merge redone from the index stages of a conflicted file).

The merge itself is `discussions.git.merge` (pure); this module reads and writes the files git hands
over, and falls back to ``git merge-file`` (a normal three-way line merge) when a side edited text
that was already in the file. `python -m discussions merge-file` imports it before anything else,
so it imports the merge and little else: subprocess and tempfile only where a line merge runs.
"""

from __future__ import annotations

import os
import sys

from ..errors import DiscussionsError
from ..syntax.record import Record
from ..syntax.text import decode
from .merge import CLEAN, CONFLICT, LINE_MERGE, MergeResult, check_line_merge, merge_texts
from .plain import driver_args, read_added, write_from
from .run import is_discussion_bytes, relative_path, repo_root, run_git
from .tails import merge_tails, tail_merge
from .units import split_blocks

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (see __main__)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    StrPath = str | os.PathLike[str]


def merge_versions(
    base: bytes,
    ours: bytes,
    theirs: bytes,
    *,
    marker_size: int = 7,
    cwd: StrPath | None = None,
    prefer: str | None = None,
) -> tuple[MergeResult, bytes]:
    """Merge three versions of a discussion file; returns the decision and the bytes to write.

    Block-level merge first; where a side edited text of the base, a normal three-way line
    merge (``git merge-file``), accepted only if it brings no new parse warning. `prefer`:
    whose phase and status to keep where the sides moved them differently (`merge_texts`).
    Two sides that only appended (the usual case) merge their tails alone, with the same
    result (`tails.merge_tails`)."""
    if prefer is None:
        fast = merge_tails(base, ours, theirs, marker_size)
        if fast is not None:
            return fast
    return merge_whole(base, ours, theirs, marker_size=marker_size, cwd=cwd, prefer=prefer)


def merge_whole(
    base: bytes,
    ours: bytes,
    theirs: bytes,
    *,
    marker_size: int = 7,
    cwd: StrPath | None = None,
    prefer: str | None = None,
) -> tuple[MergeResult, bytes]:
    """`merge_versions` on the whole files: each decoded and merged from its first byte."""
    if not any(is_discussion_bytes(data) for data in (base, ours, theirs)):
        # Another markdown file in the discussions folder: git's own line merge.
        return _line_merge(base, ours, theirs, marker_size, cwd, None)
    texts: list[str] = []
    for data in (base, ours, theirs):
        text, problems = decode(data)
        if problems:  # not UTF-8: only a line merge can be trusted with it
            return _line_merge(base, ours, theirs, marker_size, cwd, None)
        if data.startswith(b"\xef\xbb\xbf"):
            text = "\ufeff" + text
        texts.append(text)
    try:
        result = merge_texts(*texts, marker_size=marker_size, prefer=prefer)
    except Exception:  # noqa: BLE001 - a driver bug must not cost a merge: merge by lines
        return _line_merge(base, ours, theirs, marker_size, cwd, None)
    if result.status == LINE_MERGE:
        both = _edits_and_appends(texts, marker_size, cwd, prefer)
        if both is not None:
            return both
        return _line_merge(base, ours, theirs, marker_size, cwd, texts)
    return result, result.text.encode("utf-8")


def _edits_and_appends(
    texts: list[str], marker_size: int, cwd: StrPath | None, prefer: str | None = None
) -> tuple[MergeResult, bytes] | None:
    """A side edited the base and both appended (a typo fixed in the context or in the last
    comment while comments came in): merge each side's version of the base line by line and
    the appended blocks block by block. When only the edits overlap, the conflict markers
    hold just those lines and the appends merge after them (`_edits_conflict`). None when
    that does not apply."""
    from .additions import split_appended

    base, ours, theirs = texts
    split_o, split_t = split_appended(base, ours), split_appended(base, theirs)
    if split_o is None or split_t is None:
        return None
    (head_o, after_o), (head_t, after_t) = split_o, split_t
    heads, head_bytes = _line_merge(
        base.encode("utf-8", "surrogateescape"),
        head_o.encode("utf-8", "surrogateescape"),
        head_t.encode("utf-8", "surrogateescape"),
        marker_size,
        cwd,
        None,
    )
    head = head_bytes.decode("utf-8", "surrogateescape")
    if heads.status == CONFLICT and _ends_with_separator(head):
        return _edits_conflict(head, heads, head_o, after_o, after_t, marker_size, prefer)
    if heads.status != CLEAN or not _ends_with_separator(head):
        return None
    tail = merge_texts(head, head + after_o, head + after_t, marker_size=marker_size, prefer=prefer)
    if tail.status != CLEAN:
        return None
    checked = check_line_merge(base, ours, theirs, tail.text, marker_size=marker_size)
    if checked.status != CLEAN:
        return None
    checked.reason = "a side changed text that was already in the file; merged line by line"
    checked.added_ours, checked.added_theirs, checked.shared = (
        tail.added_ours,
        tail.added_theirs,
        tail.shared,
    )
    return checked, tail.text.encode("utf-8", "surrogateescape")


def _edits_conflict(
    head: str,
    heads: MergeResult,
    head_o: str,
    after_o: str,
    after_t: str,
    marker_size: int,
    prefer: str | None,
) -> tuple[MergeResult, bytes] | None:
    """Both sides edited the same lines of the base and both appended: the base with the
    edits' conflict markers, then the appends merged block by block (outside the markers)."""
    tail = merge_texts(
        head_o, head_o + after_o, head_o + after_t, marker_size=marker_size, prefer=prefer
    )
    if tail.status != CLEAN or not tail.text.startswith(head_o):
        return None
    heads.text = head + tail.text[len(head_o) :]
    heads.status = CONFLICT
    heads.added_ours, heads.added_theirs = tail.added_ours, tail.added_theirs
    heads.shared = tail.shared
    return heads, heads.text.encode("utf-8", "surrogateescape")


def _ends_with_separator(text: str) -> bool:
    blocks, rest = split_blocks(text)
    return bool(blocks) and not rest


def _line_merge(
    base: bytes,
    ours: bytes,
    theirs: bytes,
    marker_size: int,
    cwd: StrPath | None,
    texts: list[str] | None,
) -> tuple[MergeResult, bytes]:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="discussions-merge-") as tmp:
        paths = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(data)
            paths.append(path)
        proc = run_git(
            [
                "merge-file",
                "-p",
                f"--marker-size={marker_size}",
                "-L",
                "ours",
                "-L",
                "base",
                "-L",
                "theirs",
                *paths,
            ],
            cwd,
            check=False,
        )
    if proc.returncode < 0 or proc.returncode > 127:
        raise DiscussionsError(
            "git merge-file failed: " + proc.stderr.decode("utf-8", "replace").strip()
        )
    reason = "a side changed text that was already in the file"
    if proc.returncode > 0:
        return MergeResult(CONFLICT, reason=f"{reason}, and the changes overlap"), proc.stdout
    if texts is None:
        return MergeResult(CLEAN, reason=reason), proc.stdout
    merged, _ = decode(proc.stdout)
    if proc.stdout.startswith(b"\xef\xbb\xbf"):
        merged = "\ufeff" + merged
    checked = check_line_merge(texts[0], texts[1], texts[2], merged, marker_size=marker_size)
    if checked.status == CLEAN:
        return MergeResult(CLEAN, merged, reason), proc.stdout
    return checked, checked.text.encode("utf-8")


def merge_file(
    base: StrPath, ours: StrPath, theirs: StrPath, *, marker_size: int = 7
) -> MergeResult:
    """The merge driver: merge `base`/`ours`/`theirs` and write the result over `ours`
    (git's ``%O %A %B`` contract). Returns the decision; after two appends (`tails`), its
    text is the merged file from where the versions part, all that is written."""
    with open(base, "rb") as f:
        old = f.read()
    added = [read_added(path, old) for path in (ours, theirs)]
    if added[0] is not None and added[1] is not None:
        found = tail_merge(old, added[0], added[1], marker_size)
        if found is not None:
            cut, result = found
            tail = result.text.encode("utf-8")
            if old[cut:] + added[0] != tail:
                write_from(ours, tail, cut)
            return result
    data = [old]
    for path, extra in zip((ours, theirs), added, strict=True):
        if extra is not None:
            data.append(old + extra)
            continue
        with open(path, "rb") as f:
            data.append(f.read())
    folder = os.path.dirname(os.fspath(ours)) or "."
    result, out = merge_whole(*data, marker_size=marker_size, cwd=folder)
    if out != data[1]:
        kept = len(old) if added[0] is not None and out.startswith(old) else 0
        write_from(ours, out[kept:], kept)
    return result


def driver_main(argv: Sequence[str]) -> int:
    """``merge-file [--marker-size N] BASE OURS THEIRS [PATH]`` without the command-line
    framework: git starts the driver once per conflicted file, so `python -m discussions` can
    take this path before importing click. Returns the exit status (0 clean, 1 conflict,
    2 usage error)."""
    found = driver_args(argv)
    if found is None:
        return -1  # not the driver's shape: let the full command line parse and explain
    marker_size, (base, ours, theirs, label) = found
    try:
        result = merge_file(base, ours, theirs, marker_size=marker_size)
    except (OSError, DiscussionsError) as exc:
        sys.stderr.write(f"discussions: cannot merge {label}: {exc}\n")
        return 2
    if not result.clean:
        sys.stderr.write(f"discussions: conflict in {label}: {result.reason}\n")
        return 1
    return 0


# --------------------------------------------------------------------------- resolve


class Resolved(Record):
    """One file `resolve_conflict` repaired."""

    __slots__ = ("path", "result")
    path: Path
    result: MergeResult

    def __init__(self, path: Path, result: MergeResult) -> None:
        self.path = path
        self.result = result


def _index_stages(path: Path) -> tuple[bytes, bytes, bytes]:
    """The base, ours and theirs versions of a conflicted file from git's index
    (stages 1, 2, 3; a missing base, when both sides created the file, is empty)."""
    root = repo_root(path.parent)
    rel = relative_path(path, root)
    listing = run_git(["ls-files", "-u", "-z", "--", rel], root).stdout
    stages = {
        entry.split(b"\t", 1)[0].split()[2].decode()
        for entry in listing.split(b"\0")
        if entry.strip()
    }
    if not {"2", "3"} <= stages:
        raise DiscussionsError(
            f"{path} has no merge conflict to resolve (git has no 'ours' and 'theirs' "
            "versions of it); nothing changed"
        )
    versions = []
    for stage in ("1", "2", "3"):
        if stage not in stages:
            versions.append(b"")
            continue
        versions.append(run_git(["show", f":{stage}:{rel}"], root).stdout)
    return versions[0], versions[1], versions[2]


def resolve_conflict(path: Path, prefer: str | None = None) -> Resolved:
    """Redo the block-level merge of a conflicted discussion file from the index stages and
    write the clean result; refuse (file unchanged) when it cannot be merged safely, saying
    what to do instead. `prefer` (``ours``/``theirs``): whose phase and status to keep where
    the branches moved them differently."""
    base, ours, theirs = _index_stages(path)
    result, out = merge_versions(base, ours, theirs, cwd=path.parent, prefer=prefer)
    if result.status != CLEAN:
        raise DiscussionsError(
            f"{path} cannot be merged safely: {result.reason}; file left as it was. "
            + _conflict_advice(result.reason, str(path))
        )
    path.write_bytes(out)
    return Resolved(path, result)


def _conflict_advice(reason: str, shown: str) -> str:
    """The step that settles a conflict of this kind (`reason`, as the merge gave it)."""
    if "phase or status differently" in reason:
        return (
            f"Keep one side's phase and status, with every comment of both: `discussions "
            f"resolve --ours-phase {shown}` (or --theirs-phase)"
        )
    return (
        "Edit the lines between the conflict markers by hand (keep both sides' words), then "
        f"`git add {shown}`"
    )
