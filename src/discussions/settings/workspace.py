"""A workspace: the configuration plus the participants and templates it can see."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path

from ..errors import DiscussionNotFound
from .config import Config, FileProblem, bundled_dir, user_dir
from .participants import ParticipantRegistry
from .templates import TemplateRegistry


class Workspace:
    """Configuration, participants and templates for one project (lazily loaded)."""

    def __init__(self, config: Config) -> None:
        self.config = config

    @classmethod
    def discover(cls, start: Path | None = None) -> Workspace:
        """The workspace of the project that holds `start` (default: the current folder)."""
        return cls(Config.load(start))

    def folders(self, kind: str) -> list[Path]:
        """Where `kind` (``participants`` or ``templates``) is read from, lowest precedence
        first: bundled, user dir, project."""
        folders = [bundled_dir(kind), user_dir() / kind, self.config.base_dir / kind]
        unique: list[Path] = []
        for f in folders:
            resolved = f.resolve()
            if resolved not in unique:
                unique.append(resolved)
        return unique

    @cached_property
    def participants(self) -> ParticipantRegistry:
        return ParticipantRegistry.load(self.folders("participants"))

    @cached_property
    def templates(self) -> TemplateRegistry:
        return TemplateRegistry.load(self.folders("templates"))

    @property
    def problems(self) -> list[FileProblem]:
        """Settings keys ignored (`Config.problems`), then persona and template files that
        could not be used (reads both registries). Show each as ``str(problem)``:
        ``FILE:LINE: message``."""
        return [*self.config.problems, *self.participants.problems, *self.templates.problems]


def display_path(path: Path) -> str:
    """`path` relative to the current folder when it is under it. Only its folder is resolved:
    a symbolic link is shown by its own name, not by its target's."""
    try:
        where = path.parent.resolve() / path.name if path.name else path.resolve()
        return str(where.relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):
        return str(path)


def display_in(folder: Path) -> Callable[[Path], str]:
    """`display_path` for the files of `folder`, the folder and the current folder resolved
    once: a listing of a thousand files resolved both for each file."""
    try:
        where, here = folder.resolve(), Path.cwd().resolve()
    except (OSError, RuntimeError):
        return display_path

    def shown(path: Path) -> str:
        if path.parent != folder or not path.name:
            return display_path(path)
        try:
            return str((where / path.name).relative_to(here))
        except ValueError:
            return str(path)

    return shown


def shorten(name: str, limit: int = 80) -> str:
    """`name` for a message: at most `limit` characters (a name of thousands is cut)."""
    return name if len(name) <= limit else f"{name[: limit - 3]}..."


def resolve_file(name: str, ws: Workspace) -> Path:
    """A FILE argument: `name` as given, else inside the configured discussions folder (with or
    without ``.md``). The rules and messages of the CLI and the TUI; servers (MCP, web) open
    only what `catalog.served_path` accepts."""
    path = Path(name).expanduser()
    if _exists(path):
        return path
    if not path.is_absolute():
        candidate = ws.config.output_directory / path
        if _exists(candidate):
            return candidate
        if not path.suffix:
            for p in (path.with_suffix(".md"), candidate.with_suffix(".md")):
                if _exists(p):
                    return p
        raise missing(name, ws)
    raise DiscussionNotFound(f"no such discussion file: {shorten(name)}")


def missing(name: str, ws: Workspace) -> DiscussionNotFound:
    """The error for a discussion `name` that is found neither as given nor in the
    discussions folder."""
    return DiscussionNotFound(
        f"no such discussion file: {shorten(name)} "
        f"(also looked in {display_path(ws.config.output_directory)})"
    )


def _exists(path: Path) -> bool:
    """Whether `path` exists; a name the system cannot look up (too long) does not."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False
