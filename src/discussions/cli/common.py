"""Small pieces the commands share: finding files, the author name, output helpers."""

from __future__ import annotations

import json
import json.encoder
import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..errors import DiscussionsError
from ..model.catalog import resolve_discussion as resolve_discussion
from ..settings.config import FileProblem
from ..settings.config import default_author as default_author  # re-exported for the commands
from ..settings.workspace import Workspace
from ..settings.workspace import display_path as display_path  # re-exported for the commands
from ..settings.workspace import resolve_file as resolve_file

if TYPE_CHECKING:
    from ..views.status import StatusLine


def workspace(warn: bool = True) -> Workspace:
    """The current project's workspace. With `warn`, settings keys that nobody reads
    (`Config.problems`: misspelt, with the closest known key) are reported on standard error;
    commands that report every problem themselves (`status`, `check`, `turn`, `run`) pass
    False."""
    ws = Workspace.discover()
    if warn and ws.config.problems:
        report_problems(ws.config.problems)
    return ws


def report_problems(problems: Sequence[FileProblem], as_json: bool = False) -> None:
    """Files that could not be used, on standard error: ``Warning: FILE:LINE: message``
    lines, or with `as_json` one JSON object ``{"problems": [{file, line, message}]}``."""
    if not problems:
        return
    if as_json:
        found = _shown_files({"problems": [p.to_dict() for p in problems]})
        click.echo(json.dumps(found), err=True)
        return
    for p in problems:
        where = f"{display_path(p.file)}:{p.line}" if p.line else display_path(p.file)
        say(f"Warning: {where}: {p.message} ({p.effect})", err=True)


def read_text_arg(text: str | None) -> str | None:
    """TEXT as given; ``-`` reads standard input."""
    if text == "-":
        data = sys.stdin.buffer.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise DiscussionsError("standard input is not valid UTF-8") from None
    return text


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` safe to show on a terminal: control characters (escape sequences, carriage
    returns, bidi overrides) become visible ``\\x1b``-style escapes. Newlines and tabs stay."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: repr(m.group(0))[1:-1], text)


def say(text: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Print text that may hold someone else's words (AI output, file content, stderr of a
    provider) for a person: control characters are escaped first."""
    click.echo(printable(text), err=err, nl=nl)


def say_styled(text: str, **styles: Any) -> None:
    """`say` in a colour or weight (`style`'s keywords): the text is escaped before it is
    styled, so someone else's control characters are shown and our own colours are not."""
    click.echo(style(printable(text), **styles) if styles else printable(text))


def color_enabled() -> bool:
    return not os.environ.get("NO_COLOR")


def style(text: str, **kwargs: Any) -> str:
    return click.style(text, **kwargs) if color_enabled() else text


def echo_json(data: Any) -> None:
    """`data` as JSON on standard output, every ``"file"`` in it named by one rule, the one
    the messages follow (`display_path`): relative to the current folder when under it, else
    absolute. The library's own dictionaries keep absolute paths."""
    click.echo(json_text(data, shown=True))


def _shown_files(data: Any) -> Any:
    """`data` with its ``"file"`` values shown (`echo_json`); only containers are walked into,
    and one in which nothing changed is kept as it is, not copied (`status --json` of a long
    discussion holds some 300,000 values in 77,000 containers, nearly all without a file)."""
    if isinstance(data, dict):
        changed = {
            k: shown
            for k, v in data.items()
            if isinstance(v, _CONTAINERS) and (shown := _shown_files(v)) is not v
        }
        if "file" in data and _absolute(data["file"]):
            changed["file"] = display_path(Path(data["file"]))
        return {**data, **changed} if changed else data
    if isinstance(data, list):
        out: list[Any] | None = None
        for i, v in enumerate(data):
            if isinstance(v, _CONTAINERS) and (shown := _shown_files(v)) is not v:
                out = list(data) if out is None else out
                out[i] = shown
        return data if out is None else out
    return data


_CONTAINERS = (dict, list)


def _absolute(value: object) -> bool:
    return isinstance(value, str) and os.path.isabs(value)


def json_text(data: Any, spread: int = 2, *, shown: bool = False) -> str:
    """`data` as JSON for people and for tools: containers down to `spread` levels deep are
    spread one entry per line, indented two spaces a level as ``json.dumps(indent=2)`` does;
    deeper ones stand on one line each (one comment of ``status --json`` per line). With
    `shown`, every ``"file"`` in it is shown as `echo_json` says (the text is that of
    ``json_text(_shown_files(data))``).

    Every one-line value is written by json's C encoder: with ``indent`` json falls back to
    its pure-Python encoder, several times slower on a large discussion. A one-line value is
    walked for its files only when its text holds ``"file": ``: a dict with a ``"file"`` key
    always writes that (a text without it has no file to show; one with it by chance, in a
    key such as ``a"file``, is only walked for nothing), so the 20,000 comments of a long
    discussion, none with a file, are not walked."""
    encode = json.JSONEncoder(ensure_ascii=False).encode  # made once, not per comment

    def one_line(value: Any) -> str:
        text = encode(value)
        return encode(_shown_files(value)) if shown and _FILE_KEY in text else text

    def write(value: Any, level: int) -> str:
        if level >= spread or not value or not isinstance(value, (dict, list)):
            return one_line(value)
        if isinstance(value, dict):
            entries = [
                encode(k if isinstance(k, str) else json.dumps(k)) + ": " + write(v, level + 1)
                for k, v in (_file_shown(value) if shown else value).items()
            ]
            opening, closing = "{", "}"
        else:
            entries = [write(v, level + 1) for v in value]
            opening, closing = "[", "]"
        pad = "\n" + "  " * (level + 1)
        return opening + pad + ("," + pad).join(entries) + "\n" + "  " * level + closing

    return write(data, 0)


_FILE_KEY = '"file": '
"""How a ``"file"`` key stands in `json_text`'s text: the key, then the key separator."""


def _file_shown(data: dict[Any, Any]) -> dict[Any, Any]:
    """`data` with its own ``"file"`` shown (`echo_json`), not its values' (`json_text` walks
    those)."""
    if "file" in data and _absolute(data["file"]):
        return {**data, "file": display_path(Path(data["file"]))}
    return data


TONE_STYLES: dict[str, dict[str, Any]] = {
    "strong": {"bold": True},
    "good": {"fg": "green"},
    "alert": {"fg": "red", "bold": True},
    "warning": {"fg": "yellow"},
}
"""How the terminal shows each tone of `views.status.TONES`."""


def echo_lines(lines: Iterable[StatusLine]) -> None:
    """Print lines of spans (`views.status`): each span made printable, then coloured by its
    tone (unless ``NO_COLOR``)."""
    for line in lines:
        click.echo(
            "".join(
                style(printable(s.text), **TONE_STYLES[s.tone]) if s.tone else printable(s.text)
                for s in line.spans
            )
        )
