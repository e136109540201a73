"""The discussion files of a folder, and which of them hold a word: the cheap look (a listing
and a substring search, nothing parsed) that the ledger and the memory take before they derive
anything, and that `status` takes before it loads the memory at all."""

from __future__ import annotations

import os
from pathlib import Path

from .storage import is_derived


def discussion_candidates(folder: Path) -> list[Path]:
    """The ``*.md`` files of `folder` that may be discussions, by name."""
    out: list[Path] = []
    with os.scandir(folder) as it:
        for e in it:
            name = e.name
            if not name.endswith(".md") or is_derived(Path(name)):
                continue
            if name.startswith("."):  # editor and temporary files
                continue
            out.append(folder / name)
    out.sort()
    return out


def files_holding(
    where: Path, skip: Path | None = None, holding: tuple[str, ...] = ()
) -> list[Path]:
    """`discussion_candidates` of `where` but `skip` (the same file by another path too), and
    with `holding` only those whose lower-cased text holds one of its (lower-case) needles.
    Empty when `where` is not a folder; `OSError` when it cannot be listed."""
    if not where.is_dir():
        return []
    paths = discussion_candidates(where)
    if skip is not None:
        left_out = resolved(skip)
        paths = [p for p in paths if resolved(p) != left_out]
    if holding:
        paths = [p for p in paths if holds(p, holding)]
    return paths


def holds(path: Path, needles: tuple[str, ...]) -> bool:
    """Whether the text of the file at `path`, lower-cased, holds one of `needles` (False
    when it cannot be read)."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace").lower()
    except OSError:
        return False
    return any(n in text for n in needles)


def resolved(path: Path) -> Path:
    """`path` with its links resolved, else made absolute (a path that cannot be resolved)."""
    try:
        return path.resolve()
    except OSError:
        return path.absolute()
