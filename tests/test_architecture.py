"""The layout holds: the layers contract (import-linter, declared in pyproject.toml) and a first
line that says what each module holds (docs/architecture.md)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "discussions"


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_the_layers_contract_holds() -> None:
    """No import runs up a layer, and no two sibling modules or packages import each other."""
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which(
        "lint-imports"
    )
    if lint is None:
        pytest.fail("lint-imports not found: pip install '.[test]' installs import-linter")
    out = subprocess.run(
        [lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


def test_every_module_says_what_it_holds() -> None:
    missing = [
        str(p.relative_to(PACKAGE))
        for p in modules()
        if not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))
    ]
    assert missing == []


def test_code_speaks_of_the_code() -> None:
    """Comments and docstrings cite the repository's own docs, not documents outside it."""
    words = ("seed 004", "DESIGN.md", "issue 1", "issue 2", "(issue ")
    found = [
        f"{p.relative_to(PACKAGE)}: {w}"
        for p in modules()
        for w in words
        if w in p.read_text(encoding="utf-8")
    ]
    assert found == []
