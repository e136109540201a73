"""The AI CLIs' own configuration in the project, watched across a turn.

A CLI runs in the project, and some rewrite their project configuration whatever flags they
are given: Qwen Code 0.15 migrates a project's ``.qwen/settings.json`` (adds ``"$version"``)
and leaves a ``.orig`` copy, even with ``--bare`` (qwen-code packages/cli/src/config/
settings.ts, ``loadSettings``: each settings file is loaded and migrated). No flag stops it,
so the engine looks at these files before and after the turn's calls and says what changed:
a tracked file rewritten under the user's feet is something they must hear about.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ...model.discussion import Discussion
from ...syntax.digest import sha256_hex

_WATCHED = (
    ".qwen", ".gemini", ".claude", ".mcp.json", ".codex", ".copilot", "opencode.json",
    "opencode.jsonc", ".opencode", ".cursor",
)  # fmt: skip
"""The project paths (files or folders) where the AI CLIs keep their project configuration."""

_MAX_FILES = 2000
"""Files looked at in all (a huge folder there is not configuration; the rest is skipped)."""


def fingerprint(root: Path) -> dict[str, str]:
    """The watched files under `root` (relative path -> hash of the content; links by their
    target, never followed)."""
    found: dict[str, str] = {}
    for name in _WATCHED:
        top = root / name
        paths = [top] if not top.is_dir() or top.is_symlink() else sorted(top.rglob("*"))
        for path in paths[:_MAX_FILES]:
            digest = _digest(path)
            if digest is not None:
                found[path.relative_to(root).as_posix()] = digest
    return found


def _digest(path: Path) -> str | None:
    try:
        if path.is_symlink():
            return "link:" + str(path.readlink())
        if path.is_file():
            return sha256_hex(path.read_bytes())
    except OSError:
        return None
    return None


def changes(root: Path, before: dict[str, str]) -> list[str]:
    """What a call changed in the watched files since `before`, one sentence each."""
    after = fingerprint(root)
    said = [
        f"{rel} was {'changed' if rel in after else 'removed'}"
        for rel in sorted(before)
        if after.get(rel) != before[rel]
    ]
    said += [f"{rel} was added" for rel in sorted(set(after) - set(before))]
    hint = (
        "by an AI CLI during the turn (its own project configuration; see `git status` and "
        'docs/providers.md, "What no flag fixes")'
    )
    return [f"{what} {hint}" for what in said]


class Watch:
    """The watched files of the folders a turn's calls run in (the project and the current
    folder), taken when made; `report` adds what changed since to a list of warnings."""

    def __init__(self, *roots: Path) -> None:
        folders = dict.fromkeys(r.resolve() for r in roots)
        self.before = {root: fingerprint(root) for root in folders}

    def report(self, warnings: list[str]) -> None:
        for root, before in self.before.items():
            warnings.extend(w for w in changes(root, before) if w not in warnings)


@contextmanager
def configs_watched(d: Discussion, warnings: list[str]) -> Iterator[None]:
    """Around a turn's calls on `d`: what they changed in the AI CLIs' project configuration
    (of the project and of the folder the calls run in) added to `warnings`."""
    watch = Watch(d.workspace.config.base_dir, Path.cwd())
    yield
    watch.report(warnings)
