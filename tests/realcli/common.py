"""What every conformance test of tests/realcli uses, whichever protocol its CLI speaks: git in
the test's project, `discussions` commands run in process and the JSON they print, the comment
a turn wrote, and fingerprints of the folders a refused tool call must leave alone. (One copy
each: hostile.py, chat_support.py and test_gemini.py each had their own.)"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from discussions.cli import cli

from ..support import git as support_git


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` (failing the test if it fails); its output as printed."""
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return proc.stdout


def use_git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A git identity of the test's own (commits of the fixture and the apply), outside CI's
    name (CI never implies consent to an apply)."""
    support_git.use_git_identity(monkeypatch, tmp_path)
    monkeypatch.delenv("CI", raising=False)


def invoke(*args: str) -> Result:
    """`discussions ARGS` in process."""
    return CliRunner().invoke(cli, list(args))


def printed(r: Result) -> dict[str, Any]:
    """The JSON object a command printed (lines before and after it left out)."""
    assert "{" in r.output, r.output
    data, _ = json.JSONDecoder().raw_decode(r.output[r.output.index("{") :])
    return data  # type: ignore[no-any-return]


_COMMENT = re.compile(
    r"\nName: (?P<name>[^\n]+)\n\n<!-- (?P<meta>[^\n]*) -->\n\n(?P<body>.*?)\n\n---\n", re.S
)


def last_comment(path: Path) -> tuple[str, str]:
    """(metadata line, body) of the discussion's last comment, as written in the file."""
    found = list(_COMMENT.finditer(path.read_text(encoding="utf-8")))
    assert found, path.read_text(encoding="utf-8")
    return found[-1]["meta"], found[-1]["body"]


def meta_field(meta: str, key: str) -> str:
    """One ``key: value`` part of a comment's metadata line."""
    for part in meta.split(" | "):
        name, _, value = part.partition(": ")
        if name == key:
            return value
    raise AssertionError(f"no {key} in {meta!r}")


ENGINE_CACHE = ".cache/discussions"
"""The engine's own cache in HOME (derived summaries a turn's prompt reads, `model.filecache`;
apply's clones): written by discussions, not by the CLI under test."""


def fingerprint(root: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Every file under `root` (its path relative to `root`) with its content's hash (a
    symbolic link's: its target), but those under the relative paths `skip` (a CLI's own
    state, the discussion a turn appends to), the engine's own cache (`ENGINE_CACHE`) and
    git's index (git refreshes it when asked for a status)."""
    found: dict[str, str] = {}
    if not root.exists():
        return found
    skip = (*skip, ENGINE_CACHE)
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel == ".git/index" or any(rel == s or rel.startswith(s + "/") for s in skip):
            continue
        if path.is_symlink() or path.is_file():
            data = path.read_bytes() if not path.is_symlink() else str(path.readlink()).encode()
            found[rel] = hashlib.sha256(data).hexdigest()
    return found


def keeping(folder: Path, text: str) -> list[str]:
    """The files under `folder` that hold `text` (a CLI's store of past sessions)."""
    needle = text.encode()
    return sorted(str(p) for p in folder.rglob("*") if p.is_file() and needle in p.read_bytes())


def without_our_sandbox(root: Path) -> None:
    """`apply.sandbox: off` in the project at `root` (committed): the lead runs outside the
    engine's bubblewrap, which by itself cuts the network and keeps the temp folders out, so
    what an apply test then sees refused is refused by the preset alone. (With it on, codex's
    and copilot's write presets passed their temp-folder probes with the flags that keep them
    out removed.)"""
    config = root / "discussions.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "apply:\n  sandbox: off\n")
    git(root, "commit", "-q", "-am", "no sandbox of ours")
