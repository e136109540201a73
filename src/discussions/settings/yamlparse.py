"""A YAML file read safely, with the line each key is on: the limits a file from a cloned
repository is held to, and errors that name the file and the line (`FileProblem`,
`located_error`).

`config.load_yaml_document` reads every settings, persona, template and providers file through
here when the parsed-document cache (`yamlcache`) does not hold its text: PyYAML is imported
only then. A file is refused (`ConfigError` naming the file and line) before any Python object
is built when it is over `MAX_YAML_BYTES`, nested deeper than `MAX_YAML_DEPTH` levels, or would
hold more than `MAX_YAML_VALUES` values once its aliases are expanded (an alias bomb).
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import ConfigError
from ..syntax.record import Record
from .schema import key_name

if TYPE_CHECKING:
    import yaml

MAX_YAML_BYTES = 1024 * 1024
"""Largest YAML file read (personas, templates and settings are a few KiB)."""
MAX_YAML_DEPTH = 64
"""Deepest nesting of lists and mappings (the bundled files use 4)."""
MAX_YAML_VALUES = 100_000
"""Most values (scalars, lists, mappings) in one file, counting each use of an alias as the
values it stands for: this is what stops an alias bomb ("billion laughs")."""


class FileProblem(Record):
    """A configuration file that could not be used; the files around it still were.

    `file`; `line`, 1-based, 0 when unknown; `message`, what is wrong, without the file and
    line; `effect`, what was done about it: ``skipped`` (the file) or ``ignored`` (a settings
    key).
    (A slotted `Record`: making a dataclass costs start-up time on every command.)"""

    __slots__ = ("file", "line", "message", "effect")

    def __init__(self, file: Path, line: int, message: str, effect: str = "skipped") -> None:
        self.file = file
        self.line = line
        self.message = message
        self.effect = effect

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line}: {self.message}"
            if self.line
            else f"{self.file}: {self.message}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": str(self.file),
            "line": self.line,
            "message": self.message,
            "effect": self.effect,
        }

    @classmethod
    def from_error(cls, error: ConfigError, file: Path) -> FileProblem:
        """The problem `error` (raised while reading `file`) describes."""
        located = getattr(error, "location", None)
        if isinstance(located, FileProblem):
            return located
        message = str(error)
        prefix = f"{file}: "
        return cls(file, 0, message[len(prefix) :] if message.startswith(prefix) else message)


_E = TypeVar("_E", bound=ConfigError)


def located_error(
    kind: type[_E], path: Path | None, line: int | None, message: str, *, what: str = "file"
) -> _E:
    """`kind` with the message ``FILE: line N: MESSAGE``; the parts are kept (as a
    `FileProblem`) for `FileProblem.from_error`."""
    where = str(path) if path is not None else what
    error = kind(f"{where}: line {line}: {message}" if line else f"{where}: {message}")
    if path is not None:
        setattr(error, "location", FileProblem(path, line or 0, message))  # noqa: B010
    return error


class YamlDocument(Record):
    """A YAML file's data and the lines its keys and items are on.
    (A slotted `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("data", "path", "lines")
    data: Any
    """The loaded data (plain dicts, lists, scalars)."""
    path: Path
    """The file."""
    lines: dict[tuple[str | int, ...], int]
    """1-based line of each mapping key / list item, by key path (``("phases", 0, "next")``;
    ``()`` is the document); mapping keys are given as text."""

    def __init__(
        self, data: Any, path: Path, lines: dict[tuple[str | int, ...], int] | None = None
    ) -> None:
        self.data = data
        self.path = path
        self.lines = {} if lines is None else lines

    def line(self, *keys: str | int) -> int:
        """The line of the key path `keys`, else of its nearest listed parent (a missing key:
        the mapping that lacks it); 0 for an empty document."""
        path = tuple(keys)
        while path not in self.lines:
            if not path:
                return 0
            path = path[:-1]
        return self.lines[path]


def _safe_loader() -> Any:
    """PyYAML's safe loader, libyaml's when built with it (several times faster); PyYAML is
    imported here, on the first document no cache holds."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_document(text: str, path: Path) -> YamlDocument:
    """The document `text` (read from `path`) holds; `ConfigError` naming the file and line
    when it is not valid YAML or goes past the limits."""
    import yaml

    loader = _safe_loader()(text)
    try:
        _check_events(loader, path)
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, path) from exc
    finally:
        loader.dispose()
    loader = _safe_loader()(text)
    try:
        node = loader.get_single_node()
        lines: dict[tuple[str | int, ...], int] = {}
        if node is not None:
            lines[()] = node.start_mark.line + 1
            _collect_lines(node, (), lines, path)
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, path) from exc
    except (ValueError, TypeError, OverflowError) as exc:  # a bad date, a 5000-digit number
        raise ConfigError(f"{path}: invalid YAML value: {exc}") from exc
    finally:
        loader.dispose()
    return YamlDocument(data, path, lines)


def read_limited(path: Path) -> str:
    """The text of the YAML file at `path`: a regular file, at most `MAX_YAML_BYTES`, UTF-8."""
    try:
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise ConfigError(f"{path}: is a folder, not a YAML file")
        if not stat.S_ISREG(mode):
            raise ConfigError(f"{path}: not a regular file (a pipe, socket or device)")
        with path.open("rb") as f:
            raw = f.read(MAX_YAML_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    if len(raw) > MAX_YAML_BYTES:
        raise ConfigError(
            f"{path}: larger than {MAX_YAML_BYTES // 1024 // 1024} MiB; "
            "settings, personas and templates are small files - is this the right file?"
        )
    if b"\x00" in raw:
        raise ConfigError(f"{path}: is a binary file, not YAML text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise located_error(
            ConfigError, path, line, "not valid UTF-8 text; save the file as UTF-8"
        ) from None


def _check_events(loader: Any, path: Path) -> None:
    """Walk the parser's events (streaming: aliases are not expanded here) and refuse deep
    nesting, aliases that refer to their own enclosing collection, and documents that would
    hold more than `MAX_YAML_VALUES` values once aliases are expanded."""
    import yaml  # loaded by the parse that called this

    open_frames: list[list[Any]] = []  # [anchor, values so far]
    anchored: dict[str, int] = {}  # anchor -> values it stands for
    total = 0

    def fail(event: Any, message: str) -> ConfigError:
        return located_error(ConfigError, path, event.start_mark.line + 1, message)

    def add(count: int, event: Any) -> None:
        nonlocal total
        total += count
        if total > MAX_YAML_VALUES:
            raise fail(
                event,
                f"holds more than {MAX_YAML_VALUES} values once aliases are expanded "
                "(an alias bomb?); refusing to load it",
            )

    while loader.check_event():
        event = loader.get_event()
        if isinstance(event, yaml.CollectionStartEvent):
            if len(open_frames) >= MAX_YAML_DEPTH:
                raise fail(event, f"nested more than {MAX_YAML_DEPTH} levels deep")
            if event.anchor is not None:
                anchored.pop(event.anchor, None)
            add(1, event)
            open_frames.append([event.anchor, 1])
            continue
        if isinstance(event, yaml.CollectionEndEvent):
            anchor, count = open_frames.pop()
            if anchor is not None:
                anchored[anchor] = count
        elif isinstance(event, yaml.ScalarEvent):
            count = 1
            add(count, event)
            if event.anchor is not None:
                anchored[event.anchor] = count
        elif isinstance(event, yaml.AliasEvent):
            if any(frame[0] == event.anchor for frame in open_frames):
                raise fail(event, f"alias '*{event.anchor}' refers to a collection it is inside of")
            count = anchored.get(str(event.anchor), 1)  # undefined: the composer reports it
            add(count, event)
        else:
            continue
        if open_frames:  # a finished value counts in the collection around it
            open_frames[-1][1] += count


def _collect_lines(
    node: yaml.Node,
    at: tuple[str | int, ...],
    lines: dict[tuple[str | int, ...], int],
    path: Path,
) -> None:
    """Fill `lines`; a key given twice in one mapping (YAML would keep the last one without
    a word) is refused, naming both lines."""
    import yaml  # loaded by the parse that called this

    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                here = (*at, str(key.value))
                line = key.start_mark.line + 1
                if here in lines:
                    raise located_error(
                        ConfigError,
                        path,
                        line,
                        f"key '{key_name(here)}' is given twice (lines {lines[here]} and "
                        f"{line}); keep one",
                    )
                lines[here] = line
                _collect_lines(value, here, lines, path)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            here = (*at, i)
            lines.setdefault(here, item.start_mark.line + 1)
            _collect_lines(item, here, lines, path)


def _yaml_error(exc: yaml.YAMLError, path: Path) -> ConfigError:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return located_error(
        ConfigError, path, mark.line + 1 if mark is not None else None, f"invalid YAML: {problem}"
    )
