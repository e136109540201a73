"""Changing a few keys of a settings file a person also edits, without losing anything of theirs.

PyYAML can only write a whole document again, which drops every comment and reorders keys.
These functions edit the text instead: the lines of the keys they set are replaced (or new ones
inserted at the end of their section), every other line is kept byte for byte; then the result
is read back and compared with what it must hold (the file's data with the new values). Any
difference (a layout these line edits do not understand: a flow mapping over several lines, an
anchor) is refused with the lines to add by hand, and the file is left as it was.

Used by `discussions init` (`ops.wizard`) for ``discussions.yaml``'s ``providers:`` section and
the user's ``providers.yaml``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from ..atomic import replace_file
from ..errors import ConfigError
from .config import load_yaml_document

_Edit = tuple[int, int, list[str]]
"""Lines ``[start, end)`` (0-based) replaced by new ones."""


def flow(value: Any) -> str:
    """`value` as one line of YAML (a scalar, ``[a, b]``, ``{}``)."""
    text: str = yaml.safe_dump(value, default_flow_style=True, width=10**6, allow_unicode=True)
    return text.strip().removesuffix("...").strip()


def _key_lines(indent: str, key: str, value: Any) -> list[str]:
    """`key: value` at `indent`; a non-empty mapping as a block under the key."""
    if isinstance(value, dict) and value:
        rows = [f"{indent}  {flow(k)}: {flow(v)}\n" for k, v in value.items()]
        return [f"{indent}{key}:\n", *rows]
    return [f"{indent}{key}: {flow(value)}\n"]


def _item_lines(indent: str, item: dict[str, Any]) -> list[str]:
    """A mapping as one block list item at `indent`."""
    rows = [f"{flow(k)}: {flow(v)}" for k, v in item.items()]
    return [f"{indent}- {rows[0]}\n", *(f"{indent}  {row}\n" for row in rows[1:])]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _inside(line: str, indent: int) -> bool:
    """Whether `line` still belongs to a block whose key is at `indent` columns (blank, deeper,
    or a list item at the key's own indent, which YAML allows)."""
    stripped = line.strip()
    if not stripped or _indent(line) > indent:
        return True
    return _indent(line) == indent and (stripped == "-" or stripped.startswith("- "))


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """The line after the block that starts at `start` (a key at `indent` columns): it runs
    while lines are blank or indented deeper; trailing blank lines are not part of it."""
    end = start + 1
    while end < len(lines) and _inside(lines[end], indent):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def _read(path: Path) -> tuple[list[str], Any, dict[tuple[str | int, ...], int]]:
    if not path.exists():
        return [], None, {}
    doc = load_yaml_document(path)
    return path.read_text(encoding="utf-8").splitlines(keepends=True), doc.data, doc.lines


def _section_edits(
    lines: list[str],
    data: dict[str, Any],
    where: dict[tuple[str | int, ...], int],
    section: str,
    values: dict[str, Any],
) -> list[_Edit]:
    """The edits that set `values` in the mapping `section` of `data`."""
    current = data.get(section)
    start = where.get((section,), 0) - 1
    if start < 0:
        block = _key_lines("", section, {}) if not values else [f"{section}:\n"]
        block += [ln for k, v in values.items() for ln in _key_lines("  ", k, v)]
        return [(len(lines), len(lines), block)]
    keys_at = {k: where.get((section, k), 0) - 1 for k in (current or {})}
    if not isinstance(current, dict) or not current or any(i <= start for i in keys_at.values()):
        merged = {**(current if isinstance(current, dict) else {}), **values}
        end = _block_end(lines, start, _indent(lines[start]))
        return [(start, end, _key_lines(" " * _indent(lines[start]), section, merged))]
    child = " " * _indent(lines[min(keys_at.values())])
    edits: list[_Edit] = []
    added: list[str] = []
    for key, value in values.items():
        if key in keys_at:
            at = keys_at[key]
            edits.append((at, _block_end(lines, at, len(child)), _key_lines(child, key, value)))
        else:
            added += _key_lines(child, key, value)
    if added:
        end = _block_end(lines, start, _indent(lines[start]))
        edits.append((end, end, added))
    return edits


def _apply(lines: list[str], edits: list[_Edit]) -> str:
    out = list(lines)
    if out and not out[-1].endswith("\n"):
        out[-1] += "\n"
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out[start:end] = new
    return "".join(out)


def _write_checked(path: Path, text: str, expected: Any, by_hand: list[str]) -> None:
    """Write `text` to `path` if it reads back as `expected`; else refuse, naming the lines."""
    try:
        got = yaml.safe_load(text)
    except yaml.YAMLError:
        got = None
    if got != expected:
        raise ConfigError(
            f"{path}: could not change it without touching what is there; add these lines "
            "by hand:\n" + "".join(by_hand)
        )
    replace_file(path, text, what="the settings file")


def set_keys(path: Path, section: str, values: dict[str, Any]) -> bool:
    """Set `values` (key -> value) in the top-level mapping `section` of the YAML file at
    `path` (created when missing), keeping every other line as it is. False: nothing to do."""
    lines, data, where = _read(path)
    if data is not None and not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of settings")
    data = data or {}
    found = data.get(section)
    current: dict[str, Any] = found if isinstance(found, dict) else {}
    if all(k in current and current[k] == v for k, v in values.items()):
        return False
    expected = copy.deepcopy(data)
    expected[section] = {**current, **values}
    text = _apply(lines, _section_edits(lines, data, where, section, values))
    by_hand = [f"{section}:\n", *(ln for k, v in values.items() for ln in _key_lines("  ", k, v))]
    _write_checked(path, text, expected, by_hand)
    return True


def append_items(path: Path, section: str, items: list[dict[str, Any]]) -> None:
    """Append `items` (mappings) to the top-level list `section` of the YAML file at `path`
    (created when missing), keeping every other line as it is."""
    lines, data, where = _read(path)
    if data is not None and not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping with a '{section}:' list")
    data = data or {}
    current = data.get(section) or []
    expected = copy.deepcopy(data)
    expected[section] = [*current, *items]
    start = where.get((section,), 0) - 1
    first = where.get((section, 0), 0) - 1
    block = [ln for item in items for ln in _item_lines("  ", item)]
    if start < 0:
        edits: list[_Edit] = [(len(lines), len(lines), [f"{section}:\n", *block])]
    elif first <= start:  # `section:` with nothing, or `[]` / a flow list on its line
        end = _block_end(lines, start, _indent(lines[start]))
        every = [ln for item in expected[section] for ln in _item_lines("  ", item)]
        edits = [(start, end, [f"{section}:\n", *every])]
    else:
        item_indent = lines[first][: lines[first].index("-")]
        end = _block_end(lines, start, _indent(lines[start]))
        edits = [(end, end, [ln for item in items for ln in _item_lines(item_indent, item)])]
    _write_checked(path, _apply(lines, edits), expected, [f"{section}:\n", *block])
