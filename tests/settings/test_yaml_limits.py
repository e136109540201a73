"""YAML from a cloned repository is bounded: size, nesting and alias expansion are refused
with a `ConfigError` naming the file and line before any Python object is built."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from discussions import ConfigError
from discussions.providers.specs import read_specs
from discussions.settings.config import (
    MAX_YAML_BYTES,
    MAX_YAML_DEPTH,
    MAX_YAML_VALUES,
    load_yaml,
    load_yaml_document,
)
from discussions.settings.workspace import Workspace

from ..conftest import write


def laughs(levels: int = 9, width: int = 9, key: str = "lol") -> str:
    """The classic "billion laughs": each level is `width` aliases of the one before."""
    text = f"{key}0: &l0 [" + ", ".join(['"lol"'] * width) + "]\n"
    for i in range(1, levels):
        text += f"{key}{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]\n"
    return text


MERGE_BOMB = "a0: &a0 {k0: 1, k1: 2, k2: 3, k3: 4, k4: 5, k5: 6, k6: 7, k7: 8}\n" + "".join(
    f"a{i}: &a{i}\n  " + "\n  ".join(f"x{j}: {{<<: *a{i - 1}}}" for j in range(8)) + "\n"
    for i in range(1, 9)
)


def test_billion_laughs_is_small_but_refused(tmp_path: Path) -> None:
    text = laughs()
    assert len(text) < 600
    path = write(tmp_path / "bomb.yaml", text)
    with pytest.raises(ConfigError) as err:
        load_yaml(path)
    message = str(err.value)
    assert message.startswith(f"{path}: line ")
    assert f"more than {MAX_YAML_VALUES} values once aliases are expanded" in message


def test_merge_key_bomb_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "merge.yaml", MERGE_BOMB)
    with pytest.raises(ConfigError, match="once aliases are expanded"):
        load_yaml(path)


@pytest.mark.parametrize(
    "where",
    [
        "templates/bomb.yaml",
        "participants/bomb.yaml",
        "discussions.yaml",
        "userdir:config.yaml",
    ],
)
def test_bomb_anywhere_is_a_clean_error(isolated: Path, userdir: Path, where: str) -> None:
    path = userdir / where.split(":")[1] if where.startswith("userdir:") else isolated / where
    write(path, "name: bomb\nalias: bomb\n" + laughs(key="x"))
    problems: list[str] = []
    try:
        ws = Workspace.discover()
        problems = [str(p) for p in ws.problems]
    except ConfigError as exc:
        problems = [str(exc)]
    assert len(problems) == 1
    assert problems[0].startswith(str(path.resolve() if "userdir" not in where else path))
    assert "once aliases are expanded" in problems[0]


def test_bomb_in_an_untrusted_providers_file(isolated: Path) -> None:
    path = write(isolated / "providers.yaml", "providers:\n  - name: x\n" + laughs(key="    y"))
    with pytest.raises(ConfigError, match="once aliases are expanded"):
        read_specs(path, "project")


def test_deep_nesting_is_refused_without_crashing(tmp_path: Path) -> None:
    path = write(tmp_path / "deep.yaml", "x: " + "[" * 50_000 + "]" * 50_000 + "\n")
    with pytest.raises(ConfigError) as err:
        load_yaml(path)
    # Refused as a configuration error naming the file and the line; the words are ours or,
    # where PyYAML (6.0.4 on) stops the scanner first at its own depth limit, PyYAML's.
    assert str(err.value).startswith(f"{path}: line 1: ")


def test_deep_nesting_in_discussions_yaml_is_a_clean_cli_error(isolated: Path) -> None:
    """In a subprocess: before the limit this crashed the interpreter (exit 139)."""
    depth = 50_000
    write(isolated / "discussions.yaml", "output: " + "[" * depth + "]" * depth + "\n")
    env = dict(os.environ)
    result = subprocess.run(
        [sys.executable, "-m", "discussions", "list"],
        cwd=isolated,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("Error: ") and "discussions.yaml: line 1: " in result.stderr
    assert "Traceback" not in result.stderr


def test_nesting_up_to_the_limit_is_fine(tmp_path: Path) -> None:
    depth = MAX_YAML_DEPTH
    path = write(tmp_path / "ok.yaml", "[" * depth + "1" + "]" * depth + "\n")
    data = load_yaml(path)
    for _ in range(depth):
        data = data[0]
    assert data == 1
    path.write_text("[" * (depth + 1) + "]" * (depth + 1), encoding="utf-8")
    with pytest.raises(ConfigError, match="nested more than"):
        load_yaml(path)


def test_recursive_alias_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "rec.yaml", "a: &a\n  - 1\n  - *a\n")
    with pytest.raises(ConfigError) as err:
        load_yaml(path)
    assert str(err.value) == (f"{path}: line 3: alias '*a' refers to a collection it is inside of")


def test_ordinary_anchors_and_merge_keys_still_work(tmp_path: Path) -> None:
    path = write(
        tmp_path / "ok.yaml",
        """
        base: &base {timeout: 30, output: text}
        providers:
          - <<: *base
            name: one
          - <<: *base
            name: two
        list: &l [a, b]
        again: *l
        """,
    )
    data = load_yaml(path)
    assert data["providers"][1] == {"timeout": 30, "output": "text", "name": "two"}
    assert data["again"] == ["a", "b"]


def test_oversized_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("x: '" + "a" * MAX_YAML_BYTES + "'\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"larger than 1 MiB"):
        load_yaml(path)


def test_a_fifo_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "fifo.yaml"
    os.mkfifo(path)
    with pytest.raises(ConfigError, match="not a regular file"):
        load_yaml(path)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("x: 2020-13-45\n", "month must be in 1..12"),
        ("x: " + "1" * 5000 + "\n", "integer string conversion"),
    ],
)
def test_values_python_cannot_build_are_clean_errors(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = write(tmp_path / "v.yaml", text)
    with pytest.raises(ConfigError, match=problem) as err:
        load_yaml(path)
    assert str(err.value).startswith(f"{path}: invalid YAML value: ")


def test_unsafe_tags_are_still_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "t.yaml", "x: !!python/object/apply:os.system ['true']\n")
    with pytest.raises(ConfigError, match=r"line 1: invalid YAML"):
        load_yaml(path)


def test_document_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.yaml",
        """
        name: t
        phases:
          - id: a
            next: b
          - id: b
        """,
    )
    doc = load_yaml_document(path)
    assert doc.line("phases", 0, "next") == 4
    assert doc.line("phases", 1) == 5
    assert doc.line("phases", 7, "id") == 2  # falls back to the nearest known parent
    assert doc.line("nothing") == 1  # the mapping that lacks it
    empty = write(tmp_path / "empty.yaml", "# nothing\n")
    assert load_yaml_document(empty).line("x") == 0
